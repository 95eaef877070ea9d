"""Fixtures of the end-to-end tests: the embedded service behind rankterm's own `RankingClient`.

One service, two transports (the `service` fixture is parametrized over both):

- ``asgi``: `RankingClient.in_process(create_app(store))`, httpx on `ASGITransport`: real HTTP semantics,
  no socket;
- ``socket``: uvicorn serving `create_app(store)` on 127.0.0.1, port 0 (any free one), in a background
  thread with its own event loop, started and stopped by the fixture; the client is a plain
  `RankingClient("http://127.0.0.1:<port>/")`.

The store is a SQLite file under ``tmp_path``; in a module marked ``both_engines`` (the contract tests) every
test runs on that and on a fresh database of the run's throwaway PostgreSQL too (`engine`, from
tests/server/pg_cluster.py; installed before the run when missing, tests/needs.py). `Service.restart` stops
the server, closes the store, opens a new `Store` on the same database and serves it again (a new port for
the socket). Store, app and clients share a
settable `Clock`, so token expiry and quota buckets are decided by the test, not by the wall clock.

A pilot's wait for an idle app asks the event loop (tests/support/idle.py), as in tests/tui.

Every test runs in UTC (`TZ=UTC`, `tests.seat_env.utc_seat`), as the TUI's and the command line's do: a seat
shows times in this machine's zone, so what a test reads must not depend on the machine.

Every client made with `Service.client` carries a `Recorder` (httpx event hooks) that keeps what went over
the wire: method, path, query, Authorization header, body and status, in order.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from rankterm.cli import make_outbox
from rankterm.client.auth import TokenCache
from rankterm.client.client import RankingClient
from rankterm.config import Config, mirror_path, token_cache_path
from rankterm.mirror import Group, Mirror
from rankterm.server.app import create_app
from rankterm.server.rankings import NEWCOMER_REE
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store, seed_demo
from rankterm.server.store import Store
from rankterm.tui.app import RanktermApp
from rankterm.wire.ids import service_scope
from rankterm.wire.models import Game, NewFaction, NewMatch, Player, RankingRow, RankingsPage, Weight
from tests.conftest import postgres_url
from tests.seat_env import use_home, utc_seat  # noqa: F401  (utc_seat, autouse: every e2e test runs in UTC)
from tests.server.pg_cluster import cluster
from tests.support import idle
from tests.support.clock import SettableClock
from tests.support.live import UvicornThread
from tests.support.textual_css import shared_css  # noqa: F401  (autouse: CSS parsed once a worker)

TRANSPORTS = ("asgi", "socket")
IN_PROCESS_URL = "http://in-process.rankterm/"


Clock = SettableClock


@pytest.fixture(autouse=True)
def quick_idle_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """An app's pilot waits for the app to be idle by asking the event loop (tests/support/idle.py)."""
    idle.install(monkeypatch)


@dataclass
class Exchange:
    """One request as it went over the wire, and its answer's status once it came back."""

    method: str
    path: str
    query: dict[str, str]
    authorization: str | None
    body: Any
    status: int | None = None


@dataclass
class Recorder:
    """What a client sent and got back, from httpx's event hooks."""

    exchanges: list[Exchange] = field(default_factory=list)
    _open: dict[int, Exchange] = field(default_factory=dict)

    async def on_request(self, request: httpx.Request) -> None:
        body = None
        if request.content:
            try:
                body = json.loads(request.content)
            except ValueError:
                body = request.content
        exchange = Exchange(
            request.method,
            request.url.path.lstrip("/"),
            dict(request.url.params),
            request.headers.get("authorization"),
            body,
        )
        self.exchanges.append(exchange)
        self._open[id(request)] = exchange

    async def on_response(self, response: httpx.Response) -> None:
        exchange = self._open.pop(id(response.request), None)
        if exchange is not None:
            exchange.status = response.status_code

    @property
    def paths(self) -> list[str]:
        return [e.path for e in self.exchanges]

    def count(self, path: str) -> int:
        return self.paths.count(path)

    def clear(self) -> None:
        self.exchanges.clear()


