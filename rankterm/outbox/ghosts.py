"""Ghost players made at the table while the service cannot be reached: queued in the outbox ahead of the
matches that name them, and made on the service exactly once.

`GhostEntry` is one queued ghost (its local id, name, `seen` and `known_before`), `GhostBody` its stored body,
`local_ghost` the `Player` the seat uses until it is made; `local_ids` and `with_ids` find and replace local ids
in a match. Sending them: rankterm/outbox/ghost_sender.py. See docs/design/local-files.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rankterm.outbox.file import State
from rankterm.outbox.ghost_names import GHOST_MARK
from rankterm.outbox.outcome import Outcome, OutcomeState
from rankterm.wire.errors import (
    ErrorItem,
)
from rankterm.wire.ids import is_local_id
from rankterm.wire.models import NewMatch, Player
from rankterm.wire.text import display_safe

GHOST = "ghost"
"""The `kind` of a ghost entry in the outbox's table (a match's is 'match')."""
GHOST_DISCARDED = "ghost-discarded"
"""The error code (rankterm's own, not the service's) of a match whose queued ghost player was discarded."""
UNKNOWN_LOCAL = "local-player"
"""The error code (rankterm's own) of a match naming a local id that no ghost entry of the outbox holds."""
MAX_NAME = 50
"""The longest ghost name the service takes (its R003 beyond); checked before a ghost is queued."""


@dataclass(frozen=True, slots=True)
class GhostEntry:
    """One ghost player in the outbox."""

    local_id: str
    name: str
    state: State
    in_doubt: bool
    attempts: int
    errors: tuple[ErrorItem, ...]
    """The service's errors when rejected (e.g. R003, a bad name)."""
    created_at: float
    updated_at: float
    player_id: str = ""
    """The service's id for the ghost, once sent."""
    known_before: tuple[str, ...] = ()
    """Ids of the group's ghosts of this name before the first POST (for settling a lost answer)."""
    seen: tuple[str, ...] | None = None
    """Ids of the group's ghosts of this name the seat knew when this one was made; None: not told (then
    the entry always makes its own ghost)."""
    taken: bool = False
    """Sent by taking a ghost of this name another seat had made (`player_id` is that one)."""
    spare_id: str = ""
    """This seat's own ghost of the name, made at the same moment as another seat's and left without
    matches when that one was taken (the service cannot remove a player)."""
    seat: str = ""
    """The guest seat that queued it ('' : the host's own app, or a file older than seats' marks)."""

    @property
    def note(self) -> str:
        """What the user is told of a ghost taken from another seat ("" for any other)."""
        return self.note_from(this_machine=False)

    def note_from(self, this_machine: bool) -> str:
        """What the user is told of a ghost taken instead of made ("" for any other); `this_machine`: the
        one taken was made by another entry of this outbox (another seat of the profile, on this machine),
        not by a seat elsewhere."""
        if not self.taken:
            return ""
        label = display_safe(GHOST_MARK + self.name)
        if self.spare_id:
            return (
                f"{label} was made at the same moment by another seat: their matches go to that one"
                f" (this seat's {label}, {self.spare_id}, is left with none)."
            )
        if this_machine:
            return f"{label} was already made from this machine (another seat of this profile): its matches go to that one."
        return f"{label} was already made by another seat: their matches go to that one."

    @property
    def player(self) -> Player:
        """The player to show and to put in a faction: the service's once sent, else the local one."""
        return local_ghost(self.player_id or self.local_id, self.name)

    def outcome(self, index: int = 0) -> Outcome:
        """Where this ghost stands, as a match's would (`external_id`: the local id; `match_id`: the
        service's player id once made), so a screen shows both kinds of entry with one set of labels."""
        state = OutcomeState.of_entry(self.state.value, self.in_doubt)
        return Outcome(index, state, self.local_id, self.errors, match_id=self.player_id)


def check_name(name: str) -> str:
    """A ghost's name, trimmed as the service trims it; ValueError when empty or too long to be taken."""
    name = name.strip()
    if not name:
        raise ValueError("Type the ghost player's name.")
    if len(name) > MAX_NAME:
        raise ValueError(f"A player's name has at most {MAX_NAME} characters.")
    return name


def local_ghost(player_id: str, name: str) -> Player:
    """A ghost player as the service shows one (display name ``*name``, no username, no icon)."""
    return Player(id=player_id, ghost=True, username="", display_name=GHOST_MARK + name.strip(), icon="")


@dataclass(frozen=True, slots=True)
class GhostBody:
    """A ghost entry's body (JSON in the outbox's `body` column)."""

    name: str
    known_before: tuple[str, ...] = ()
    seen: tuple[str, ...] | None = None
    taken: bool = False
    spare_id: str = ""

    def text(self) -> str:
        """`seen` None, `taken` False and no `spare_id` are left out (an entry kept before they were reads so)."""
        body: dict[str, Any] = {"name": self.name, "known": list(self.known_before)}
        optional = {"seen": self.seen, "taken": self.taken or None, "spare": self.spare_id or None}
        return json.dumps(body | {k: v for k, v in optional.items() if v is not None})

    @classmethod
    def read(cls, text: str) -> GhostBody:
        raw = json.loads(text)
        seen = raw.get("seen")
        known = tuple(str(k) for k in raw.get("known") or ())
        return cls(
            str(raw.get("name", "")),
            known,
            None if seen is None else tuple(str(k) for k in seen),
            bool(raw.get("taken")),
            str(raw.get("spare") or ""),
        )


def local_ids(match: NewMatch) -> list[str]:
    """The local ids (ghosts not made yet) a match names, in order, once each."""
    return list(dict.fromkeys(p for f in match.factions for p in f.players if is_local_id(p)))


def with_ids(match: NewMatch, ids: dict[str, str]) -> NewMatch:
    """`match` with each player id in `ids` replaced by its value (a local id by the service's)."""
    factions = [f.model_copy(update={"players": [ids.get(p, p) for p in f.players]}) for f in match.factions]
    return match.model_copy(update={"factions": factions})
