"""How many connections one address may hold open to a host's server, signed in or not, and the guard that
closes the next one at once for the browser seats' server (the SSH host counts its own, in `ssh_server.py`).

Without it one machine holding a thousand idle connections took every file the host may open: no guest could
join, and the host's terminal filled with "Too many open files".
"""

from __future__ import annotations

import asyncio
from collections import Counter

PER_ADDRESS = 64
"""Open connections one address may hold (a table's twelve seats from one machine use a few each)."""


class PerAddress(asyncio.Protocol):
    """A connection's protocol (`inner`, aiohttp's request handler) behind a count of the connections open
    from each address (`open_from`, shared by every connection of one server): past `PER_ADDRESS`, the
    connection is closed at once and `inner` never hears of it."""

    def __init__(self, inner: asyncio.Protocol, open_from: Counter[str]) -> None:
        self.inner = inner
        self.open_from = open_from
        self.peer = "?"
        self.let_in = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        self.open_from[self.peer] += 1
        if self.open_from[self.peer] > PER_ADDRESS:
            transport.abort()  # type: ignore[attr-defined]
            return
        self.let_in = True
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.let_in:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.let_in else None

    def pause_writing(self) -> None:
        if self.let_in:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.let_in:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.open_from[self.peer] -= 1
        if self.open_from[self.peer] <= 0:
            del self.open_from[self.peer]
        if self.let_in:
            self.inner.connection_lost(exc)
