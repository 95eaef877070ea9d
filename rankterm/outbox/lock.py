"""The outbox's send lock, across processes: one sender at a time for every process that opens the file.

An exclusive `fcntl.flock` on ``outbox.db.lock`` (0600), which the kernel lets go however its process ends,
taken without blocking the event loop (tried again every `POLL` seconds). See docs/design/local-files.md.
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
