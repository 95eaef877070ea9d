"""The outbox: every match the user submits is on disk before any request leaves, and reaches the service once.

Entries live in a small SQLite file (WAL, synchronous=FULL, mode 0600), scoped to one service and key so that
matches never go to the wrong group. `add` stores one match, `add_many` many in one transaction (an import:
one sync to disk for the lot, not one a match). `OutboxSender` sends pending entries in order, in batches:

- before a POST, each entry of the batch is marked *in doubt* (written and synced, one write a batch);
- a clear answer settles it (the batch's accepted matches in one write): accepted -> sent; rejected with
  M003 (already accepted) after an earlier attempt -> sent (that attempt landed); other rejections, and
  M003 on a first attempt (the external id is another match's) -> rejected, with the service's errors kept
  as items (code, message), editable and resendable (a fix may take a new external id: the entry follows
  it, so it is never listed twice);
- a network error, timeout or 5xx leaves it in doubt: before it is sent again the sender asks
  `matches/match/exists?id=` and marks it sent if the service has it, so nothing is recorded twice;
- a quota error pauses sending (until `resume_at`, the next hour, or a manual retry); an auth error stops it.

Ghost players made while the service cannot be reached are entries too (`GhostEntry`, kind 'ghost'), in
the same order and scope: a ghost is sent before the matches that follow it, its real id then replaces its
local id in the matches that name it, and a match naming a local id is never sent (rankterm/api/
outbox_ghosts.py). `entries()` and `get()` are the matches alone; `ghosts()` the ghosts; `queue()` both.

Every entry gives its `Outcome` (rankterm/outbox/outcome.py); a send's `SendReport.outcomes` holds those it
settled. The file's schema, and the migration of older files: rankterm/outbox/file.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.outbox.file import _SCHEMA, _dump_errors, _load_errors, _migrate
from rankterm.outbox.ghosts import GHOST, GhostEntry, GhostQueue, GhostSending, local_ids, with_ids
from rankterm.outbox.outcome import ALREADY_ACCEPTED, Outcome, OutcomeState, error_items
from rankterm.wire.errors import (
    AuthError,
    ErrorItem,
    MatchRejected,
    Offline,
    QuotaError,
    RanktermError,
    ServiceError,
    UnexpectedResponse,
)
from rankterm.wire.ids import new_external_id, service_scope
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


class State(StrEnum):
    PENDING = "pending"
    SENT = "sent"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class Entry:
    """One match in the outbox."""

    external_id: str
    match: NewMatch
    state: State
    in_doubt: bool
    attempts: int
    errors: tuple[ErrorItem, ...]
    """The service's errors when rejected (an old file's reason: one item with an empty code)."""
    created_at: float
    updated_at: float
    match_id: str = ""
    """The service's id of the recorded match, once sent (empty when it did not say)."""

    def outcome(self, index: int = 0) -> Outcome:
        """Where this entry stands, as the one outcome type; `index` is its place in a batch."""
        state = OutcomeState.of_entry(self.state.value, self.in_doubt)
        return Outcome(index, state, self.external_id, self.errors, match_id=self.match_id)


