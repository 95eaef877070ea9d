"""The HTTP transport of a client on a URL: httpx's own, with a connection pool whose idle check is cheap
(each stream asks for its raw socket once and keeps it), and the sentences for what cannot be sent:
`offline` (httpx's transport error as `Offline`, or `NeverSent` when no connection was made) and
`address_problem` (why a base URL cannot be connected to at all). See docs/design/local-files.md.
"""

from __future__ import annotations

import ipaddress
import re
import select
import socket
import ssl
import sys
from collections.abc import Callable, Iterable
from typing import Any

import httpcore
import httpx

from rankterm.wire.errors import NeverSent, Offline, clean_text

__all__ = ["address_problem", "http_client", "offline", "pooled_transport"]

_NOT_IN_A_HOST = re.compile(r"[\s\x00-\x1f\x7f<>\"{}|\\^`\[\]]")


def address_problem(url: str) -> str | None:
    """Why `url` cannot be a service's base URL, as the rest of a sentence that starts "The base URL …"
    ("must have a port from 1 to 65535, not \"99999\""); None when it can be connected to.

    Checked by hand rather than with urllib (whose errors name no value, and which lets an empty host or a
    port of 0 through) or httpx (which lets a port of 99999 through to the socket layer's OverflowError)."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return "must start with http:// or https:// and name a host"
    host_port = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
    if host_port.startswith("["):
        host, closed, after = host_port[1:].partition("]")
        if not closed:
            return f'must close the brackets of its IPv6 host, as in http://[::1]:8765/ (not "{clean_text(host_port, 60)}")'
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f'must have an IPv6 address in its brackets, not "{clean_text(host, 60)}"'
        if after and not after.startswith(":"):
            return f'must have only ":" and a port after its IPv6 host, not "{clean_text(after, 60)}"'
        port = after[1:] if after else ""
    elif host_port.count(":") > 1:
        return "must write an IPv6 host in brackets, as in http://[::1]:8765/"
    else:
        host, _, port = host_port.partition(":")
        if not host:
            return "must name a host"
        if _NOT_IN_A_HOST.search(host):
            return f'must name a host without spaces or symbols, not "{clean_text(host, 60)}"'
    if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        return f'must have a port from 1 to 65535, not "{clean_text(port, 20)}"'
    return None


_NOT_ASKED: Any = object()


def offline(endpoint: str, exc: httpx.TransportError) -> Offline:
    """`exc`, met calling `endpoint`, as the client raises it: `NeverSent` when no connection could be made
    (refused, unreachable, or not made in time), else `Offline` (the request may have reached the service)."""
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return NeverSent(endpoint, reason)
    return Offline(endpoint, reason)


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
