"""The HTTP transport of a client on a URL: httpx's own, with a connection pool whose idle check is cheap
(each stream asks for its raw socket once and keeps it). It needs httpcore and h11, so it is imported only
where a socket is to be opened: a client answered in-process (the embedded service on
`httpx.ASGITransport`) never loads them. See docs/design/local-files.md.
"""

from __future__ import annotations

import select
import socket
import ssl
import sys
from collections.abc import Callable, Iterable
from typing import Any

import httpcore
import httpx

__all__ = ["http_client", "pooled_transport"]

_NOT_ASKED: Any = object()


def _readable(sock: socket.socket | None) -> bool:
    """Whether a read would not block: data waiting, or the end of a connection the server closed.

    A socket that is gone counts as readable (its next read would end the connection), as in httpcore.
    """
    fd = -1 if sock is None else sock.fileno()
    if fd < 0:
        return True
    if sys.platform == "win32" or not hasattr(select, "poll"):  # pragma: no cover - Linux and macOS poll
        return bool(select.select([fd], [], [], 0)[0])
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


class _Stream(httpcore.AsyncNetworkStream):
    """A network stream of httpcore's anyio backend that remembers its raw socket."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket: socket.socket | None = _NOT_ASKED

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            if self._socket is _NOT_ASKED:
                self._socket = self._inner.get_extra_info("socket")
            return _readable(self._socket)
        return self._inner.get_extra_info(info)


class _Backend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend, its streams wrapped in `_Stream`."""

    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _Stream(stream)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:  # pragma: no cover - the client never uses a unix socket
        return _Stream(await self._inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _PooledTransport(httpx.AsyncHTTPTransport):
    """`httpx.AsyncHTTPTransport` whose pool (the one thing its requests use) is made on `_Backend`."""

    def __init__(self, verify: ssl.SSLContext | bool, limits: httpx.Limits) -> None:
        # Not httpx's __init__: it would build a pool (and load an SSL context) only to have it replaced.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(verify=verify),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_Backend(),
        )


def pooled_transport(verify: ssl.SSLContext | bool, limits: httpx.Limits) -> httpx.AsyncBaseTransport:
    """The transport of a client that makes its own: httpx's, verifying TLS with `verify`, pooled by `limits`."""
    return _PooledTransport(verify, limits)


def http_client(
    *,
    timeout: float,
    verify: ssl.SSLContext | bool,
    pool: int,
    event_hooks: dict[str, list[Callable[..., Any]]] | None = None,
) -> httpx.AsyncClient:
    """The httpx client a `RankingClient` on a URL makes for itself (and the benchmarks make as it does).

    Keep-alive for `pool` connections at least (the paging window's most in flight; httpx keeps 20 by
    default). `verify` and the limits are given to httpx too, for the proxies it may take from the
    environment (those are httpx's own transports)."""
    limits = httpx.Limits(max_connections=max(100, pool), max_keepalive_connections=max(20, pool))
    return httpx.AsyncClient(
        timeout=timeout,
        verify=verify,
        limits=limits,
        transport=pooled_transport(verify, limits),
        event_hooks=event_hooks,
    )
