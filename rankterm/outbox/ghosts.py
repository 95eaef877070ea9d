"""Ghost players made at the table while the service cannot be reached: queued in the outbox ahead of the
matches that name them, and made on the service exactly once.

A ghost entry (`GhostEntry`) shares the outbox's table, scope and order with the matches (`kind` 'ghost'):
its `external_id` column holds its local id (`ids.new_local_id`: ``local-`` and hex, never a service id),
its body the name, the ids of the group's ghosts of that name the seat knew when it was made (`seen`, from
the mirror: None when the caller did not say) and, once a send has begun, of those that existed before the
POST (`known_before`). Until it is sent, the seat uses a local `Player` (`local_ghost`: ghost 1, display
name ``*name``, the local id), which the mirror holds, so the match form can put it in a faction.

**The same new player made on two seats** (a ghost of exactly its name that another seat made meanwhile is
taken instead of making a second: `GhostEntry.taken`, said by `GhostEntry.note`): rankterm/outbox/ghost_names.py.

The queue keeps them (`Outbox.add_ghost` and the other ghost methods of rankterm/outbox/outbox.py). They are
sent (`GhostSender`, the part of `OutboxSender` for ghosts: rankterm/outbox/sender.py) in the order of
submission, so a ghost goes before the matches that follow it:

- before the POST the entry is written *in doubt*, with `known_before` taken from the service's players
  (`players_now`: for a ghost whose `seen` is known, one read of the service, and a ghost of its name made
  since is taken instead; else the mirror when read within `fresh_for` seconds);
- accepted: the entry is sent, with the service's id; that id replaces the local one in every unsent
  match of the outbox that names it (one transaction), and in the mirror;
- refused by the service (R003 a bad name, R002): rejected, with the service's errors as items; the matches
  that name it stay pending (never sent with a local id) until the ghost is renamed and sent, or discarded
  (then they are rejected with `GHOST_DISCARDED`, to be given another player);
- no connection made at all (the network is gone): still pending, not in doubt (nothing left this seat);
- no answer (connection lost, timeout, 5xx): in doubt. Before it is sent again, the service's players are
  read and a ghost of that name that is not in `known_before` is taken as this one (the service shows no
  creation time for a player: "new since the send began" is the closest the data can tell). None: sent again.

The sender never sends a match that names a local id (`local_ids`): such a match waits for its ghost
(`OutboxSender`'s guard).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from rankterm.outbox.file import State
from rankterm.outbox.ghost_names import GHOST_MARK, made_since, new_since, same_named
from rankterm.outbox.outcome import Outcome, OutcomeState
from rankterm.wire.errors import (
    ApiError,
    AuthError,
    ErrorItem,
    Offline,
    QuotaError,
    RanktermError,
    ServiceError,
    UnexpectedResponse,
)
from rankterm.wire.ids import is_local_id
from rankterm.wire.models import NewMatch, Player
from rankterm.wire.text import display_safe

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.outbox.outbox import Outbox
    from rankterm.outbox.sender import SendReport

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


def never_left(exc: Offline) -> bool:
    """True when the request never reached the service: no connection could be made."""
    return isinstance(exc.__cause__, httpx.ConnectError | httpx.ConnectTimeout)


def refused(exc: ApiError) -> bool:
    """True when the service clearly refused to make the ghost (R003, R002…): sending again will not help."""
    return not isinstance(exc, AuthError | QuotaError | ServiceError | UnexpectedResponse)


class GhostSender:
    """The outbox sender's part for ghost entries: settling one in doubt, sending one, and settling one as
    made (its id in the place of the local one, in the outbox and in the mirror)."""

    def __init__(self, outbox: Outbox, group: Group) -> None:
        self.outbox = outbox
        self.group = group

    async def settle(
        self, entry: GhostEntry, report: SendReport, players: list[Player] | None
    ) -> tuple[bool, list[Player]]:
        """Whether the service already has this ghost in doubt (then settle it as sent); the players read
        (`players`, when the caller read them already for another ghost).

        A ghost of a kind (`seen` known) found among several made since is the smallest id, as every seat
        takes; it is marked taken when this seat cannot tell it made it (more than one is new)."""
        if players is None:
            players = await self.group.players_now(refresh=True)
        found = made_since(players, entry.name, entry.known_before)
        if found is not None:
            several = entry.seen is not None and len(new_since(players, entry.name, entry.seen or ())) > 1
            self._made(entry, found, report, taken=several)
        return found is not None, players

    async def send(self, entry: GhostEntry, report: SendReport) -> None:
        """POST one ghost (written in doubt first) and settle it from the answer; a ghost of a kind that
        another seat has made since is taken instead, before or after the POST."""
        known = entry.known_before
        if entry.attempts == 0 or not entry.in_doubt:
            players = await self.group.players_now(refresh=entry.seen is not None)
            if entry.seen is not None:
                made_elsewhere = made_since(players, entry.name, entry.seen)
                if made_elsewhere is not None:
                    self._made(entry, made_elsewhere, report, taken=True)
                    return
            known = same_named(players, entry.name)
        self.outbox.mark_ghost_in_doubt(entry.local_id, known)
        try:
            player = await self.group.create_player(entry.name)
        except (AuthError, QuotaError):
            self.outbox.mark_ghost_pending(entry.local_id)  # refused before anything was made
            raise
        except Offline as exc:
            if never_left(exc):  # no connection: nothing can have been made (and it can be discarded)
                self.outbox.mark_ghost_pending(entry.local_id)
            raise
        except UnexpectedResponse as exc:  # an answer not understood: it may have been made; stays in doubt
            report.failures += 1
            report.stopped = exc
            return
        except ApiError as exc:
            if not refused(exc):  # R001 / 5xx: it may have been made before the failure; stays in doubt
                raise
            self.outbox.mark_ghost_rejected(
                entry.local_id, exc.errors or (ErrorItem(exc.code or "", str(exc)),)
            )
            report.ghost_refusals[entry.local_id] = exc
            return
        if entry.seen is None:
            self._made(entry, player, report)
            return
        kept = await self._one_of_a_kind(entry, player)
        if kept is player:
            self._made(entry, player, report)
        else:
            self._made(entry, kept, report, taken=True, spare_id=str(player.id))

    async def _one_of_a_kind(self, entry: GhostEntry, made: Player) -> Player:
        """After this seat made `made`: the ghost of the name every seat takes, read again from the service
        (another seat may have made one at the same moment): the smallest id among those made since `seen`.
        `made` when the service cannot be read now (it was made; the matches go to it)."""
        try:
            players = await self.group.players_now(refresh=True)
        except RanktermError:
            return made
        chosen = made_since([*players, made], entry.name, entry.seen or ())
        return made if chosen is None or str(chosen.id) == str(made.id) else chosen

    def _made(
        self,
        entry: GhostEntry,
        player: Player,
        report: SendReport,
        *,
        taken: bool = False,
        spare_id: str = "",
    ) -> None:
        """Settle a ghost as made: its id replaces the local one in the outbox (first) and in the mirror."""
        self.outbox.mark_ghost_sent(entry.local_id, str(player.id), taken=taken, spare_id=spare_id)
        self.group.drop_player(entry.local_id)
        if not any(str(p.id) == str(player.id) for p in self.group.cached_players()):
            self.group.hold_player(player)
        report.ghosts[entry.local_id] = player
