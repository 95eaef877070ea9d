"""The client's own HTTP transport (`rankterm.client.pool`, `rankterm.client.transport`) over real sockets on 127.0.0.1.

The embedded service under uvicorn for real requests; a bare asyncio server where the server must do what
the service never does (close a kept-alive connection while the client holds it idle).
"""

from __future__ import annotations

import asyncio
import ssl

import httpx
import pytest

from rankterm.client import pool, transport
from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.store import Store
from tests.support.live import UvicornThread

KEY, SECRET = "transport-key", "transport-secret"
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=24)


async def test_a_whole_list_over_a_real_socket_through_the_pool(tmp_path):
    store = Store(tmp_path / "service.db")
    group = store.create_group("Transport")
    store.create_client(group, key=KEY, secret=SECRET)
    for i in range(25 * 12 + 3):
        store.create_player(group, f"Player {i:03d}")
    expected = [p.id for n in range(1, 14) for p in store.players_page(group, n).data]
    server = UvicornThread(create_app(store))
    server.start()
    try:
        http = httpx.AsyncClient(transport=pool.pooled_transport(True, LIMITS))
        client = RankingClient(server.base_url, key=KEY, secret=SECRET, http=http)
        players = await Group(client).players(refresh=True)
        again = await Group(client).players_page(2)  # on a connection the pool kept
        await http.aclose()
    finally:
        server.stop()
        store.close()
    assert [p.id for p in players] == expected
    assert [p.id for p in again.data] == expected[25:50]


class OneAnswerServer:
    """Answers each connection's first request (keep-alive promised), then closes that connection itself."""

    def __init__(self) -> None:
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await reader.readuntil(b"\r\n\r\n")
        body = f"connection {self.connections}".encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.close()

    async def __aenter__(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


async def test_a_connection_the_server_closed_while_idle_is_not_used_again():
    """The pool sees the closed socket readable (its end of stream) and opens a new connection.

    Were the idle check wrong (the socket never asked, or asked of the wrong stream), the second request
    would go out on the closed connection and fail with "Server disconnected without sending a response".
    """
    served = OneAnswerServer()
    async with served as port, httpx.AsyncClient(transport=pool.pooled_transport(True, LIMITS)) as http:
        first = await http.get(f"http://127.0.0.1:{port}/a")
        await asyncio.sleep(0.3)  # the server has closed the connection the pool keeps
        second = await http.get(f"http://127.0.0.1:{port}/b")
    assert (first.text, second.text) == ("connection 1", "connection 2")


async def test_the_raw_socket_is_asked_once_per_stream(monkeypatch):
    asked: list[str] = []

    class Inner(pool.httpcore.AsyncNetworkStream):
        def get_extra_info(self, info: str) -> object:
            asked.append(info)
            return None if info != "socket" else self.sock

        sock = None

    import socket

    a, b = socket.socketpair()
    try:
        inner = Inner()
        inner.sock = a
        stream = pool._Stream(inner)
        assert [stream.get_extra_info("is_readable") for _ in range(5)] == [False] * 5
        b.sendall(b"x")
        assert stream.get_extra_info("is_readable") is True
        assert asked == ["socket"]
        assert stream.get_extra_info("server_addr") is None and asked == ["socket", "server_addr"]
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("verify", [True, False])
def test_tls_is_verified_as_httpx_verifies_it(verify):
    made = pool.pooled_transport(verify, LIMITS)
    context = made._pool._ssl_context
    reference = httpx.create_ssl_context(verify=verify)
    assert (context.verify_mode, context.check_hostname) == (reference.verify_mode, reference.check_hostname)
    assert context.verify_mode == (ssl.CERT_REQUIRED if verify else ssl.CERT_NONE)
    assert len(context.get_ca_certs()) == len(reference.get_ca_certs())


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.1.20:8765/",
        "https://api.example.org/public/api/1/",
        "http://[::1]:8765/",
        "HTTP://Host",
        "http://user:pw@host:1/",
        "http://host:65535/",
        "http://host:/",
    ],
)
def test_a_usable_base_url_has_no_problem(url):
    assert transport.address_problem(url) is None


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://127.0.0.1:99999/", 'must have a port from 1 to 65535, not "99999"'),
        ("http://127.0.0.1:abc/", 'must have a port from 1 to 65535, not "abc"'),
        ("http://127.0.0.1:0/", 'must have a port from 1 to 65535, not "0"'),
        ("http://[::1]:70000/", 'must have a port from 1 to 65535, not "70000"'),
        ("http://[::1/", "must close the brackets of its IPv6 host"),
        ("http://[zz]:80/", 'must have an IPv6 address in its brackets, not "zz"'),
        ("http://::1/", "must write an IPv6 host in brackets"),
        ("http://:80/", "must name a host"),
        ("http://user@/", "must name a host"),
        ("http://exa mple/", 'must name a host without spaces or symbols, not "exa mple"'),
        ("ftp://x/", "must start with http:// or https://"),
        ("127.0.0.1:8765", "must start with http:// or https://"),
    ],
)
def test_a_base_url_no_request_can_use_says_why(url, problem):
    said = transport.address_problem(url)
    assert said is not None and said.startswith(problem) and "\n" not in said
