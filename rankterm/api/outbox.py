"""The outbox: every match the user submits is on disk before any request leaves, and reaches the service once.

Entries live in a small SQLite file (WAL, synchronous=FULL, mode 0600), scoped to one service and key so that
matches never go to the wrong group. `OutboxSender` sends pending entries in order, in batches:

- before a POST, each entry of the batch is marked *in doubt* (written and synced);
- a clear answer settles it: accepted -> sent; rejected with M003 (already accepted) after an earlier
  attempt -> sent (that attempt landed); other rejections, and M003 on a first attempt (the external id is
  another match's) -> rejected, with the reason, editable and resendable;
- a network error, timeout or 5xx leaves it in doubt: before it is sent again the sender asks
  `matches/match/exists?id=` and marks it sent if the service has it, so nothing is recorded twice;
- a quota error pauses sending (until `resume_at`, the next hour, or a manual retry); an auth error stops it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from rankterm.api.client import RankingClient
from rankterm.api.errors import AuthError, MatchRejected, Offline, QuotaError, RanktermError, ServiceError
from rankterm.api.models import NewMatch

ALREADY_ACCEPTED = "M003"


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
    reason: str
    created_at: float
    updated_at: float


def new_external_id() -> str:
    return "rt-" + uuid.uuid4().hex[:16]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL,
    external_id TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    in_doubt INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (scope, external_id)
);
"""


class Outbox:
    """Durable queue of new matches for one service scope (base URL + key)."""

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

    def close(self) -> None:
        self._db.close()

    def _row(self, row: tuple) -> Entry:
        ext, body, state, in_doubt, attempts, reason, created, updated = row
        return Entry(
            ext,
            NewMatch.model_validate(json.loads(body)),
            State(state),
            bool(in_doubt),
            attempts,
            reason,
            created,
            updated,
        )

    _COLUMNS = "external_id, body, state, in_doubt, attempts, reason, created_at, updated_at"

    def add(self, match: NewMatch) -> Entry:
        """Store a match (giving it an external id if it has none); on return it is on disk."""
        if not match.external_id:
            match = match.model_copy(update={"external_id": new_external_id()})
        now = self.clock()
        with self._db:
            self._db.execute(
                "INSERT INTO entries (scope, external_id, body, state, created_at, updated_at) VALUES (?,?,?,?,?,?)",
                (self.scope, match.external_id, json.dumps(match.to_wire()), State.PENDING, now, now),
            )
        return self.get(match.external_id)  # type: ignore[return-value]

    def get(self, external_id: str) -> Entry | None:
        row = self._db.execute(
            f"SELECT {self._COLUMNS} FROM entries WHERE scope=? AND external_id=?", (self.scope, external_id)
        ).fetchone()
        return self._row(row) if row else None

    def entries(self, *states: State) -> list[Entry]:
        """Entries in submission order, optionally only those in `states`."""
        sql = f"SELECT {self._COLUMNS} FROM entries WHERE scope=?"
        args: list = [self.scope]
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args += [s.value for s in states]
        return [self._row(r) for r in self._db.execute(sql + " ORDER BY seq", args)]

    def counts(self) -> dict[State, int]:
        out = dict.fromkeys(State, 0)
        for state, n in self._db.execute(
            "SELECT state, COUNT(*) FROM entries WHERE scope=? GROUP BY state", (self.scope,)
        ):
            out[State(state)] = n
        return out

    def _set(self, external_ids: Iterable[str], **values: object) -> None:
        values["updated_at"] = self.clock()
        assignments = ", ".join(f"{k}=?" for k in values)
        with self._db:
            self._db.executemany(
                f"UPDATE entries SET {assignments} WHERE scope=? AND external_id=?",
                [(*values.values(), self.scope, ext) for ext in external_ids],
            )

    def mark_in_doubt(self, external_ids: Iterable[str]) -> None:
        ids = list(external_ids)
        with self._db:
            self._db.executemany(
                "UPDATE entries SET in_doubt=1, attempts=attempts+1, updated_at=? WHERE scope=? AND external_id=?",
                [(self.clock(), self.scope, ext) for ext in ids],
            )

    def mark_sent(self, external_ids: Iterable[str]) -> None:
        self._set(external_ids, state=State.SENT.value, in_doubt=0, reason="")

    def mark_rejected(self, external_id: str, reason: str) -> None:
        self._set([external_id], state=State.REJECTED.value, in_doubt=0, reason=reason)

    def edit(self, external_id: str, match: NewMatch) -> Entry:
        """Replace a rejected (or pending, not in doubt) entry's match and make it pending again."""
        entry = self.get(external_id)
        if entry is None or entry.state is State.SENT or entry.in_doubt:
            raise ValueError("only a rejected or unsent match can be edited")
        match = match.model_copy(update={"external_id": external_id})
        self._set(
            [external_id], body=json.dumps(match.to_wire()), state=State.PENDING.value, reason="", attempts=0
        )
        return self.get(external_id)  # type: ignore[return-value]

    def retry(self, external_id: str) -> None:
        entry = self.get(external_id)
        if entry is not None and entry.state is State.REJECTED:
            self._set([external_id], state=State.PENDING.value, reason="", attempts=0)

    def discard(self, external_id: str) -> None:
        """Forget an entry that is not in doubt (a match in doubt may already be recorded)."""
        entry = self.get(external_id)
        if entry is not None and entry.in_doubt:
            raise ValueError("this match may already be recorded; send it again to find out")
        with self._db:
            self._db.execute("DELETE FROM entries WHERE scope=? AND external_id=?", (self.scope, external_id))


