"""`DraftFile`: the match form as typed and the matches queued from it, kept on disk per seat of a group
(service and key), so that a form half filled or a queue not sent when the connection died (an SSH client
killed, a terminal closed) is offered again on the next `n`; the next seat adopts what a seat that is gone
left. The form says what a draft holds (`MatchForm.draft()` / `restore()`); this module only keeps it, in
one SQLite file of the drafts folder (`rankterm.localdb`), with a lock file per live seat. A draft that cannot
be written or read is left out silently: the outbox, not the draft, keeps what was sent.
See docs/design/local-files.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rankterm import paths
from rankterm.localdb import LocalDb, Unavailable
from rankterm.wire.ids import service_scope
from rankterm.wire.models import NewMatch

DRAFT_EVERY = 0.05
"""Seconds between a change of the form and its write at most (one write for every change made meanwhile)."""

DRAFTS_FILE = "drafts.db"
"""The drafts' SQLite file, in the drafts folder beside the seats' lock files (and the JSON drafts of an
older rankterm, adopted as they are found)."""

DRAFTS = LocalDb(
    "the drafts",
    (
        "CREATE TABLE drafts (grp TEXT NOT NULL, seat TEXT NOT NULL, saved_at TEXT NOT NULL,"
        " body TEXT NOT NULL, PRIMARY KEY (grp, seat))",
    ),
    synchronous="NORMAL",  # a write survives the seat's process killed; a power cut may lose the last one
    timeout=1.0,  # written from the seat's event loop: another seat's write is a moment, never seconds
)


def draft_path(base_url: str, key: str) -> Path:
    """Where the draft of the group at `base_url` (client `key`) is kept: the name its seats' drafts go by."""
    return paths.draft_path(base_url, service_scope(base_url, key))


@dataclass
class Draft:
    """What a lost session left: when it was saved, the form (`MatchForm.draft()`, None when blank) and the
    queued matches (match, label) in the order queued; `queue_only` when the form held nothing but what the
    queue left in it (the game and players kept for the next match)."""

    saved_at: datetime
    form: dict[str, Any] | None
    queue: list[tuple[NewMatch, str]] = field(default_factory=list)
    queue_only: bool = False