class Outbox(GhostQueue):
    """Durable queue of new matches (and the ghost players they name) for one service scope (base URL + key)."""

    def __init__(
        self, path: Path | str | None, scope: str, *, clock: Callable[[], float] = time.time
    ) -> None:
        """`path` None keeps the outbox in memory (the demo: its group lives only as long as the process)."""
        self.path = Path(path) if path is not None else None
        self.scope = scope
        self.clock = clock
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        target = str(self.path) if self.path is not None else ":memory:"
        self._db = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        _migrate(self._db)

    def close(self) -> None:
        self._db.close()

    def _row(self, row: tuple) -> Entry:
        ext, body, state, in_doubt, attempts, errors, created, updated, match_id = row
        return Entry(
            ext,
            NewMatch.model_validate(json.loads(body)),
            State(state),
            bool(in_doubt),
            attempts,
            _load_errors(errors),
            created,
            updated,
            match_id,
        )

    _COLUMNS = "external_id, body, state, in_doubt, attempts, errors, created_at, updated_at, match_id"

    def add(self, match: NewMatch) -> Entry:
        """Store a match (giving it an external id if it has none); on return it is on disk. A ghost it names
        by local id that the service has made meanwhile is named by the service's id."""
        match = self.resolve(match)
        external_id = match.external_id or new_external_id()
        if external_id != match.external_id:
            match = match.model_copy(update={"external_id": external_id})
        now = self.clock()
        with self._db:
            self._db.execute(
                "INSERT INTO entries (scope, external_id, body, state, created_at, updated_at) VALUES (?,?,?,?,?,?)",
                (self.scope, external_id, json.dumps(match.to_wire()), State.PENDING, now, now),
            )
        return self._must_get(external_id)

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
            external_id = match.external_id or new_external_id()
            if external_id != match.external_id:
                match = match.model_copy(update={"external_id": external_id})
            ids.append(external_id)
            rows.append((self.scope, external_id, json.dumps(match.to_wire()), State.PENDING, now, now))
        if rows:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(
                    "INSERT OR IGNORE INTO entries (scope, external_id, body, state, created_at, updated_at)"
                    " VALUES (?,?,?,?,?,?)",
                    rows,
                )
        return self._get_many(ids)

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
        row = self._db.execute(
            f"SELECT {self._COLUMNS} FROM entries WHERE scope=? AND kind!=? AND external_id=?",
            (self.scope, GHOST, external_id),
        ).fetchone()
        return self._row(row) if row else None

    def _must_get(self, external_id: str) -> Entry:
        """The entry just written under `external_id` (it is there: the write and this read share a lock)."""
        entry = self.get(external_id)
        if entry is None:
            raise LookupError(f"outbox entry {external_id} vanished")
        return entry

    def entries(self, *states: State) -> list[Entry]:
        """Match entries in submission order, optionally only those in `states` (ghosts: `ghosts()`)."""
        sql = f"SELECT {self._COLUMNS} FROM entries WHERE scope=? AND kind!=?"
        args: list = [self.scope, GHOST]
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args += [s.value for s in states]
        return [self._row(r) for r in self._db.execute(sql + " ORDER BY seq", args)]

    def queue(self, *states: State) -> list[Entry | GhostEntry]:
        """Matches and ghosts together, in submission order, optionally only those in `states`."""
        sql = f"SELECT kind, {self._COLUMNS} FROM entries WHERE scope=?"
        args: list = [self.scope]
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args += [s.value for s in states]
        rows = self._db.execute(sql + " ORDER BY seq", args).fetchall()
        return [self._ghost(r[1:]) if r[0] == GHOST else self._row(r[1:]) for r in rows]

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

    def mark_rejected(self, external_id: str, errors: Sequence[ErrorItem]) -> None:
        """Settle an entry as refused, keeping the service's errors (code and message) as they came."""
        items = list(errors) or [ErrorItem("", "rejected without a reason")]
        self._set([external_id], state=State.REJECTED.value, in_doubt=0, errors=_dump_errors(items))

    def edit(self, external_id: str, match: NewMatch) -> Entry:
        """Replace a rejected (or pending, not in doubt) entry's match and make it pending again.

        When `match` carries another external id (a fix of an M003: the old id was another match's), the
        entry takes it, keeping its place in the queue; an id another entry of this outbox holds is refused.
        """
        entry = self.get(external_id)
        if entry is None or entry.state is State.SENT or entry.in_doubt:
            raise ValueError("only a rejected or unsent match can be edited")
        new_id = match.external_id or external_id
        if new_id != external_id and self.get(new_id) is not None:
            raise ValueError(f"the external id {new_id} is already in the outbox")
        match = self.resolve(match).model_copy(update={"external_id": new_id})
        self._set(
            [external_id],
            body=json.dumps(match.to_wire()),
            state=State.PENDING.value,
            errors="[]",
            attempts=0,
            external_id=new_id,
        )
        return self._must_get(new_id)

    def retry(self, external_id: str) -> None:
        entry = self.get(external_id)
        if entry is not None and entry.state is State.REJECTED:
            self._set([external_id], state=State.PENDING.value, errors="[]", attempts=0)

    def discard(self, external_id: str) -> None:
        """Forget an entry that is not in doubt (a match in doubt may already be recorded)."""
        entry = self.get(external_id)
        if entry is not None and entry.in_doubt:
            raise ValueError("this match may already be recorded; send it again to find out")
        with self._db:
            self._db.execute(
                "DELETE FROM entries WHERE scope=? AND kind!=? AND external_id=?",
                (self.scope, GHOST, external_id),
            )