@dataclass
class SendReport:
    """What one `send_pending` run did."""

    sent: int = 0
    rejected: int = 0
    confirmed_by_exists: int = 0
    failures: int = 0
    stopped: RanktermError | None = None
    resume_at: float | None = None
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def paused(self) -> bool:
        return self.resume_at is not None


def next_hour(now: float) -> float:
    return (int(now) // 3600 + 1) * 3600.0


class OutboxSender:
    """Sends an outbox's pending entries through a client, exactly once each."""

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

    async def _settle_doubts(self, entries: list[Entry], report: SendReport) -> list[Entry]:
        """Ask the service about entries in doubt; return those that still need sending."""
        out = []
        for entry in entries:
            if entry.in_doubt and await self.client.match_exists(entry.external_id):
                self.outbox.mark_sent([entry.external_id])
                report.sent += 1
                report.confirmed_by_exists += 1
            else:
                out.append(entry)
        return out

    async def _send_batch(self, batch: list[Entry], report: SendReport) -> None:
        self.outbox.mark_in_doubt(e.external_id for e in batch)
        try:
            answer = await self.client.add_matches([e.match for e in batch])
        except MatchRejected as exc:  # the request as a whole was refused: nothing of it was recorded
            for entry in batch:
                self.outbox.mark_rejected(entry.external_id, str(exc))
                report.rejected += 1
                report.reasons[entry.external_id] = str(exc)
            return
        for outcome in answer.accepted:
            self.outbox.mark_sent([batch[outcome.index].external_id])
            report.sent += 1
        for outcome in answer.rejected:
            entry = batch[outcome.index]
            ext = entry.external_id
            # M003 after an earlier attempt whose answer was lost: that attempt landed. On a first attempt it
            # means the external id belongs to another match: a real rejection.
            if entry.attempts > 0 and any(e.code == ALREADY_ACCEPTED for e in outcome.errors):
                self.outbox.mark_sent([ext])
                report.sent += 1
                continue
            reason = "; ".join(f"{e.message or e.code} ({e.code})" for e in outcome.errors) or "rejected"
            self.outbox.mark_rejected(ext, reason)
            report.rejected += 1
            report.reasons[ext] = reason

    async def send_pending(self, *, force: bool = False) -> SendReport:
        """Send every pending entry; retry transient failures with backoff, up to `max_rounds` rounds."""
        report = SendReport()
        if self.resume_at is not None and not force and self.client.clock() < self.resume_at:
            report.resume_at = self.resume_at
            return report
        self.resume_at = None
        delay = self.backoff
        for round_no in range(self.max_rounds):
            try:
                pending = await self._settle_doubts(self.outbox.entries(State.PENDING), report)
                size = self.client.batch_size
                for start in range(0, len(pending), size):
                    await self._send_batch(pending[start : start + size], report)
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
