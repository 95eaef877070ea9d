"""Matches held back by the outbox because they look like one the service got lately from another seat.

Before a match's first attempt the sender hands those not checked yet to its `TwinCheck` (the app's); one that
looks like another seat's is held until its seat answers. An entry's `twin` column: `UNCHECKED`, `CHECKED`,
or a held match's `Twin` as JSON. See docs/design/local-files.md.
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
