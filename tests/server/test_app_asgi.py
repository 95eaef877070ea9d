"""The service's plain-ASGI plumbing (rankterm/server/asgi.py): odd requests, bodies, threads, lifespan.

Most requests skip Starlette's router; these hold that what the app answers is still what the router made of
a request (odd paths and methods, root paths, a client that leaves mid-body), that the handlers run off the
event loop in the caller's context, and that a remembered token is never taken by another service.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import httpx
import pytest

from rankterm.server import tokens
from rankterm.server.app import create_app
from rankterm.server.asgi import request_path
from rankterm.server.store import Store
from rankterm.server.wire import Fault
from tests.support.held import held_in_thread

from .conftest import BASE_URL, Api


@pytest.fixture
def engine() -> str:
    """SQLite only: the plumbing around the store is the same on both engines."""
    return "sqlite"


async def _call(
    app: Any,
    method: str,
    path: str,
    *,
    root_path: str = "",
    headers: list[tuple[bytes, bytes]] | None = None,
    messages: list[dict] | None = None,
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """One request straight on ASGI (odd scopes httpx cannot make): status, headers, body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode("utf-8"),
        "query_string": b"",
        "root_path": root_path,
        "headers": [(b"host", b"rankterm.test"), *(headers or [])],
        "client": ("127.0.0.1", 5000),
        "server": ("rankterm.test", 80),
    }
    queue = list(messages or [{"type": "http.request", "body": b"", "more_body": False}])
    sent: list[dict] = []

    async def receive() -> dict:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent[0]["status"], sent[0]["headers"], b"".join(m.get("body", b"") for m in sent[1:])


def _error(body: bytes) -> tuple[str, str]:
    error = httpx.Response(200, content=body).json()["errors"][0]
    return error["code"], error["message"]


@pytest.mark.parametrize(
    ("method", "path", "message"),
    [
        ("GET", "/test?x", "No endpoint GET 'test%3Fx'."),  # a decoded %3F, escaped back as the URL did
        ("GET", "/te#st", "No endpoint GET 'te%23st'."),
        ("GET", "/te\\st", "No endpoint GET 'te%5Cst'."),
        ("GET", "/te\nst", "No such endpoint."),  # the route's pattern never matched a newline inside
        ("BREW", "/test", "No such endpoint."),  # Starlette's 405
        ("HEAD", "/test", "No endpoint HEAD 'test'."),
        ("GET", "/\x00", "No endpoint GET '\\x00'."),
    ],
)
async def test_odd_requests_are_r002_as_the_router_answered_them(store, method, path, message):
    status, headers, body = await _call(create_app(store), method, path)
    assert status == 404
    assert (b"content-type", b"application/json") in headers
    assert _error(body) == ("R002", message)


async def test_paths_the_url_cleans_are_answered_as_before(store):
    app = create_app(store)
    for path in ("/test", "/test/", "//test", "/test\t", "/test\n"):
        status, _, body = await _call(app, "GET", path)
        assert (status, body) == (200, b'{"success":{"test":"ok"}}'), path
    status, _, body = await _call(app, "GET", "/ test")
    assert status == 404 and _error(body) == ("R002", "No endpoint GET ' test'.")


async def test_a_root_path_is_left_to_starlette_and_answered_as_before(store):
    app = create_app(store)
    status, _, body = await _call(app, "GET", "/base/test", root_path="/base")
    assert status == 404 and _error(body) == ("R002", "No endpoint GET 'base/test'.")
    status, headers, _ = await _call(app, "GET", "/base", root_path="/base")  # the router's slash redirect
    assert status == 307 and (b"location", b"http://rankterm.test/base/") in headers
    scope = {"type": "http", "method": "GET", "path": "/base/test", "root_path": "/base", "headers": []}
    assert request_path(scope) == "/base/test"


