"""The outbox: every match the user submits is on disk before any request leaves, and reaches the service once.

`Outbox` is the queue of one service scope (base URL and key): matches (`Entry`) and the ghost players they
name (`GhostEntry`), in the order submitted, in the file `file.OUTBOX` opens. `add`, `add_many` and `put`
store; `entries()`, `ghosts()` and `queue()` read; the `mark_*` methods settle. `OutboxSender`
(rankterm/outbox/sender.py, named here too) sends them. See docs/design/local-files.md.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rankterm.localdb import Unavailable
from rankterm.outbox.damage import Recovered, carry_over, readable_rows, unavailable
from rankterm.outbox.entry import Entry
from rankterm.outbox.file import OUTBOX, State, dump_errors, load_errors
from rankterm.outbox.ghost_names import GHOST_MARK, same_named
from rankterm.outbox.ghosts import (
    GHOST,
    GHOST_DISCARDED,
    GhostBody,
    GhostEntry,
    check_name,
    local_ids,
    with_ids,
)
from rankterm.outbox.lock import OpenMark, SendLock
from rankterm.outbox.outcome import ALREADY_ACCEPTED
from rankterm.outbox.report import SendReport
from rankterm.outbox.sender import OutboxSender, next_hour
from rankterm.outbox.twins import CHECKED, UNCHECKED, NotTwins, Twin
from rankterm.wire.errors import ErrorItem, RanktermError
from rankterm.wire.ids import new_external_id, new_local_id, service_scope
from rankterm.wire.models import NewMatch, Player

__all__ = [
    "ALREADY_ACCEPTED",
    "Entry",
    "GhostEntry",
    "Outbox",
    "OutboxSender",
    "SendReport",
    "State",
    "new_external_id",
    "next_hour",
    "service_scope",
]

log = logging.getLogger(__name__)

NOT_THIS_SEATS = "queued at another seat: only that seat, or the host, can change or discard it"
"""Why a guest seat may not edit, rename or discard an entry (`Outbox.may_change`)."""

NAMED_AT_OTHER_SEATS = (
    "matches queued at another seat name this ghost player: only the host can rename or discard it now"
)
"""Why a guest seat may not rename or discard its own ghost: it would change another seat's unsent matches
(whom they name, or send them back rejected)."""

NO_REASON = ErrorItem("", "rejected without a reason")
"""What a refusal that gave no error is kept as."""


def _standing(row: tuple) -> tuple[State, bool, int, tuple[ErrorItem, ...], float, float]:
    """Where an entry of `Outbox._COLUMNS` stands, read: state, in doubt, attempts, errors, created, updated."""
    _, _, state, in_doubt, attempts, errors, created, updated, *_ = row
    return State(state), bool(in_doubt), attempts, load_errors(errors), created, updated


NEW_ENTRY = "(scope, external_id, body, state, created_at, updated_at, seat, origin) VALUES (?,?,?,?,?,?,?,?)"
"""The columns of a new entry, as `Outbox._new_row` gives them."""


class Outbox:
    """Durable queue of new matches (and the ghost players they name) for one service scope (base URL + key)."""

    def __init__(
        self, path: Path | str | None, scope: str, *, clock: Callable[[], float] = time.time, seat: str = ""
    ) -> None:
        """`path` None keeps the outbox in memory (the demo: its group lives only as long as the process).
        `seat`: the guest seat this outbox writes for, '' for the host's own app (see `may_change`)."""
        self.path = Path(path) if path is not None else None
        self.scope = scope
        self.clock = clock
        self.seat = seat
        """Every entry this object queues is marked with it."""
        self.origin = f"{os.getpid()}-{secrets.token_hex(4)}"
        """This open outbox (this process's): every entry it queues is marked with it too, so that two
        processes of one seat (two apps of a profile on one machine, both seat '') are told apart."""
        self._told_held: set[str] = set()  # held matches this object's user was told of (`newly_held`)
        self.problem: str | None = None
        """One sentence when the file was found damaged, moved aside and a clean one started (what of it
        was carried over: rankterm/outbox/damage.py)."""
        self.send_lock = SendLock(self.path.with_name(self.path.name + ".lock") if self.path else None)
        """Held by whichever process (of all that open the file) sends, settles or makes ghosts now."""
        self._db = self._open(self.path)
        self._open_mark = OpenMark(self.path, self.origin)
        self._data_version: int | None = None

    def _open(self, path: Path | None) -> sqlite3.Connection:
        """The file as it is (migrated); a damaged one moved aside and its readable entries carried into a
        clean one; a data dir that cannot be written raises `OutboxUnavailable` (one sentence)."""
        try:
            opened = OUTBOX.open(path, clock=self.clock)
        except Unavailable as exc:
            raise unavailable(exc.path, exc.detail) from exc
        if opened.moved is None or path is None:
            return opened.db
        moved = opened.moved
        try:
            rows, lost = readable_rows(moved.aside)
            carry_over(opened.db, rows)
        except sqlite3.Error as exc:
            opened.db.close()
            raise unavailable(path, str(exc)) from exc
        self.problem = Recovered(path, moved.aside, moved.why, len(rows), lost).sentence
        log.warning("%s", self.problem)
        return opened.db

    def close(self) -> None:
        self._db.close()
        self._open_mark.close()

    def recorded_here(self) -> Entry | None:
        """The newest match this seat put in the outbox: this open outbox's own, else one put there by an
        outbox of this seat that has been closed since (an earlier session's; a file older than these marks
        counts as one). Another process of this seat still running (a second app of the profile on this
        machine) is not this seat: its matches are not given. None when there is none."""
        for entry in reversed(self.entries()):
            if entry.seat != self.seat:
                continue
            if entry.origin == self.origin or not self._open_mark.is_open(entry.origin):
                return entry
        return None

    def changed_elsewhere(self) -> bool:
        """Whether another connection (another seat's process, or another outbox object) has written the file
        since this was last asked; the first call says True."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        changed, self._data_version = version != self._data_version, version
        return changed

    _COLUMNS = (
        "external_id, body, state, in_doubt, attempts, errors, created_at, updated_at, match_id, twin, seat,"
        " not_twins, origin"
    )
    """An entry's columns, a match's or a ghost's: its id, its body, where it stands, the service's id, the seat
    that queued it."""

    def _row(self, row: tuple) -> Entry:
        external_id, body, *_, match_id, twin, seat, not_twins, origin = row
        match = NewMatch.model_validate(json.loads(body))
        return Entry(
            external_id, match, *_standing(row), match_id, twin, seat, NotTwins.read(not_twins), origin, body
        )

    def may_change(self, entry: Entry | GhostEntry) -> bool:
        """Whether this outbox's user may edit, rename, discard or send anyway `entry`: the host's own app any
        entry, a guest seat only those it queued itself. A guest records and reads: another seat's unsent
        match is not a guest's to lose or to change (retrying it as it is, is)."""
        return not self.seat or entry.seat == self.seat

    def _check_change(self, entry: Entry | GhostEntry) -> None:
        if not self.may_change(entry):
            raise ValueError(NOT_THIS_SEATS)

    def add(self, match: NewMatch) -> Entry:
        """Store a match (giving it an external id if it has none); on return it is on disk. A ghost it names
        by local id that the service has made meanwhile is named by the service's id."""
        external_id, row = self._new_row(self.resolve(match), self.clock())
        with self._db:
            self._db.execute(f"INSERT INTO entries {NEW_ENTRY}", row)
        return self._must_get(external_id)

    def _new_row(self, match: NewMatch, now: float) -> tuple[str, tuple]:
        """The external id (`match`'s, else a new one) and the `entries` row of `match` as a new pending
        entry of this seat and this app."""
        external_id = match.external_id or new_external_id()
        if external_id != match.external_id:
            match = match.model_copy(update={"external_id": external_id})
        body = json.dumps(match.to_wire())
        return external_id, (self.scope, external_id, body, State.PENDING, now, now, self.seat, self.origin)

    def add_many(self, matches: Iterable[NewMatch]) -> list[Entry]:
        """Store many matches in one transaction (one sync to disk, not one a match): on return every one is
        on disk, as after `add`. Each gets an external id if it has none; a match whose external id the
        outbox already holds (or an earlier match of `matches` has) is not added again: its place in the
        result is the entry already there. Gives one entry a match, in order."""
        made: dict[str, str] | None = None  # ghosts the service has made: local id -> its id (read once)
        rows: list[tuple] = []
        ids: list[str] = []
        now = self.clock()
        for match in matches:
            if local_ids(match):
                if made is None:
                    made = {g.local_id: g.player_id for g in self.ghosts() if g.player_id}
                match = with_ids(match, made)
            external_id, row = self._new_row(match, now)
            ids.append(external_id)
            rows.append(row)
        if rows:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(f"INSERT OR IGNORE INTO entries {NEW_ENTRY}", rows)
        return self._get_many(ids)

    def put(self, matches: Sequence[NewMatch], *, checked: bool = False) -> list[Entry]:
        """Submit `matches`: each replaces the rejected or unsent entry with its external id (a fixed match
        sent again), the others are added (in one write, as `add_many`); one entry a match, in order. A match
        whose external id is already sent or on its way refuses the lot before anything is written.
        `checked`: the caller looked for a twin of each against the group's fresh matches (the form, online),
        so the sender does not ask again."""
        existing = [self.get(m.external_id) if m.external_id else None for m in matches]
        for match in matches:
            if match.external_id and self.get_ghost(match.external_id) is not None:
                raise RanktermError(
                    f"The external id {match.external_id} is a ghost player's in the outbox: use a new external id."
                )
        for match, entry in zip(matches, existing, strict=True):
            if entry is not None and (entry.state is State.SENT or entry.in_doubt):
                raise RanktermError(
                    f"The match {match.external_id} is already sent or on its way: use a new external id."
                )
            if entry is not None and not self.may_change(entry):
                raise RanktermError(
                    f"The match {match.external_id} is queued at another seat: use a new external id."
                )
        edited = [
            self.edit(entry.external_id, match) if entry is not None else None
            for match, entry in zip(matches, existing, strict=True)
        ]
        added = iter(self.add_many(m for m, e in zip(matches, existing, strict=True) if e is None))
        entries = [entry if entry is not None else next(added) for entry in edited]
        if checked:
            self.mark_twin(e.external_id for e in entries)
        return [self._must_get(e.external_id) for e in entries] if checked else entries

    def mark_twin(self, external_ids: Iterable[str], twin: Twin | None = None) -> None:
        """Record the twin check of these entries: `twin` None, none found (or the answer was "send anyway"):
        they are sent; else they are held, looking like `twin`, until answered."""
        value = CHECKED if twin is None else twin.text()
        # A match held reached the check only once the service said it holds none of it (a match in doubt is
        # asked first): it is in doubt no more, so it can be discarded.
        doubt = "" if twin is None else ", in_doubt=0"
        self._write(
            f"UPDATE entries SET twin=?{doubt}, updated_at=? WHERE scope=? AND external_id=?",
            [(value, self.clock(), self.scope, ext) for ext in external_ids],
        )

    def not_twin(self, external_id: str, *, number: int | None = None, other: str = "") -> None:
        """The person said entry `external_id` is not recorded match `number`, nor the match `other` (an external
        id: one waiting in the outbox, or another of the same batch): its twin check never holds it for them."""
        entry = self.get(external_id)
        if entry is None:
            return
        answers = entry.not_twins.adding(number, other)
        if answers != entry.not_twins:
            self._set([external_id], not_twins=answers.text())

    def check_again(self, external_ids: Iterable[str]) -> None:
        """These entries are checked for a twin when they are next sent: a check made as they were recorded no
        longer stands once they wait (another seat may record the same match meanwhile)."""
        self._write(
            "UPDATE entries SET twin=?, updated_at=? WHERE scope=? AND external_id=?",
            [(UNCHECKED, self.clock(), self.scope, ext) for ext in external_ids],
        )

    def held(self) -> list[Entry]:
        """The matches held because they look like one recorded lately from another seat, in order."""
        return [e for e in self.entries(State.PENDING) if e.held]

    def newly_held(self, held_now: Iterable[str] = ()) -> list[str]:
        """The held matches this outbox's user has not been told of yet and may answer (send anyway or
        discard, `may_change`): of `held_now` (what a send of this process held) and of those another seat's
        send held. Another seat's held match is for that seat (or the host) to answer, so a guest seat is not
        asked about it; and the seat that queued it is told on its next send, whichever seat held it."""
        held_now = set(held_now)
        found = [
            e.external_id
            for e in self.entries(State.PENDING)
            if (e.held or e.external_id in held_now)
            and e.external_id not in self._told_held
            and self.may_change(e)
        ]
        self._told_held.update(found)
        return found

    def _get_many(self, external_ids: Sequence[str]) -> list[Entry]:
        """The match entries under `external_ids`, in that order (each is there: just written)."""
        found: dict[str, Entry] = {}
        unique = list(dict.fromkeys(external_ids))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            rows = self._db.execute(
                f"SELECT {self._COLUMNS} FROM entries WHERE scope=? AND kind!=?"
                f" AND external_id IN ({','.join('?' * len(part))})",
                (self.scope, GHOST, *part),
            )
            found.update((row[0], self._row(row)) for row in rows)
        missing = [ext for ext in unique if ext not in found]
        if missing:
            raise LookupError(f"outbox entry {missing[0]} vanished (or is a ghost's id)")
        return [found[ext] for ext in external_ids]

    def get(self, external_id: str) -> Entry | None:
        rows = self._in_order(self._COLUMNS, "kind!=? AND external_id=?", [GHOST, external_id], ())
        return self._row(rows[0]) if rows else None

    def _must_get(self, external_id: str) -> Entry:
        """The entry just written under `external_id` (it is there: the write and this read share a lock)."""
        entry = self.get(external_id)
        if entry is None:
            raise LookupError(f"outbox entry {external_id} vanished")
        return entry

    def entries(self, *states: State) -> list[Entry]:
        """Match entries in submission order, optionally only those in `states` (ghosts: `ghosts()`)."""
        return [self._row(r) for r in self._in_order(self._COLUMNS, "kind!=?", [GHOST], states)]

    def queue(self, *states: State) -> list[Entry | GhostEntry]:
        """Matches and ghosts together, in submission order, optionally only those in `states`."""
        rows = self._in_order(f"kind, {self._COLUMNS}", "1", [], states)
        return [self._ghost(r[1:]) if r[0] == GHOST else self._row(r[1:]) for r in rows]

    def _in_order(self, columns: str, where: str, args: list[Any], states: tuple[State, ...]) -> list[Any]:
        """`columns` of this scope's entries where `where` holds (with `args`), in submission order; only those
        in `states` when any are given."""
        sql = f"SELECT {columns} FROM entries WHERE scope=? AND {where}"
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
        return self._db.execute(
            sql + " ORDER BY seq", [self.scope, *args, *(s.value for s in states)]
        ).fetchall()

    def counts(self) -> dict[State, int]:
        """How many entries (matches and ghosts) are in each state."""
        out = dict.fromkeys(State, 0)
        for state, n in self._db.execute(
            "SELECT state, COUNT(*) FROM entries WHERE scope=? GROUP BY state", (self.scope,)
        ):
            out[State(state)] = n
        return out

    def _set(self, external_ids: Iterable[str], **values: object) -> None:
        values["updated_at"] = self.clock()
        assignments = ", ".join(f"{k}=?" for k in values)
        self._write(
            f"UPDATE entries SET {assignments} WHERE scope=? AND external_id=?",
            [(*values.values(), self.scope, ext) for ext in external_ids],
        )

    def _write(self, sql: str, rows: Sequence[tuple]) -> None:
        """Run `sql` for each of `rows` in one transaction: one sync to disk for them all (the connection
        commits each statement on its own otherwise, executemany's too)."""
        if not rows:
            return
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(sql, rows)

    def mark_in_doubt(self, external_ids: Iterable[str]) -> None:
        """Written (and synced, once for them all) before the POST: these may be recorded from now on."""
        now = self.clock()
        self._write(
            "UPDATE entries SET in_doubt=1, attempts=attempts+1, updated_at=? WHERE scope=? AND external_id=?",
            [(now, self.scope, ext) for ext in external_ids],
        )

    def take_for_sending(self, entries: Sequence[Entry]) -> list[Entry]:
        """Mark in doubt, in one transaction, those of `entries` the file still holds as they were read
        (pending, in doubt or not as then, the same match), before their POST; gives them, in order. One fixed or
        discarded meanwhile (by another seat of the profile, while the sender asked the service about twins)
        is left: its fix goes with the next send, and nothing goes of a discarded one."""
        if not entries:
            return []
        now, taken = self.clock(), []
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for entry in entries:
                changed = self._db.execute(
                    "UPDATE entries SET in_doubt=1, attempts=attempts+1, updated_at=?"
                    " WHERE scope=? AND kind!=? AND external_id=? AND state=? AND in_doubt=? AND body=?",
                    (
                        now,
                        self.scope,
                        GHOST,
                        entry.external_id,
                        State.PENDING.value,
                        entry.in_doubt,
                        entry.body,
                    ),
                ).rowcount
                if changed:
                    taken.append(entry)
        return taken

    def mark_sent(self, external_ids: Iterable[str], match_id: str = "") -> None:
        """Settle entries as recorded by the service (`match_id`: its id for them, when one entry)."""
        self._set(external_ids, state=State.SENT.value, in_doubt=0, errors="[]", match_id=match_id)

    def mark_sent_each(self, match_ids: Mapping[str, str]) -> None:
        """Settle entries as recorded, each with the service's id for it (external id -> id, empty when it
        did not say), in one write."""
        now = self.clock()
        self._write(
            "UPDATE entries SET state=?, in_doubt=0, errors='[]', match_id=?, updated_at=?"
            " WHERE scope=? AND external_id=?",
            [(State.SENT.value, mid, now, self.scope, ext) for ext, mid in match_ids.items()],
        )

    def mark_rejected(self, external_id: str, errors: Sequence[ErrorItem]) -> tuple[ErrorItem, ...]:
        """Settle an entry as refused, keeping the service's errors (code and message) as they came; gives
        the errors kept."""
        items = tuple(errors) or (NO_REASON,)
        self._set([external_id], state=State.REJECTED.value, in_doubt=0, errors=dump_errors(items))
        return items

    def edit(self, external_id: str, match: NewMatch) -> Entry:
        """Replace a rejected (or pending, not in doubt) entry's match and make it pending again.

        When `match` carries another external id (a fix of an M003: the old id was another match's), the
        entry takes it, keeping its place in the queue; an id another entry of this outbox holds is refused.
        """
        entry = self.get(external_id)
        if entry is None or entry.state is State.SENT or entry.in_doubt:
            raise ValueError("only a rejected or unsent match can be edited")
        self._check_change(entry)
        new_id = match.external_id or external_id
        if new_id != external_id and (self.get(new_id) is not None or self.get_ghost(new_id) is not None):
            raise ValueError(f"the external id {new_id} is already in the outbox")
        match = self.resolve(match).model_copy(update={"external_id": new_id})
        with self._db:
            changed = self._db.execute(
                "UPDATE entries SET body=?, state=?, errors='[]', attempts=0, external_id=?, updated_at=?"
                " WHERE scope=? AND kind!=? AND external_id=? AND state!=? AND in_doubt=0",
                (
                    json.dumps(match.to_wire()),
                    State.PENDING.value,
                    new_id,
                    self.clock(),
                    self.scope,
                    GHOST,
                    external_id,
                    State.SENT.value,
                ),
            ).rowcount
        if not changed:  # a send took it since it was read
            raise ValueError("only a rejected or unsent match can be edited")
        return self._must_get(new_id)

    def retry(self, external_id: str) -> None:
        entry = self.get(external_id)
        if entry is not None and entry.state is State.REJECTED:
            self._set([external_id], state=State.PENDING.value, errors="[]", attempts=0)

    def discard(self, external_id: str) -> None:
        """Forget an entry that is not in doubt (a match in doubt may already be recorded), if this outbox's user
        may (`may_change`)."""
        entry = self.get(external_id)
        if entry is not None and entry.in_doubt:
            raise ValueError("this match may already be recorded; send it again to find out")
        if entry is None:
            return
        self._check_change(entry)
        with self._db:
            gone = self._db.execute(
                "DELETE FROM entries WHERE scope=? AND kind!=? AND external_id=? AND in_doubt=0",
                (self.scope, GHOST, external_id),
            ).rowcount
        if not gone and self.get(external_id) is not None:  # a send took it since it was read
            raise ValueError("this match may already be recorded; send it again to find out")

    # ------------------------------------------------------------------ ghost players

    def _ghost(self, row: tuple) -> GhostEntry:
        local_id, body, *_, player_id, _twin, seat, _not_twins, _origin = row
        read = GhostBody.read(body)
        return GhostEntry(
            local_id,
            read.name,
            *_standing(row),
            player_id,
            read.known_before,
            read.seen,
            read.taken,
            read.spare_id,
            seat,
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
            "INSERT INTO entries (scope, kind, external_id, body, state, created_at, updated_at, seat, origin)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            (
                self.scope,
                GHOST,
                local_id,
                GhostBody(name, seen=seen).text(),
                State.PENDING,
                now,
                now,
                self.seat,
                self.origin,
            ),
        )
        entry = self.get_ghost(local_id)
        if entry is None:
            raise LookupError(f"outbox ghost {local_id} vanished")
        return entry

    def get_ghost(self, local_id: str) -> GhostEntry | None:
        rows = self._in_order(self._COLUMNS, "kind=? AND external_id=?", [GHOST, local_id], ())
        return self._ghost(rows[0]) if rows else None

    def ghosts(self, *states: State) -> list[GhostEntry]:
        """Ghost entries in submission order, optionally only those in `states`."""
        return [self._ghost(r) for r in self._in_order(self._COLUMNS, "kind=?", [GHOST], states)]

    def mark_ghost_in_doubt(self, local_id: str, known_before: Iterable[str], *, name: str) -> bool:
        """Written (and synced) before the POST: the ghost may be made from now on. Only while the file still
        holds it pending under `name` (as the sender read it); False, and nothing written, when it was renamed
        or discarded meanwhile (another seat of the profile): it is not sent now."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute(
                "SELECT body, state FROM entries WHERE scope=? AND kind=? AND external_id=?",
                (self.scope, GHOST, local_id),
            ).fetchone()
            current = GhostBody.read(row[0]) if row else None
            if current is None or row[1] != State.PENDING.value or current.name != name:
                return False
            body = replace(current, known_before=tuple(known_before))
            self._db.execute(
                "UPDATE entries SET in_doubt=1, attempts=attempts+1, body=?, updated_at=?"
                " WHERE scope=? AND kind=? AND external_id=?",
                (body.text(), self.clock(), self.scope, GHOST, local_id),
            )
        return True

    def mark_ghost_pending(self, local_id: str) -> None:
        """The service clearly made nothing (an auth or quota refusal): no longer in doubt."""
        self._set([local_id], in_doubt=0)

    def mark_ghost_rejected(self, local_id: str, errors: Sequence[ErrorItem]) -> None:
        """The service refused to make it; its errors are kept as they came. Matches naming it stay pending."""
        items = tuple(errors) or (NO_REASON,)
        self._set([local_id], state=State.REJECTED.value, in_doubt=0, errors=dump_errors(items))

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
        as `add_ghost` takes it, for the new name). A guest seat may not rename one that another seat's unsent
        matches name (`NAMED_AT_OTHER_SEATS`): those matches would then name another person."""
        entry = self.get_ghost(local_id)
        if entry is None or entry.state is State.SENT or entry.in_doubt:
            raise ValueError("only a rejected or unsent ghost player can be renamed")
        self._check_change(entry)
        self._check_named_here(local_id)
        name = check_name(name)
        seen = None if known is None else same_named(known, name)
        self._set(
            [local_id],
            body=GhostBody(name, seen=seen).text(),
            state=State.PENDING.value,
            errors="[]",
            attempts=0,
        )
        renamed = self.get_ghost(local_id)
        assert renamed is not None
        return renamed

    def retry_ghost(self, local_id: str) -> None:
        """Make a rejected ghost pending again as it is (its name unchanged): any seat may, as `retry`."""
        entry = self.get_ghost(local_id)
        if entry is not None and entry.state is State.REJECTED:
            self._set([local_id], state=State.PENDING.value, errors="[]", attempts=0)

    def discard_ghost(self, local_id: str) -> list[str]:
        """Forget a ghost entry that is not in doubt (one in doubt may already be made). The unsent matches
        that name it can never be sent as they are: they become rejected (`GHOST_DISCARDED`), to be given
        another player. Returns their external ids. A guest seat may not discard one that another seat's
        unsent matches name (`NAMED_AT_OTHER_SEATS`): that would change matches not its own."""
        entry = self.get_ghost(local_id)
        if entry is None:
            return []
        if entry.in_doubt:
            raise ValueError("this ghost player may already be made; send it again to find out")
        self._check_change(entry)
        naming = [] if entry.state is State.SENT else self.naming(local_id)
        self._check_named_here(local_id, naming)
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

    def _check_named_here(self, local_id: str, naming: list[str] | None = None) -> None:
        """A guest seat changes its own ghost only while no other seat's unsent match names it (`naming`:
        those matches' external ids, when already read)."""
        if not self.seat:
            return
        named = self.naming(local_id) if naming is None else naming
        if any(e.seat != self.seat for e in map(self.get, named) if e is not None):
            raise ValueError(NAMED_AT_OTHER_SEATS)

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
