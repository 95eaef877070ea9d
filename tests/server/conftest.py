"""Fixtures of the embedded service's tests: a store on each engine, its app, an HTTP client over ASGI.

`store` runs every test that uses it twice: on a SQLite file under ``tmp_path`` and on a fresh PostgreSQL
database of the run's throwaway server (`pg_cluster`). Without PostgreSQL's binaries, Debian's package is
installed before the run (tests/needs.py); when that fails, the PostgreSQL half fails with its reason.

Everything goes through HTTP (httpx on `ASGITransport`), as a real client would. `Api` wraps the client
with the token and small helpers (`ok` asserts a success envelope and returns its payload, `error`
asserts an error envelope with a given code and status). Tests that need a lived-in group use the demo
(seeded once per process, copied per test: cheap).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.server.store import Store
from rankterm.server.wire import status_for_code
from tests.conftest import postgres_url
from tests.support.clock import SettableClock

ENGINES = ("sqlite", "postgresql")

BASE_URL = "http://rankterm.test/"


Clock = SettableClock


@dataclass
class Api:
    """An HTTP client on the service, with the token of one client once `login` ran."""

    http: httpx.AsyncClient
    key: str
    secret: str
    token: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    async def login(self) -> str:
        response = await self.http.get("auth", params={"key": self.key, "secret": self.secret})
        assert response.status_code == 200, response.text
        self.token = response.json()["success"]["token"]
        self.headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        return self.token

    async def get(self, path: str, **params: Any) -> httpx.Response:
        return await self.http.get(path, params=params or None, headers=self.headers)

    async def post(
        self, path: str, *, params: dict | None = None, headers: dict | None = None, **kw: Any
    ) -> httpx.Response:
        return await self.http.post(path, params=params, headers={**self.headers, **(headers or {})}, **kw)

    @staticmethod
    def payload(response: httpx.Response) -> Any:
        assert response.status_code == 200, response.text
        body = response.json()
        assert set(body) == {"success"}, body
        return body["success"]

    async def ok(self, path: str, **params: Any) -> Any:
        return self.payload(await self.get(path, **params))

    @staticmethod
    def check_error(response: httpx.Response, code: str, status: int | None = None) -> str:
        body = response.json()
        assert set(body) == {"errors"}, body
        assert [set(e) for e in body["errors"]] == [{"code", "message"}], body
        assert body["errors"][0]["code"] == code, body
        assert response.status_code == (status or status_for_code(code)), (response.status_code, body)
        return body["errors"][0]["message"]

    async def error(self, path: str, code: str, status: int | None = None, **params: Any) -> str:
        return self.check_error(await self.get(path, **params), code, status)

    async def player(self, name: str) -> str:
        return self.payload(await self.post("players/player", params={"name": name}))[0]["id"]

    async def game(self, name: str) -> int:
        return self.payload(await self.post("games/game", params={"name": name}))[0]["id"]

    async def add(self, *matches: dict, dryrun: bool = False) -> dict:
        params = {"dryrun": 1} if dryrun else None
        return self.payload(await self.post("matches/match", params=params, json=list(matches)))


def duel(game: int, winner: str, loser: str, **extra: Any) -> dict:
    """A new match (wire form) where `winner` beats `loser`."""
    return {
        "game": game,
        "weight": "normal",
        "factions": [{"players": [winner], "rank": 1, "points": "10"}, {"players": [loser], "rank": 2}],
        **extra,
    }


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def db(engine: str, tmp_path) -> str:
    """Where the test's store lives: a SQLite file, or a fresh PostgreSQL database's URL."""
    return str(tmp_path / "service.db") if engine == "sqlite" else postgres_url()


@pytest.fixture
def store(db, clock) -> Iterator[Store]:
    s = Store(db, clock=clock)
    yield s
    s.close()


@pytest.fixture
def credentials(store) -> tuple[int, str, str]:
    """(group id, key, secret) of the one client of a fresh group."""
    group = store.create_group("Test group")
    key, secret = store.create_client(group)
    return group, key, secret


@pytest.fixture
def app(store) -> Starlette:
    return create_app(store)


async def _client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
        yield http


@pytest.fixture
async def http(app) -> AsyncIterator[httpx.AsyncClient]:
    async for client in _client(app):
        yield client


@pytest.fixture
async def api(http, credentials) -> Api:
    """A logged-in client of a fresh, empty group."""
    _, key, secret = credentials
    client = Api(http, key, secret)
    await client.login()
    return client


@pytest.fixture
async def players3(api) -> list[str]:
    return [await api.player(name) for name in ("Ann", "Bob", "Cy")]


@pytest.fixture
def demo(clock) -> Store:
    """An independent copy of the seeded demo group."""
    return demo_store(clock=clock)


@pytest.fixture
async def demo_api(demo) -> AsyncIterator[Api]:
    async for http in _client(create_app(demo)):
        client = Api(http, DEMO_KEY, DEMO_SECRET)
        await client.login()
        yield client
