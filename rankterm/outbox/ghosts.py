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

Sending (the `GhostSending` part of `OutboxSender`), in the order of submission, so a ghost goes before the
matches that follow it:

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

The sender never sends a match that names a local id (`local_ids`): such a match waits for its ghost.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import httpx

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
from rankterm.wire.ids import is_local_id, new_local_id
from rankterm.wire.models import NewMatch, Player
from rankterm.wire.text import display_safe

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.outbox.outbox import Outbox, SendReport, State

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
        if not self.taken:
            return ""
        label = display_safe(GHOST_MARK + self.name)
        if self.spare_id:
            return (
                f"{label} was made at the same moment by another seat: their matches go to that one"
                f" (this seat's {label}, {self.spare_id}, is left with none)."
            )
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


class GhostSending:
    """The ghost half of `OutboxSender`: settling a ghost in doubt, sending one, and the local-id guard."""

    outbox: Outbox
    client: RankingClient

    if TYPE_CHECKING:

        def _rejected(self, external_id: str, errors: Sequence[ErrorItem], report: SendReport) -> None: ...

    async def _settle_ghost(
        self, entry: GhostEntry, report: SendReport, players: list[Player] | None
    ) -> tuple[bool, list[Player]]:
        """Whether the service already has this ghost in doubt (then settle it as sent); the players read.

        A ghost of a kind (`seen` known) found among several made since is the smallest id, as every seat
        takes; it is marked taken when this seat cannot tell it made it (more than one is new)."""
        if players is None:
            players = await self.client.players_now(refresh=True)
        found = made_since(players, entry.name, entry.known_before)
        if found is not None:
            several = entry.seen is not None and len(new_since(players, entry.name, entry.seen or ())) > 1
            self._ghost_made(entry, found, report, taken=several)
        return found is not None, players

    async def _send_ghost(self, entry: GhostEntry, report: SendReport) -> None:
        """POST one ghost (written in doubt first) and settle it from the answer; a ghost of a kind that
        another seat has made since is taken instead, before or after the POST."""
        known = entry.known_before
        if entry.attempts == 0 or not entry.in_doubt:
            players = await self.client.players_now(refresh=entry.seen is not None)
            if entry.seen is not None:
                made_elsewhere = made_since(players, entry.name, entry.seen)
                if made_elsewhere is not None:
                    self._ghost_made(entry, made_elsewhere, report, taken=True)
                    return
            known = same_named(players, entry.name)
        self.outbox.mark_ghost_in_doubt(entry.local_id, known)
        try:
            player = await self.client.create_player(entry.name)
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
            self._ghost_made(entry, player, report)
            return
        kept = await self._one_of_a_kind(entry, player)
        if kept is player:
            self._ghost_made(entry, player, report)
        else:
            self._ghost_made(entry, kept, report, taken=True, spare_id=str(player.id))

    async def _one_of_a_kind(self, entry: GhostEntry, made: Player) -> Player:
        """After this seat made `made`: the ghost of the name every seat takes, read again from the service
        (another seat may have made one at the same moment): the smallest id among those made since `seen`.
        `made` when the service cannot be read now (it was made; the matches go to it)."""
        try:
            players = await self.client.players_now(refresh=True)
        except RanktermError:
            return made
        chosen = made_since([*players, made], entry.name, entry.seen or ())
        return made if chosen is None or str(chosen.id) == str(made.id) else chosen

    def _ghost_made(
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
        self.client.drop_player(entry.local_id)
        if not any(str(p.id) == str(player.id) for p in self.client.cached_players()):
            self.client.hold_player(player)
        report.ghosts[entry.local_id] = player

    def _sendable(self, matches: Sequence[Any], report: SendReport) -> list[Any]:
        """The guard: the entries of `matches` that name no local id. The others are never sent: a match whose
        ghost is queued waits (pending); one naming a local id no ghost entry holds is rejected."""
        out = []
        for entry in matches:
            missing = [lid for lid in local_ids(entry.match) if self.outbox.get_ghost(lid) is None]
            if missing:
                item = ErrorItem(
                    UNKNOWN_LOCAL, f"A player of this match was never made: {', '.join(missing)}."
                )
                self._rejected(entry.external_id, [item], report)
            elif local_ids(entry.match):
                report.waiting += 1
            else:
                out.append(entry)
        return out


def _outbox_module() -> Any:
    """rankterm.outbox.outbox, which imports this module (its State and error columns are its own)."""
    from rankterm.outbox import outbox

    return outbox


class GhostQueue:
    """The ghost half of `Outbox`: ghost entries stored beside the matches, in the same order and scope."""

    _db: sqlite3.Connection
    scope: str
    clock: Callable[[], float]

    if TYPE_CHECKING:

        def _set(self, external_ids: Iterable[str], **values: object) -> None: ...
        def mark_rejected(self, external_id: str, errors: Sequence[ErrorItem]) -> None: ...

    _GHOST_COLUMNS = "external_id, body, state, in_doubt, attempts, errors, created_at, updated_at, match_id"

    def _ghost(self, row: tuple) -> GhostEntry:
        ob = _outbox_module()
        local_id, body, state, in_doubt, attempts, errors, created, updated, player_id = row
        read = GhostBody.read(body)
        return GhostEntry(
            local_id,
            read.name,
            ob.State(state),
            bool(in_doubt),
            attempts,
            ob._load_errors(errors),
            created,
            updated,
            player_id,
            read.known_before,
            read.seen,
            read.taken,
            read.spare_id,
        )

    def _body(self, local_id: str) -> GhostBody | None:
        row = self._db.execute(
            "SELECT body FROM entries WHERE scope=? AND kind=? AND external_id=?",
            (self.scope, GHOST, local_id),
        ).fetchone()
        return GhostBody.read(row[0]) if row else None

    def add_ghost(self, name: str, known: Iterable[Player] | None = None) -> GhostEntry:
        """Queue a ghost player called `name` (trimmed; ValueError when empty or too long) under a new local
        id, after everything already in the outbox; on return it is on disk.

        `known`: the players the seat knew as it was made (the mirror's, `cached_players()`). A ghost of
        exactly this name among them is somebody else the user chose not to be; one found when it is sent
        that was not among them was made since by another seat, and is taken instead of making a second.
        None: nothing is taken (the entry makes its own ghost)."""
        name = check_name(name)
        seen = None if known is None else same_named(known, name)
        local_id, now = new_local_id(), self.clock()
        self._db.execute(
            "INSERT INTO entries (scope, kind, external_id, body, state, created_at, updated_at)"
            " VALUES (?,?,?,?,?,?,?)",
            (self.scope, GHOST, local_id, GhostBody(name, seen=seen).text(), "pending", now, now),
        )
        entry = self.get_ghost(local_id)
        if entry is None:
            raise LookupError(f"outbox ghost {local_id} vanished")
        return entry

    def get_ghost(self, local_id: str) -> GhostEntry | None:
        row = self._db.execute(
            f"SELECT {self._GHOST_COLUMNS} FROM entries WHERE scope=? AND kind=? AND external_id=?",
            (self.scope, GHOST, local_id),
        ).fetchone()
        return self._ghost(row) if row else None

    def ghosts(self, *states: State) -> list[GhostEntry]:
        """Ghost entries in submission order, optionally only those in `states`."""
        sql = f"SELECT {self._GHOST_COLUMNS} FROM entries WHERE scope=? AND kind=?"
        args: list[Any] = [self.scope, GHOST]
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args += [s.value for s in states]
        return [self._ghost(r) for r in self._db.execute(sql + " ORDER BY seq", args)]

    def mark_ghost_in_doubt(self, local_id: str, known_before: Iterable[str]) -> None:
        """Written (and synced) before the POST: the ghost may be made from now on."""
        current = self._body(local_id)
        if current is None:
            raise LookupError(f"no outbox ghost {local_id}")
        body = replace(current, known_before=tuple(known_before))
        self._db.execute(
            "UPDATE entries SET in_doubt=1, attempts=attempts+1, body=?, updated_at=?"
            " WHERE scope=? AND kind=? AND external_id=?",
            (body.text(), self.clock(), self.scope, GHOST, local_id),
        )

    def mark_ghost_pending(self, local_id: str) -> None:
        """The service clearly made nothing (an auth or quota refusal): no longer in doubt."""
        self._set([local_id], in_doubt=0)

    def mark_ghost_rejected(self, local_id: str, errors: Sequence[ErrorItem]) -> None:
        """The service refused to make it; its errors are kept as they came. Matches naming it stay pending."""
        items = list(errors) or [ErrorItem("", "rejected without a reason")]
        self._set([local_id], state="rejected", in_doubt=0, errors=_outbox_module()._dump_errors(items))

    def mark_ghost_sent(
        self, local_id: str, player_id: str, *, taken: bool = False, spare_id: str = ""
    ) -> list[str]:
        """Settle a ghost as made with the service's `player_id` (`taken`: another seat's ghost of the name;
        `spare_id`: this seat's own, made too and left without matches), and put that id in the place of its
        local id in every unsent match of the outbox, in one transaction. Returns those matches' external
        ids."""
        now, changed = self.clock(), []
        current = self._body(local_id)  # None: discarded while its send was under way (no row to update)
        body = replace(current, taken=taken, spare_id=spare_id).text() if current else ""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "UPDATE entries SET state='sent', in_doubt=0, errors='[]', match_id=?, body=?, updated_at=?"
                " WHERE scope=? AND kind=? AND external_id=?",
                (player_id, body, now, self.scope, GHOST, local_id),
            )
            rows = self._db.execute(
                "SELECT external_id, body FROM entries WHERE scope=? AND kind!=? AND state!='sent'"
                " AND instr(body, ?) > 0",
                (self.scope, GHOST, local_id),
            ).fetchall()
            for external_id, body in rows:
                match = NewMatch.model_validate(json.loads(body))
                if local_id not in local_ids(match):
                    continue
                fixed = with_ids(match, {local_id: player_id})
                self._db.execute(
                    "UPDATE entries SET body=?, updated_at=? WHERE scope=? AND external_id=?",
                    (json.dumps(fixed.to_wire()), now, self.scope, external_id),
                )
                changed.append(external_id)
        return changed

    def rename_ghost(self, local_id: str, name: str, known: Iterable[Player] | None = None) -> GhostEntry:
        """Give a rejected (or unsent, not in doubt) ghost another name and make it pending again (`known`:
        as `add_ghost` takes it, for the new name)."""
        entry = self.get_ghost(local_id)
        if entry is None or entry.state.value == "sent" or entry.in_doubt:
            raise ValueError("only a rejected or unsent ghost player can be renamed")
        name = check_name(name)
        seen = None if known is None else same_named(known, name)
        self._set(
            [local_id], body=GhostBody(name, seen=seen).text(), state="pending", errors="[]", attempts=0
        )
        renamed = self.get_ghost(local_id)
        assert renamed is not None
        return renamed

    def discard_ghost(self, local_id: str) -> list[str]:
        """Forget a ghost entry that is not in doubt (one in doubt may already be made). The unsent matches
        that name it can never be sent as they are: they become rejected (`GHOST_DISCARDED`), to be given
        another player. Returns their external ids."""
        entry = self.get_ghost(local_id)
        if entry is None:
            return []
        if entry.in_doubt:
            raise ValueError("this ghost player may already be made; send it again to find out")
        naming = [] if entry.state.value == "sent" else self.naming(local_id)
        item = ErrorItem(
            GHOST_DISCARDED,
            f"The ghost player {GHOST_MARK}{entry.name} was discarded: choose another player.",
        )
        for external_id in naming:
            self.mark_rejected(external_id, [item])
        self._db.execute(
            "DELETE FROM entries WHERE scope=? AND kind=? AND external_id=?", (self.scope, GHOST, local_id)
        )
        return naming

    def naming(self, local_id: str) -> list[str]:
        """External ids of the unsent matches that name the ghost `local_id`, in submission order."""
        rows = self._db.execute(
            "SELECT external_id, body FROM entries WHERE scope=? AND kind!=? AND state!='sent'"
            " AND instr(body, ?) > 0 ORDER BY seq",
            (self.scope, GHOST, local_id),
        ).fetchall()
        return [ext for ext, body in rows if local_id in local_ids(NewMatch.model_validate(json.loads(body)))]

    def waiting_for(self, match: NewMatch) -> list[GhostEntry]:
        """The queued ghosts `match` names (it is sent once they all are)."""
        return [g for g in map(self.get_ghost, local_ids(match)) if g is not None]

    def resolve(self, match: NewMatch) -> NewMatch:
        """`match` with the local id of each ghost already made replaced by the service's id."""
        made = {g.local_id: g.player_id for g in map(self.get_ghost, local_ids(match)) if g and g.player_id}
        return with_ids(match, made) if made else match