class Service:
    """The embedded service over one database, served in-process or on a socket; see the module docstring."""

    def __init__(self, transport: str, path: Path | str, clock: Clock) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(transport)
        self.transport = transport
        self.path = path
        self.clock = clock
        self.store = Store(path, clock=clock)
        self.app: Any = None
        self.base_url = ""
        self._server: UvicornThread | None = None
        self._clients: list[RankingClient] = []

    def serve(self, **app_kw: Any) -> str:
        """(Re)start serving the current store with `create_app(store, **app_kw)`; return the base URL."""
        self.stop()
        self.app = create_app(self.store, **app_kw)
        if self.transport == "socket":
            self._server = UvicornThread(self.app)
            self.base_url = f"http://127.0.0.1:{self._server.start()}/"
        else:
            self.base_url = IN_PROCESS_URL
        return self.base_url

    def stop(self) -> None:
        """Stop the server (socket transport); an in-process app simply stops being used."""
        if self._server is not None:
            self._server.stop()
            self._server = None
        self.app = None

    def restart(self, **app_kw: Any) -> Store:
        """Stop serving, close the store, open a new `Store` on the same file and serve it; return it."""
        self.stop()
        self.store.close()
        self.store = Store(self.path, clock=self.clock)
        self.serve(**app_kw)
        return self.store

    def client(self, key: str, secret: str, **kw: Any) -> RankingClient:
        """A `RankingClient` on the service as served now, with a `Recorder` as `.recorder`."""
        assert self.app is not None, "serve() first"
        kw.setdefault("clock", self.clock)
        if self.transport == "socket":
            client = RankingClient(self.base_url, key=key, secret=secret, **kw)
        else:
            client = RankingClient.in_process(self.app, key=key, secret=secret, base_url=self.base_url, **kw)
        recorder = Recorder()
        client.http.event_hooks = {"request": [recorder.on_request], "response": [recorder.on_response]}
        client.recorder = recorder  # type: ignore[attr-defined]
        self._clients.append(client)
        return client

    async def close_clients(self) -> None:
        clients, self._clients = self._clients, []
        for client in clients:
            await client.aclose()

    async def aclose(self) -> None:
        await self.close_clients()
        self.stop()
        self.store.close()


@dataclass(frozen=True)
class Member:
    """A group of the service and the credentials of one of its API clients."""

    group_id: int
    key: str
    secret: str


# ---------------------------------------------------------------------- helpers shared by the tests


def duel(game: Game | int, winner: Player, loser: Player, **kw) -> NewMatch:
    """A new match where `winner` beats `loser` (10 to 4)."""
    return NewMatch(
        game=game.id if isinstance(game, Game) else game,
        weight=kw.pop("weight", Weight.NORMAL),
        factions=[
            NewFaction(players=[winner.id], rank=1, points="10"),
            NewFaction(players=[loser.id], rank=2, points="4"),
        ],
        **kw,
    )


async def ghosts(client: RankingClient | Group, *names: str) -> list[Player]:
    """New ghost players, made through the client."""
    client = Group.of(client)  # a client: read through its group
    return [await client.create_player(name) for name in names]


def check_standings(rows: list[RankingRow]) -> None:
    """Positions 1..N in order of ree (highest first)."""
    assert [r.position for r in rows] == list(range(1, len(rows) + 1))
    rees = [r.ree for r in rows]
    assert rees == sorted(rees, reverse=True)
    assert all(r.ree > 1000 for r in rows)


def check_deltas(before: list[RankingRow], after: list[RankingRow], participants: set[str]) -> None:
    """`after`'s deltas are exactly the step from `before` (the standings after the previous match)."""
    check_standings(after)
    prev = {r.player.id: r for r in before}
    assert set(prev) <= {r.player.id for r in after}
    for row in after:
        pid = row.player.id
        old = prev.get(pid)
        if old is None:  # a newcomer, in this very match
            assert pid in participants
            assert row.delta_position == 0
            assert row.delta_ree == pytest.approx(row.ree - NEWCOMER_REE, abs=0.011)
        else:
            assert row.delta_ree == pytest.approx(row.ree - old.ree, abs=0.011)
            assert row.delta_position == old.position - row.position
        if pid not in participants:
            assert row.delta_ree == 0


def participants(page: RankingsPage) -> set[str]:
    """Ids of the players of the match a rankings page was computed after."""
    return {p.id for f in page.match.factions for p in f.players}


@pytest.fixture
def seat_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The seat's RANKTERM_* directories under ``tmp_path`` (`use_home`); returns ``tmp_path``."""
    use_home(monkeypatch, tmp_path)
    return tmp_path


def club_seat(base_url: str, clock: SettableClock) -> RanktermApp:
    """The app as `rankterm --profile club` builds it on the demo group at `base_url`: token cache, mirror
    and outbox on disk, in the RANKTERM_* directories as they are set now."""
    client = RankingClient(
        base_url,
        key=DEMO_KEY,
        secret=DEMO_SECRET,
        token_cache=TokenCache(token_cache_path()),
        clock=clock,
        retries=0,
        timeout=2.0,
    )
    mirror = Mirror(mirror_path(base_url, DEMO_KEY), service_scope(base_url, DEMO_KEY), clock=clock)
    return RanktermApp(config=Config(), client=Group(client, mirror), outbox_factory=make_outbox)


