"""Matches held back by the outbox because they look like one the service got lately from another seat.

Before a match's first attempt the sender hands those not checked yet to its `TwinCheck` (the app's); one that
looks like another seat's is held until its seat answers. An entry's `twin` column: `UNCHECKED`, `CHECKED`,
or a held match's `Twin` as JSON. Its `not_twins` column: the matches the person already said it is not
(`NotTwins`, "send anyway" in the form), which the check never holds it for, however often it runs.
See docs/design/local-files.md.
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
    external_id: str = ""
    """Its external id, when it has one."""

    def text(self) -> str:
        return json.dumps(
            {
                "number": self.number,
                "id": self.match_id,
                "at": self.recorded_at,
                "here": self.from_here,
                "ext": self.external_id,
            }
        )

    @classmethod
    def read(cls, text: str) -> Twin | None:
        """The twin a `twin` column holds; None for `UNCHECKED`, `CHECKED` or anything unreadable."""
        if text in (UNCHECKED, CHECKED):
            return None
        try:
            raw = json.loads(text)
            return cls(
                int(raw["number"]),
                str(raw.get("id", "")),
                str(raw.get("at", "")),
                bool(raw.get("here")),
                str(raw.get("ext") or ""),
            )
        except (ValueError, KeyError, TypeError):
            return None

    @property
    def sentence(self) -> str:
        """What a held match's reason says (the screen names the keys)."""
        where = "another seat of this machine" if self.from_here else "another seat"
        return f"looks like Match {self.number}, recorded lately from {where}"


@dataclass(frozen=True, slots=True)
class NotTwins:
    """The matches a person said an entry is not, answering "send anyway": recorded ones by number, ones not
    recorded yet when asked (waiting in the outbox, or another of the same batch) by external id."""

    numbers: tuple[int, ...] = ()
    external_ids: tuple[str, ...] = ()

    def covers(self, twin: Twin) -> bool:
        """Whether the person already said the entry is not `twin`."""
        return twin.number in self.numbers or bool(twin.external_id and twin.external_id in self.external_ids)

    def adding(self, number: int | None = None, external_id: str = "") -> NotTwins:
        """These answers and one more (a match number, or an external id)."""
        numbers = self.numbers if number is None or number in self.numbers else (*self.numbers, number)
        ids = self.external_ids
        if external_id and external_id not in ids:
            ids = (*ids, external_id)
        return NotTwins(numbers, ids)

    def text(self) -> str:
        """As the `not_twins` column keeps it ('' for none)."""
        if not self.numbers and not self.external_ids:
            return ""
        return json.dumps({"numbers": list(self.numbers), "ids": list(self.external_ids)})

    @classmethod
    def read(cls, text: str) -> NotTwins:
        """The answers a `not_twins` column holds; none for '' or anything unreadable."""
        try:
            raw = json.loads(text) if text else {}
            numbers = tuple(int(n) for n in raw.get("numbers", ()))
            ids = tuple(str(i) for i in raw.get("ids", ()) if i)
        except (ValueError, TypeError, AttributeError):
            return cls()
        return cls(numbers, ids)


TwinCheck = Callable[[Sequence[NewMatch]], Awaitable[Mapping[str, Twin]]]
"""Given matches about to be sent for the first time, the twin of each that looks like a match the service got
lately from another seat, by external id (those with none are left out). May raise the client's errors."""
