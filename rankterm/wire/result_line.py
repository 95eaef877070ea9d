"""A match's result on one line: its sides in rank order between angle quotes, a tie as "Ada = Ben".

Built from the match's factions, each of which carries its rank and its names, never by splitting the
summary: the summary joins the sides with newlines, a name may hold a newline of its own, and the summary
does not say which sides tied. Only a match read without factions falls back to its summary's lines, each a
place of its own. The matches list of the app, the scoreboard and `rankterm matches` build their result
lines here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankterm.wire.models import Faction, Match

PLACE_SEP = " \u203a "
"""Between places: a single right-pointing angle quote, the better place first."""
TIE_SEP = " = "
"""Between sides that share a place."""


def side_label(faction: Faction) -> str:
    """A side as the service's summary names it: the faction's name, else its players' names joined by ", ",
    else "Bot"."""
    return faction.name or ", ".join(p.label for p in faction.players) or "Bot"


def by_place(match: Match) -> list[tuple[int, list[Faction]]]:
    """The factions of `match` grouped by rank, the best place first: (rank, the factions that share it, in
    the match's order)."""
    grouped: dict[int, list[Faction]] = {}
    for faction in match.factions:
        grouped.setdefault(faction.rank, []).append(faction)
    return sorted(grouped.items())


def places(match: Match, label: Callable[[Faction], str] = side_label) -> list[list[str]]:
    """The sides of `match` named by `label` and grouped by rank, the best place first. Without factions:
    the summary's lines, one place each."""
    if not match.factions:
        return [[line.strip()] for line in match.summary.split("\n") if line.strip()]
    return [[label(f) for f in factions] for _, factions in by_place(match)]


def place_text(place: list[str]) -> str:
    """One place: its sides joined by `TIE_SEP`."""
    return TIE_SEP.join(place)


def result_line(match: Match, label: Callable[[Faction], str] = side_label) -> str:
    """The whole result on one line: Elena, then Ada and Ben tied, then Chiara, joined by `PLACE_SEP` and
    `TIE_SEP`."""
    return PLACE_SEP.join(place_text(p) for p in places(match, label))
