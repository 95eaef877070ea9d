"""How many connections one address may hold open to a host's server, signed in or not, and the guard that
closes the next one at once: the browser seats' server wraps each connection in `PerAddress`, the SSH host
counts in `ssh_server.py` with the same `OpenCount`.

Without it one machine holding a thousand idle connections took every file the host may open: no guest could
join, and the host's terminal filled with "Too many open files".
"""

from __future__ import annotations

import asyncio
from collections import Counter

PER_ADDRESS = 64
"""Open connections one address may hold (a table's twelve seats from one machine use a few each)."""


class OpenCount:
    """The connections open from each address to one server."""

    def __init__(self) -> None:
        self._open: Counter[str] = Counter()

    def enter(self, address: str) -> bool:
        """Count a new connection from `address`; False when it is one past `PER_ADDRESS` (to be closed; it is
        still counted until `leave`)."""
        self._open[address] += 1
        return self._open[address] <= PER_ADDRESS

    def leave(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]


class PerAddress(asyncio.Protocol):
    """A connection's protocol (`inner`, aiohttp's request handler) behind a count of the connections open
    from each address (`open_from`, shared by every connection of one server): past `PER_ADDRESS`, the
    connection is closed at once and `inner` never hears of it."""

    def __init__(self, inner: asyncio.Protocol, open_from: OpenCount) -> None:
        self.inner = inner
        self.open_from = open_from
        self.peer = "?"
        self.let_in = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        if not self.open_from.enter(self.peer):
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
        self.open_from.leave(self.peer)
        if self.let_in:
            self.inner.connection_lost(exc)