class DraftFile:
    """This seat's draft of a group (`group`: the group's name, from `draft_path`): `save`, `load`, `drop`.

    `path` is the drafts' SQLite file (one for every group and seat); each seat holds an OS lock (`flock`) on
    a lock file of its own beside it for as long as it lives, which the kernel lets go however the seat ends."""

    def __init__(self, group: Path, *, keeps_adopted: bool = False) -> None:
        """`keeps_adopted`: what this seat adopts stays on disk when it keeps its own draft or drops it (a guest
        seat: another seat's unsent matches are not its to drop); it only lets the locks go."""
        self.group = group
        self.keeps_adopted = keeps_adopted
        self.seat = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.path = group.with_name(DRAFTS_FILE)
        self._lock: int | None = _locked(self._lock_of(self.seat))  # None: no lock (a read-only data dir)
        try:
            self._db: sqlite3.Connection | None = DRAFTS.open(self.path, memory_fallback=True).db
        except (Unavailable, sqlite3.Error, OSError):
            self._db = None
        self._adopted: list[tuple[str | Path, int | None]] = []
        """What this seat adopted and has not kept yet: another seat's row (its seat) or an older rankterm's
        file, each with the lock taken on it."""
        self._queues_taken: list[tuple[str | Path, int | None, Draft]] = []
        """Gone seats whose queue this seat took and whose form it left (another form was offered), each with
        the lock taken on it and the draft read: once this seat has kept the queue, each keeps its form alone."""

    def _lock_of(self, seat: str) -> Path:
        return self.group.with_name(f"{self.group.stem}.{seat}.lock")

    def _orphans(self) -> list[tuple[datetime, str | Path]]:
        """The group's drafts of other seats, newest first (of two saved at the same moment, the one written
        last): rows of the file (by seat) and an older rankterm's JSON files (one for each seat, or one for the
        whole group)."""
        found: list[tuple[datetime, int, str | Path]] = []
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                rows = self._db.execute(
                    "SELECT seat, saved_at, rowid FROM drafts WHERE grp = ? AND seat != ?",
                    (self.group.stem, self.seat),
                ).fetchall()
                for seat, saved_at, rowid in rows:
                    with contextlib.suppress(ValueError, TypeError):
                        when = datetime.fromisoformat(saved_at)
                        found.append(
                            (when if when.tzinfo else when.replace(tzinfo=UTC), int(rowid), str(seat))
                        )
        legacy = [*self.group.parent.glob(f"{self.group.stem}.*.json"), self.group]
        found += [(_mtime(p), 0, p) for p in legacy if p.exists()]
        found.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return [(when, item) for when, _order, item in found]

    def _forget_adopted(self, db: sqlite3.Connection | None) -> None:
        """Remove what this seat adopted (it is kept in its own draft now, or was dropped); with
        `keeps_adopted`, let it go as it is, for the next seat."""
        if self.keeps_adopted:
            self._release_adopted()
            return
        for item, lock in self._adopted:
            self._forget(item, lock, db)
        self._adopted = []
        for item, lock, draft in self._queues_taken:
            with contextlib.suppress(OSError, sqlite3.Error):
                form_only = Draft(draft.saved_at, draft.form, [], queue_only=draft.queue_only)
                if isinstance(item, Path):
                    item.write_text(json.dumps({"saved_at": draft.saved_at.isoformat(), **_body(form_only)}))
                elif db is not None:
                    db.execute(
                        "UPDATE drafts SET body = ? WHERE grp = ? AND seat = ?",
                        (json.dumps(_body(form_only), ensure_ascii=False), self.group.stem, item),
                    )
            if lock is not None:
                os.close(lock)
        self._queues_taken = []

    def _forget(self, item: str | Path, lock: int | None, db: sqlite3.Connection | None) -> None:
        """Remove one gone seat's draft (a row, or an older rankterm's file) and let its lock go."""
        with contextlib.suppress(OSError, sqlite3.Error):
            if isinstance(item, Path):
                item.unlink(missing_ok=True)
                item.with_suffix(".lock").unlink(missing_ok=True)
            else:
                if db is not None:
                    db.execute("DELETE FROM drafts WHERE grp = ? AND seat = ?", (self.group.stem, item))
                self._lock_of(item).unlink(missing_ok=True)
        if lock is not None:
            os.close(lock)

    def close(self) -> None:
        """Let this seat's locks go, as its process ending would: its draft and any it adopted and has not
        kept yet stay, for the next seat to adopt."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
        self._release_adopted()
        if self._db is not None:
            self._db.close()
            self._db = None

    def _release_adopted(self) -> None:
        """Let the locks of what this seat adopted go; it stays on disk, for the next seat to adopt."""
        for lock in [lock for _item, lock in self._adopted] + [lock for _i, lock, _d in self._queues_taken]:
            if lock is not None:
                os.close(lock)
        self._adopted = []
        self._queues_taken = []

    def save(self, draft: Draft) -> None:
        """Keep `draft` as this seat's draft of the group (with whatever it adopted, which then goes)."""
        if self._db is None:
            return
        body = json.dumps(_body(draft), ensure_ascii=False)
        with contextlib.suppress(sqlite3.Error):
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "INSERT OR REPLACE INTO drafts VALUES (?, ?, ?, ?)",
                    (self.group.stem, self.seat, draft.saved_at.astimezone(UTC).isoformat(), body),
                )
                self._forget_adopted(db)  # what this seat adopted is in its own draft now
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def read(self) -> Draft | None:
        """This seat's own draft as it is on disk, or None."""
        return self._row(self.seat)

    def _row(self, seat: str) -> Draft | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute(
                "SELECT saved_at, body FROM drafts WHERE grp = ? AND seat = ?", (self.group.stem, seat)
            ).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else parse_draft(row[0], row[1])

    def load(self) -> Draft | None:
        """What seats that are gone left, adopted (each one's lock taken and held, so no other seat adopts it
        too), or None. A guest seat (`keeps_adopted`) adopts the newest draft alone. Any other seat takes every
        gone seat's queued matches (the oldest queue first) and the newest form: a gone seat whose form is not
        the one offered keeps its form on disk, for a later seat, once this seat has kept its queue. A queued
        match that cannot be read is left out; a file of an older rankterm (a form, no queue) reads as a draft
        without a queue."""
        taken: list[Draft] = []  # newest first
        offered: Draft | None = None
        for _when, item in self._orphans():
            lock_file = item.with_suffix(".lock") if isinstance(item, Path) else self._lock_of(item)
            lock = _locked(lock_file)
            if lock is None and item != self.group:
                continue  # its seat is still there
            draft = read_draft(item) if isinstance(item, Path) else self._row(item)
            if draft is None:
                self._forget(item, lock, self._db)
                continue
            has_form = draft.form is not None and not draft.queue_only
            if offered is not None and has_form:  # another form is offered: this one waits, its queue comes
                if draft.queue:
                    self._queues_taken.append((item, lock, draft))
                    taken.append(Draft(draft.saved_at, None, draft.queue))
                elif lock is not None:
                    os.close(lock)
                continue
            self._adopted.append((item, lock))
            taken.append(draft)
            if has_form:
                offered = draft
            if self.keeps_adopted:
                break
        if not taken:
            return None
        newest = offered or taken[0]
        queue = [queued for draft in reversed(taken) for queued in draft.queue]
        return Draft(newest.saved_at, newest.form, queue, queue_only=newest.queue_only)

    def drop(self) -> None:
        """No draft any more (the match was sent, the form cleared, or the person dropped it)."""
        if self._db is None:
            return
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("DELETE FROM drafts WHERE grp = ? AND seat = ?", (self.group.stem, self.seat))
        self._forget_adopted(self._db)


