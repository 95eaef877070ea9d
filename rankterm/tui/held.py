"""What the screens say of a history held in part: a first sync within a share of the hourly call quota reads
a large group over several hours, newest first, and until it is done the figures and the held lists are over
what is held. Nothing is said when the whole history is held.

The Stats screens say "Figures over 18,000 of 100,000 matches · the rest within 3 hours" on their info line;
the matches screen ends its summary line with "18,000 of 100,000 matches held · the rest within 3 hours".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankterm.mirror import Group


def figures_over(group: Group) -> str:
    """ "Figures over 18,000 of 100,000 matches · the rest within 3 hours"; "" when all is held. No request."""
    held = group.held_history()
    return "" if held.whole else f"Figures over {held}"


def matches_held(group: Group) -> str:
    """ "18,000 of 100,000 matches held · the rest within 3 hours"; "" when all is held. No request."""
    held = group.held_history()
    return "" if held.whole else f"{held.held:,} of {held.total:,} matches held · {held.rest}"