@dataclass
class SendReport:
    """What one `send_pending` run did."""

    sent: int = 0
    """Matches sent (ghost players made: `ghosts`)."""
    rejected: int = 0
    """Matches rejected (ghost players refused: `ghost_refusals`)."""
    confirmed_by_exists: int = 0
    failures: int = 0
    stopped: RanktermError | None = None
    resume_at: float | None = None
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    """The matches this run settled (sent or rejected), by external id."""
    waiting: int = 0
    """Matches left pending because they name a ghost player not made yet (queued, in doubt or rejected)."""
    ghosts: dict[str, Player] = field(default_factory=dict)
    """The ghost players this run made (or found made), by local id."""
    ghost_refusals: dict[str, RanktermError] = field(default_factory=dict)
    """The service's refusal of each ghost this run rejected, by local id."""

    @property
    def paused(self) -> bool:
        return self.resume_at is not None


def next_hour(now: float) -> float:
    return (int(now) // 3600 + 1) * 3600.0


class OutboxSender(GhostSending):
    """Sends an outbox's pending entries (ghosts, then the matches after them) through a client, exactly once each."""

    def __init__(
        self,
        outbox: Outbox,
        client: RankingClient,
        *,
        max_rounds: int = 8,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.outbox = outbox
        self.client = client
        self.max_rounds = max_rounds
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.sleep = sleep
        self.resume_at: float | None = None
        self._one_at_a_time = asyncio.Lock()

    async def _settle_doubts(
        self, entries: list[Entry | GhostEntry], report: SendReport
    ) -> list[Entry | GhostEntry]:
        """Ask the service about entries in doubt; return those that still need sending."""
        out: list[Entry | GhostEntry] = []
        players: list[Player] | None = None  # read once for every ghost in doubt
        for entry in entries:
            if isinstance(entry, GhostEntry):
                if entry.in_doubt:
                    made, players = await self._settle_ghost(entry, report, players)
                    if made:
                        continue
                out.append(entry)
            elif entry.in_doubt and await self.client.match_exists(entry.external_id):
                self._sent(entry.external_id, report)
                report.confirmed_by_exists += 1
            else:
                out.append(entry)
        return out

    def _sent(self, external_id: str, report: SendReport, match_id: str = "") -> None:
        self._sent_each({external_id: match_id}, report)

    def _sent_each(self, match_ids: Mapping[str, str], report: SendReport) -> None:
        """Settle matches as recorded (external id -> the service's id for it) and report them. The answer
        to a send carries no match number (WIRE.md: index, id, name, errors), so the outcomes have none:
        `effect.number_for` finds it when it is wanted."""
        self.outbox.mark_sent_each(match_ids)
        for external_id, match_id in match_ids.items():
            report.sent += 1
            report.outcomes[external_id] = Outcome(0, OutcomeState.ACCEPTED, external_id, match_id=match_id)

    def _rejected(self, external_id: str, errors: Sequence[ErrorItem], report: SendReport) -> None:
        self.outbox.mark_rejected(external_id, errors)
        report.rejected += 1
        entry = self.outbox.get(external_id)
        report.outcomes[external_id] = Outcome(
            0, OutcomeState.REJECTED, external_id, entry.errors if entry else ()
        )

    async def _send_batch(self, batch: list[Entry], report: SendReport) -> None:
        batch = self._sendable(batch, report)  # the guard: a match naming a local id is never sent
        if not batch:
            return
        self.outbox.mark_in_doubt(e.external_id for e in batch)
        try:
            answer = await self.client.add_matches([e.match for e in batch])
        except MatchRejected as exc:  # the request as a whole was refused: nothing of it was recorded
            errors = exc.errors or (ErrorItem(exc.code or "", str(exc)),)
            for entry in batch:
                self._rejected(entry.external_id, errors, report)
            return
        sent = {batch[item.index].external_id: item.id for item in answer.accepted}
        refused: list[tuple[str, tuple[ErrorItem, ...]]] = []
        for item in answer.rejected:
            entry = batch[item.index]
            errors = error_items(item)
            # M003 after an earlier attempt whose answer was lost: that attempt landed. On a first attempt it
            # means the external id belongs to another match: a real rejection.
            if entry.attempts > 0 and any(e.code == ALREADY_ACCEPTED for e in errors):
                sent[entry.external_id] = ""
            else:
                refused.append((entry.external_id, errors))
        self._sent_each(sent, report)  # the batch's accepted matches in one write
        for external_id, errors in refused:
            self._rejected(external_id, errors, report)

    async def _send_in_order(self, pending: list[Entry | GhostEntry], report: SendReport) -> None:
        """Matches in batches of `batch_size`; a ghost ends the batch before it and is sent on its own, so it
        is made before the matches after it (which are read again: its real id may now stand in them)."""
        batch: list[Entry] = []
        reread = bool(report.ghosts)  # a ghost settled from a lost answer has rewritten the matches after it
        for item in pending:
            if isinstance(item, GhostEntry):
                await self._send_batch(batch, report)
                batch = []
                await self._send_ghost(item, report)
                reread = True
                continue
            entry = self.outbox.get(item.external_id) if reread else item
            if entry is None or entry.state is not State.PENDING:
                continue
            if local_ids(entry.match):  # waits for its ghost (the guard in `_send_batch` says the same)
                self._sendable([entry], report)
                continue
            batch.append(entry)
            if len(batch) >= self.client.batch_size:
                await self._send_batch(batch, report)
                batch = []
        await self._send_batch(batch, report)

    async def send_pending(self, *, force: bool = False) -> SendReport:
        """Send every pending entry; retry transient failures with backoff, up to `max_rounds` rounds.

        One send at a time (a second caller waits for the first): a ghost's POST is not idempotent, so two
        sends must never both find it pending and post it."""
        async with self._one_at_a_time:
            return await self._send_pending(force)

    async def _send_pending(self, force: bool) -> SendReport:
        report = SendReport()
        if self.resume_at is not None and not force and self.client.clock() < self.resume_at:
            report.resume_at = self.resume_at
            return report
        self.resume_at = None
        delay = self.backoff
        for round_no in range(self.max_rounds):
            report.waiting = 0
            try:
                await self._send_in_order(
                    await self._settle_doubts(self.outbox.queue(State.PENDING), report), report
                )
                if not isinstance(report.stopped, UnexpectedResponse):
                    report.stopped = None
                return report
            except QuotaError as exc:
                self.resume_at = report.resume_at = next_hour(self.client.clock())
                report.stopped = exc
                return report
            except AuthError as exc:
                report.stopped = exc
                return report
            except (Offline, ServiceError) as exc:
                report.failures += 1
                report.stopped = exc
                if round_no + 1 < self.max_rounds:  # no wait after the last round: the caller decides
                    await self.sleep(delay)
                    delay = min(delay * 2, self.max_backoff)
        return report
