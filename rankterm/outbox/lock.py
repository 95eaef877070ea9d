"""The outbox's send lock, across processes: one sender at a time for every process that opens the file.

The app, every `host` seat and every `web` seat of a profile open the same outbox file. Sending, settling
and ghost-making read what is pending and then act on it over the network, so two processes must never do it
at once (both would find an entry pending: a match posted twice settles as M003, a ghost is made twice).

An OS file lock (`fcntl.flock`, exclusive) on a file beside the outbox (``outbox.db.lock``, mode 0600) does
it, rather than a lease written in the outbox like the mirror's sync lease: the kernel lets it go when its
process ends however it ends (a seat killed mid-send holds nobody back for a lease's time), it needs no clock
and no renewal while a slow POST is under way (a lease would have to outlast the longest send), and a
waiting process learns at once when it is free. Every seat of a profile runs on the machine whose data dir
holds the outbox, so a local lock is enough.

The lock is taken without blocking the event loop: tried, and tried again every `POLL` seconds.
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
