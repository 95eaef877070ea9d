"""`DraftFile`: the match form as typed and the matches queued from it, kept on disk per group (service and
key), so that a form half filled or a queue not sent when the connection died (an SSH client killed, a
terminal closed) is offered again on the next `n`.

One JSON file per seat of a group under the data dir (`drafts/<host>-<hash>.<seat>.json`, mode 0600 in a
0700 folder), written whole to a temporary file of its own and moved over the old one, so a seat killed
mid-write leaves the old draft or the new, never half of one. Every seat of a profile (the app, each `host`
and `web` guest) writes only its own file, so one seat's draft never overwrites another's queue. A seat holds
an OS lock (`flock`) on a lock file beside its draft for as long as it lives; the kernel lets it go however the
seat ends. `load` adopts the newest draft whose seat is gone (its lock can be taken, and is then held, so no
other seat adopts it too); once this seat has written its own draft (which carries what it adopted) or has
nothing left to keep, the adopted file is removed. The form says what a draft holds (`MatchForm.draft()` /
`restore()`); the queue is kept as the wire's matches (`NewMatch.to_wire()`) with their labels. This module
only keeps them. The screen writes each change within `DRAFT_EVERY` seconds and a queued match at once; a
draft that cannot be written or read is left out silently: the outbox, not the draft, keeps what was sent.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rankterm import paths
from rankterm.wire.ids import service_scope
from rankterm.wire.models import NewMatch

DRAFT_EVERY = 0.05
"""Seconds between a change of the form and its write at most (one write for every change made meanwhile)."""


def draft_path(base_url: str, key: str) -> Path:
    """Where the draft of the group at `base_url` (client `key`) is kept."""
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
    """This seat's draft of a group (`path`: the group's, from `draft_path`): `save`, `load`, `drop`."""

    def __init__(self, path: Path) -> None:
        self.group = path
        seat = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.path = path.with_name(f"{path.stem}.{seat}.json")
        self._lock: int | None = _locked(self.path)  # None: no lock could be had (a read-only data dir)
        self._adopted: list[tuple[Path, int | None]] = []

    def _orphans(self) -> list[Path]:
        """The group's drafts of seats that are gone, newest first (a file of an older rankterm, one for the
        whole group, included)."""
        found = [p for p in self.group.parent.glob(f"{self.group.stem}.*.json") if p != self.path]
        if self.group.exists():
            found.append(self.group)
        return sorted(found, key=lambda p: _mtime(p), reverse=True)

    def _forget_adopted(self) -> None:
        for path, lock in self._adopted:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
                _lock_path(path).unlink(missing_ok=True)
            if lock is not None:
                os.close(lock)
        self._adopted = []

    def close(self) -> None:
        """Let this seat's locks go, as its process ending would: its draft and any it adopted and has not
        kept yet stay, for the next seat to adopt."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
        for _path, lock in self._adopted:
            if lock is not None:
                os.close(lock)
        self._adopted = []

    def save(self, draft: Draft) -> None:
        """Keep `draft` as the group's draft."""
        body = json.dumps(
            {
                "saved_at": draft.saved_at.astimezone(UTC).isoformat(),
                "form": draft.form,
                "queue": [{"match": m.to_wire(), "label": label} for m, label in draft.queue],
                "queue_only": draft.queue_only,
            },
            ensure_ascii=False,
        )
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.stem}.", suffix=".tmp"
            )
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp makes it 0600
                    out.write(body)
                os.replace(temporary, self.path)
            except OSError:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._forget_adopted()  # what this seat adopted is in its own draft now

    def read(self) -> Draft | None:
        """This seat's own draft as it is on disk, or None."""
        return read_draft(self.path)

    def load(self) -> Draft | None:
        """The newest draft a seat that is gone left (adopted: see the module docstring), or None. A queued
        match that cannot be read is left out; a file of an older rankterm (a form, no queue) reads as a
        draft without a queue."""
        for path in self._orphans():
            lock = _locked(path)
            if lock is None and path != self.group:
                continue  # its seat is still there
            draft = read_draft(path)
            if draft is None:
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
                    _lock_path(path).unlink(missing_ok=True)
                if lock is not None:
                    os.close(lock)
                continue
            self._adopted.append((path, lock))
            return draft
        return None

    def drop(self) -> None:
        """No draft any more (the match was sent, the form cleared, or the person dropped it)."""
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
        self._forget_adopted()


def _lock_path(draft: Path) -> Path:
    return draft.with_suffix(".lock")


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _locked(draft: Path) -> int | None:
    """The descriptor holding the lock of `draft`'s seat, taken now; None when another process holds it (or
    no lock file can be made)."""
    try:
        draft.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(_lock_path(draft), os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def read_draft(path: Path) -> Draft | None:
    """The draft in `path`, or None when it cannot be read or holds nothing."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        saved_at = datetime.fromisoformat(data["saved_at"])
        form = data.get("form")
        queued = data.get("queue") or []
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
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