def _body(draft: Draft) -> dict[str, Any]:
    """What the drafts' file keeps of `draft` (its time aside)."""
    return {
        "form": draft.form,
        "queue": [{"match": m.to_wire(), "label": label} for m, label in draft.queue],
        "queue_only": draft.queue_only,
    }


def _mtime(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return datetime.fromtimestamp(0, UTC)


def _locked(lock_file: Path) -> int | None:
    """The descriptor holding the lock of the seat whose lock file is `lock_file`, taken now; None when another
    process holds it (or no lock file can be made)."""
    try:
        lock_file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(lock_file, os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def read_draft(path: Path) -> Draft | None:
    """The draft in the JSON file `path` (an older rankterm's), or None when it cannot be read or holds nothing."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return _draft(datetime.fromisoformat(data["saved_at"]), data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def parse_draft(saved_at: str, body: str) -> Draft | None:
    """The draft of a row of the drafts' file, or None when it cannot be read or holds nothing."""
    try:
        return _draft(datetime.fromisoformat(saved_at), json.loads(body))
    except (ValueError, TypeError, AttributeError):
        return None


def _draft(saved_at: datetime, data: dict[str, Any]) -> Draft | None:
    form = data.get("form")
    queued = data.get("queue") or []
    queue: list[tuple[NewMatch, str]] = []
    for item in queued if isinstance(queued, list) else ():
        if not isinstance(item, dict):
            continue
        with contextlib.suppress(ValidationError, ValueError, TypeError):
            queue.append((NewMatch.model_validate(item.get("match")), str(item.get("label") or "")))
    form = form if isinstance(form, dict) else None
    if form is None and not queue:
        return None
    return Draft(saved_at, form, queue, data.get("queue_only") is True)