async def test_a_client_that_leaves_mid_body_is_r003_and_nothing_is_recorded(store, credentials):
    _, key, secret = credentials
    app = create_app(store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as http:
        api = Api(http, key, secret)
        await api.login()
    auth = [(b"authorization", f"Bearer {api.token}".encode()), (b"content-type", b"application/json")]
    cut = [{"type": "http.request", "body": b'{"name": "Ha', "more_body": True}, {"type": "http.disconnect"}]
    status, _, body = await _call(app, "POST", "/players/player", headers=auth, messages=cut)
    assert status == 400 and _error(body) == ("R003", "The request was not received whole.")
    pieces = [
        {"type": "http.request", "body": b"", "more_body": True},
        {"type": "http.request", "body": b'{"name": ', "more_body": True},
        {"type": "http.request", "body": b'"Ann"}', "more_body": False},
    ]
    status, _, body = await _call(app, "POST", "/players/player", headers=auth, messages=pieces)
    assert status == 200, body
    assert [p.display_name.strip("*") for p in store.players_page(store.groups()[0][0], 1).data] == ["Ann"]


async def test_writes_run_on_a_worker_thread_in_the_callers_context(api, store, monkeypatch):
    seen: dict[str, Any] = {}
    where = contextvars.ContextVar("where", default="unset")
    original = Store.create_player

    def create_player(self: Store, *args: Any, **kwargs: Any) -> Any:
        seen["thread"] = threading.get_ident()
        seen["context"] = where.get()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Store, "create_player", create_player)
    where.set("the request's")
    await api.player("Ann")
    assert seen["thread"] != threading.get_ident()
    assert seen["context"] == "the request's"


async def test_reads_run_at_once_while_the_store_is_free_else_on_a_worker_thread(api, store, monkeypatch):
    threads: list[int] = []
    original = Store.games

    def games(self: Store, group_id: int) -> Any:
        threads.append(threading.get_ident())
        return original(self, group_id)

    monkeypatch.setattr(Store, "games", games)
    assert await api.ok("games") == []
    assert threads == [threading.get_ident()]  # no hop: one connection behind one lock gains nothing by it

    with held_in_thread(store._read):
        waiting = asyncio.create_task(api.get("games"))
        assert await api.ok("test") == {"test": "ok"}  # the loop stayed free: the read waits in a thread
        assert not waiting.done()
    assert Api.payload(await waiting) == []
    assert threads[1] != threading.get_ident()


async def test_requests_run_side_by_side_while_one_waits_in_its_thread(api, store, monkeypatch):
    release = threading.Event()
    original = Store.create_player

    def slow_create(self: Store, *args: Any, **kwargs: Any) -> Any:
        release.wait(5)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Store, "create_player", slow_create)
    waiting = asyncio.create_task(api.player("Ann"))
    assert await api.ok("test") == {"test": "ok"}  # the loop was free while the write waited
    assert not waiting.done()
    release.set()
    assert (await waiting).strip()


async def test_a_token_once_verified_is_refused_by_another_service(api, credentials, tmp_path, clock):
    group, _, _ = credentials
    assert (await api.get("games")).status_code == 200  # verified, and remembered
    other = Store(tmp_path / "other.db", clock=clock)  # the same ids, another signing key
    try:
        assert other.create_group("Test group") == group
        other.create_client(group)
        transport = httpx.ASGITransport(app=create_app(other))
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
            response = await http.get("games", headers={"Authorization": f"Bearer {api.token}"})
            Api.check_error(response, "A002", 403)
    finally:
        other.close()


def test_remembered_tokens_still_expire_and_the_memory_stays_bounded(monkeypatch):
    key = tokens.new_signing_key()
    token = tokens.mint(key, 7, 3, 1000.0, 60)
    assert tokens.verify(key, token, 1000.0).client_id == 7
    assert tokens.verify(key, token, 1059.0).group_id == 3  # remembered now
    with pytest.raises(Fault) as refused:
        tokens.verify(key, token, 1060.0)
    assert refused.value.code == "A002" and "expired" in refused.value.message
    monkeypatch.setattr(tokens, "VERIFIED_KEPT", 3)
    for client in range(10):
        tokens.verify(key, tokens.mint(key, client, 3, 1000.0, 60), 1000.0)
    assert len(tokens._verified) <= 3


async def test_lifespan_is_still_starlettes(store):
    app = create_app(store)
    queue = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict] = []

    async def receive() -> dict:
        return queue.pop(0)

    async def send(message: dict) -> None:
        sent.append(message)

    await app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
