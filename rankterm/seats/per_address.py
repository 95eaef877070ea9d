"""The browser seats' server's connections counted by address: `PerAddress` wraps each connection's protocol
and closes one past `PER_ADDRESS` open from its address at once (the SSH host counts in `ssh_server.py` with
the same `OpenCount`, as `rankterm serve` does).
"""

from __future__ import annotations

import asyncio

from rankterm.server.open_count import PER_ADDRESS, OpenCount

__all__ = ["PER_ADDRESS", "OpenCount", "PerAddress"]


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