class DemoOnSocket:
    """The demo group (`demo_store` on `clock`) served on 127.0.0.1, any free port, as `rankterm serve` serves
    it; the test stops it and starts it again at the same address."""

    def __init__(self, clock: SettableClock) -> None:
        self.clock = clock
        self.store = demo_store(clock=clock)
        self.server = UvicornThread(create_app(self.store, clock=clock))
        self.port = self.server.start()
        self.base_url = self.server.base_url

    def stop(self) -> None:
        self.server.stop()

    def start_again(self) -> None:
        """Serve the same store again, at the same port."""
        self.server = UvicornThread(create_app(self.store, clock=self.clock), port=self.port)
        self.server.start()

    def close(self) -> None:
        """Stop serving, unless the test stopped it last."""
        if self.server.thread.is_alive():
            self.server.stop()


@contextmanager
def demo_on_socket(clock: SettableClock) -> Iterator[DemoOnSocket]:
    """`DemoOnSocket` for the ``with`` block."""
    service = DemoOnSocket(clock)
    try:
        yield service
    finally:
        service.close()


def demo_reader(store: Store) -> Group:
    """A fresh in-process group of the demo on `store` (on its clock, its mirror in memory), to read what the
    service holds; use it as ``async with``."""
    return Group(
        RankingClient.in_process(create_app(store, clock=store.clock), key=DEMO_KEY, secret=DEMO_SECRET)
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "both_engines: run each test on SQLite and on PostgreSQL")


ENGINE_RUNS = (("asgi", "sqlite"), ("socket", "sqlite"), ("asgi", "postgresql"))
"""What a ``both_engines`` test runs on: PostgreSQL behind the in-process transport only (the transport is
the same code for both engines; test_workers.py serves PostgreSQL over a real socket, from real workers)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test of the service runs over each transport (`transport`); a ``both_engines`` one, on each
    of `ENGINE_RUNS`."""
    if "transport" not in metafunc.fixturenames:
        return
    if metafunc.definition.get_closest_marker("both_engines"):
        metafunc.parametrize(("transport", "engine"), ENGINE_RUNS, ids=["-".join(r) for r in ENGINE_RUNS])
    else:
        metafunc.parametrize("transport", TRANSPORTS)


@pytest.fixture
def engine() -> str:
    """SQLite, unless the module is marked ``both_engines`` (then each test runs on both)."""
    return "sqlite"


@pytest.fixture
def transport() -> str:
    """Parametrized by `pytest_generate_tests` (each of `TRANSPORTS`)."""
    return "asgi"


@pytest.fixture
async def service(transport: str, engine: str, tmp_path: Path, clock: Clock) -> AsyncIterator[Service]:
    """The service on ``tmp_path/service.db`` (or PostgreSQL), served with the default options, over each
    transport."""
    db = tmp_path / "service.db" if engine == "sqlite" else postgres_url()
    svc = Service(transport, db, clock)
    svc.serve()
    try:
        yield svc
    finally:
        await svc.aclose()
        await asyncio.sleep(0)


@pytest.fixture
def member(service: Service) -> Member:
    """A fresh, empty group with one API client, made through the Store API."""
    group = service.store.create_group("E2E group")
    key, secret = service.store.create_client(group)
    return Member(group, key, secret)


@pytest.fixture
def client(service: Service, member: Member) -> RankingClient:
    """A `RankingClient` of `member` (closed by `service`'s teardown)."""
    return service.client(member.key, member.secret)


@pytest.fixture
def group(client: RankingClient) -> Group:
    """`client`'s group: its reads through a mirror in memory."""
    return Group(client)


@pytest.fixture
def demo(service: Service, engine: str) -> Member:
    """The demo group, seeded with `seed_demo` into the service's file store (on PostgreSQL: the service
    restarted on a copy of a database seeded once per run, the same group)."""
    if engine == "sqlite":
        key, secret = seed_demo(service.store)
    else:
        service.path = cluster().demo_url()
        service.restart()
        key, secret = DEMO_KEY, DEMO_SECRET
    group = next(g for g, _ in service.store.groups())
    return Member(group, key, secret)


@pytest.fixture
def demo_client(service: Service, demo: Member) -> RankingClient:
    return service.client(demo.key, demo.secret)


@pytest.fixture
def served() -> Iterator[str]:
    """The demo group on 127.0.0.1 (any free port), on a real socket: the service a host's or web server's
    profile names (the seat tests: test_host, test_guest_seats, test_warm_seats, test_web_warm_seats)."""
    from rankterm.server.seed import demo_app
    from tests.support.live import serve_in_thread

    asgi, _, _ = demo_app()
    with serve_in_thread(asgi) as base_url:
        yield base_url


@pytest.fixture
def host(room: dict[str, str]) -> Iterator[Any]:
    """`rankterm --profile room host` on 127.0.0.1, any free port (no join code on loopback), with the
    environment of the test module's own `room` fixture; a `tests.support.ssh.RunningHost`."""
    from tests.support.ssh import start_host

    with start_host(["--profile", "room"], room) as running:
        yield running
