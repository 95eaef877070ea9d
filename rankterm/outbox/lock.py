"""The outbox's locks across processes: the send lock, and the mark that a process has the file open.

`SendLock`: one sender at a time for every process that opens the file, an exclusive `fcntl.flock` on
``outbox.db.lock`` (0600), which the kernel lets go however its process ends, taken without blocking the event
loop (tried again every `POLL` seconds). `OpenMark`: each `Outbox` holds a lock on a file of its own
(``outbox.db.<origin>.open``) for as long as it is open, so that another can tell whether the process that
queued an entry is still running (`is_open`). See docs/design/local-files.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import AsyncIterator
from pathlib import Path

POLL = 0.02
"""Seconds between two tries of a lock another process holds."""


class SendLock:
    """The exclusive lock beside one outbox file (`path` None: an outbox in memory, held by one process)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Hold the lock for the `async with` block, waiting (without blocking the loop) while another
        process holds it."""
        if self.path is None:
            yield
            return
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(POLL)
            yield
        finally:
            os.close(fd)  # closing the descriptor lets the lock go


class OpenMark:
    """The lock an open outbox holds on ``<file>.<origin>.open`` while it is open (`path` None: in memory,
    nothing to mark); `is_open` tells another origin's from outside."""

    def __init__(self, outbox: Path | None, origin: str) -> None:
        self.outbox = outbox
        self.path = self.of(origin)
        self._fd: int | None = None
        if self.path is not None:
            with contextlib.suppress(OSError):  # a read-only data dir: no mark, its entries count as ended
                fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                else:
                    self._fd = fd

    def of(self, origin: str) -> Path | None:
        """The mark file of the outbox opened as `origin`."""
        return self.outbox.with_name(f"{self.outbox.name}.{origin}.open") if self.outbox and origin else None

    def is_open(self, origin: str) -> bool:
        """Whether the outbox opened as `origin` (another object, in this process or another) is still open; a
        mark left by one that ended without closing (killed) is removed."""
        path = self.of(origin)
        if path is None:
            return False
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            return False  # no mark: closed (or never made)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return True
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)
        return False

    def close(self) -> None:
        """The outbox is closed: its mark goes."""
        if self._fd is not None and self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
            os.close(self._fd)
            self._fd = None
