"""How `rankterm serve` takes connections: uvicorn's limits, and the two it lacks (per address, headers in time).

`GuardedH11` closes a new connection past `PER_ADDRESS` open ones from an address, and one whose request
headers are not whole within `HEADER_SECONDS`. `config` is the one place the service's uvicorn settings are
made. See docs/design/server.md.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

from rankterm.server.open_count import PER_ADDRESS, OpenCount

IN_FLIGHT = 512
"""Requests (and connections) at once, past which uvicorn answers 503: under the usual 1024 open files."""

HEADER_SECONDS = 10.0
"""A request's headers must be whole this long after its connection opened or its previous answer went."""

KEEP_ALIVE_SECONDS = 5
"""An idle keep-alive connection is closed after this long (uvicorn's own default, said here)."""

HEAD_BYTES = 16 * 1024
"""A request line and headers larger than this are refused (h11's 400)."""


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a cap on each address's connections and a deadline on headers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None
        self._let_in = False
        self._header_timer: asyncio.TimerHandle | None = None
        self._awaited: object = None

    @property
    def open_from(self) -> OpenCount:
        """The connections open from each address to this server."""
        state: Any = self.server_state
        counts: OpenCount | None = getattr(state, "rankterm_open_from", None)
        if counts is None:
            counts = state.rankterm_open_from = OpenCount(PER_ADDRESS)
        return counts

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = get_remote_addr(transport)
        self._address = peer[0] if peer else ""
        if not self.open_from.enter(self._address):
            transport.close()  # refused: nothing of uvicorn's was set up for it
            return
        self._let_in = True
        super().connection_made(transport)
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._address is None:
            return
        self.open_from.leave(self._address)
        self._address = None
        if not self._let_in:
            return
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        self._await_headers()
        super().on_response_complete()

    def _await_headers(self) -> None:
        """Close the connection unless a new request's headers arrive within `HEADER_SECONDS`."""
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._awaited = self.scope  # the request before; a new one replaces the scope when its headers are in
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.scope is self._awaited and not self.transport.is_closing():
            self.transport.close()


def config(app: Any, **options: Any) -> uvicorn.Config:
    """The service's uvicorn settings for `app` (an app, or an import string with ``factory=True``)."""
    return uvicorn.Config(
        app,
        http=GuardedH11,
        log_level="warning",
        lifespan="off",
        access_log=False,
        limit_concurrency=IN_FLIGHT,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        h11_max_incomplete_event_size=HEAD_BYTES,
        **options,
    )


PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """Have the kernel end this process (SIGTERM) when its parent ends, however it ends (SIGKILL included);
    end it now if `parent` is already gone. Linux's ``PR_SET_PDEATHSIG``; elsewhere nothing is asked."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request above was made
        os.kill(os.getpid(), signal.SIGTERM)
