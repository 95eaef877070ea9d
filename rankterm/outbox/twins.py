"""Matches held back by the outbox because they look like one the service got lately from another seat.

Two seats offline may both record the match just played; online, the match form asks before sending one
that looks like a match recorded in the last 30 minutes (rankterm/tui/widgets/match_form/twin.py holds the
rule). Offline it cannot see the other seat's match, so the outbox asks when it sends: before a match's
first attempt, the sender hands the matches not checked yet to its `TwinCheck` (the app's: the group's
recent matches, compared by the form's rule). One that looks like a match recorded from another seat is
*held*: kept in the outbox, not sent, until the seat that recorded it answers "send anyway" or discards it.

Each match entry's `twin` column says where it stands: `UNCHECKED` (to be checked when sent), `CHECKED`
(the form checked it online, the check found nothing, or the answer was "send anyway"), or a held match's
`Twin` as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from rankterm.wire.models import NewMatch

UNCHECKED = ""
CHECKED = "-"

LOOKS_LIKE = "looks-like"
"""rankterm's own code of a held match's one error item (the service never gave it)."""


@dataclass(frozen=True, slots=True)
class Twin:
    """The recorded match a held one looks like."""

    number: int
    match_id: str = ""
    recorded_at: str = ""
    """When the service got it (ISO 8601, UTC), when known."""
    from_here: bool = False
    """It went out from this outbox (another seat of this profile, on this machine), not from elsewhere."""

    def text(self) -> str:
        return json.dumps(
            {"number": self.number, "id": self.match_id, "at": self.recorded_at, "here": self.from_here}
        )

    @classmethod
    def read(cls, text: str) -> Twin | None:
        """The twin a `twin` column holds; None for `UNCHECKED`, `CHECKED` or anything unreadable."""
        if text in (UNCHECKED, CHECKED):
            return None
        try:
            raw = json.loads(text)
            return cls(
                int(raw["number"]), str(raw.get("id", "")), str(raw.get("at", "")), bool(raw.get("here"))
            )
        except (ValueError, KeyError, TypeError):
            return None

    @property
    def sentence(self) -> str:
        """What a held match's reason says (the screen names the keys)."""
        where = "another seat of this machine" if self.from_here else "another seat"
        return f"looks like Match {self.number}, recorded lately from {where}"


TwinCheck = Callable[[Sequence[NewMatch]], Awaitable[Mapping[str, Twin]]]
"""Given matches about to be sent for the first time, the twin of each that looks like a match the service got
lately from another seat, by external id (those with none are left out). May raise the client's errors."""
