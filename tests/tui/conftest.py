"""Shared fixtures of the TUI tests: a fresh in-process demo group per test, with time frozen.

    def test_x(make_app):                 # sync test: fine for snap_compare
        app = make_app()                  # RanktermApp on the demo client, ids "rt-test-0001", ...
    async def test_y(make_app, demo_client):
        async with make_app().run_test(size=(80, 24)) as pilot: ...

`make_app()` opens the demo group as `rankterm demo` does: its mirror starts as the demo's kept mirror (the
held matches and tonight's story, made by cli/demo_mirror.py once a worker's demo is seeded, copied per
app), so the app's first sync only checks the newest page. Reading and walking the demo's 300 matches took
half of an app's start. A test about the first sync from an empty mirror passes `client=demo_client`.

A pilot's wait for an idle app (after each key, at each pause) asks the event loop whether anything is left to
run (tests/support/idle.py) instead of sleeping 20 ms stretches until one is quiet.

Every test runs with RANKTERM_CONFIG / RANKTERM_CACHE_DIR / RANKTERM_DATA_DIR in its own tmp folder, so
nothing touches the real config, token cache or user themes, and in UTC (`TZ=UTC`: the seat's time zone is
the machine's unless the config names one), so that what a screen shows does not depend on the machine.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from rankterm.client.auth import HeldToken, Token
from rankterm.client.client import RankingClient
from rankterm.config import Config, Profile
from rankterm.mirror import Group
from tests.seat_env import use_home, utc_seat  # noqa: F401  (utc_seat, autouse: every TUI test runs in UTC)
from tests.support import idle
from tests.support.collector import (  # noqa: F401  (for the tests of when the collector runs)
    collections_seen,
    pythons_collector,
)
from tests.support.faults import FaultyTransport
from tests.support.textual_css import own_css_parsing, shared_css  # noqa: F401  (autouse: CSS parsed once a worker)

from .pilot import settle

FROZEN_NOW = 1_780_000_000.0
"""2026-05-28 20:26:40 UTC: the demo service's clock and the client's, in every TUI test."""

DEMO_URL = "http://demo.rankterm/"


def frozen_clock() -> float:
    return FROZEN_NOW


@dataclass
class DemoService:
    """The embedded service in-process: its ASGI app and the demo client's credentials."""

    asgi: Any
    key: str
    secret: str

    def client(self, key: str | None = None, secret: str | None = None) -> RankingClient:
        """A client on the demo group. With the demo's own credentials it starts holding a token minted
        in-process, as `rankterm demo`'s does: its first read does not wait for the service to check the
        secret (scrypt, about 0.07 s of CPU a test); other credentials ask the service."""
        from rankterm.server.seed import demo_token  # only tests may reach the server package

        held = None
        if key in (None, self.key) and secret in (None, self.secret):
            token = demo_token(self.asgi, FROZEN_NOW)
            held = HeldToken(Token.parse(token)) if token else None
        return RankingClient.in_process(
            self.asgi,
            key=self.key if key is None else key,
            secret=self.secret if secret is None else secret,
            base_url=DEMO_URL,
            clock=frozen_clock,
            token_cache=held,
        )

    def downable_client(self) -> tuple[RankingClient, FaultyTransport]:
        """A client whose network can be cut (`transport.down = True`), with no retries or backoff."""
        transport = FaultyTransport(httpx.ASGITransport(app=self.asgi))
        http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
        client = RankingClient(
            DEMO_URL, key=self.key, secret=self.secret, http=http, clock=frozen_clock, retries=0, backoff=0
        )
        return client, transport


@pytest.fixture(autouse=True)
def isolated_paths(tmp_path, monkeypatch):
    """Config, token cache, data and user themes live in this test's tmp folder; live updates are off."""
    use_home(monkeypatch, tmp_path)
    monkeypatch.setenv("RANKTERM_LIVE_EVERY", "0")  # no probe unless a test asks (test_live sets its own)
    return tmp_path


@pytest.fixture(autouse=True)
def quick_idle_waits(monkeypatch):
    """The pilot's and the key presses' waits for an idle app ask the event loop (tests/support/idle.py)."""
    idle.install(monkeypatch)


def _new_demo_service() -> DemoService:
    from rankterm.server.seed import demo_app  # only tests may reach the server package

    asgi, key, secret = demo_app(clock=frozen_clock)
    return DemoService(asgi, key, secret)


@pytest.fixture
def demo_service() -> DemoService:
    """A fresh copy of the demo group."""
    return _new_demo_service()


@pytest.fixture
def demo_client(demo_service: DemoService) -> RankingClient:
    """A client on this test's fresh demo group (frozen clock). The app closes it when it exits."""
    return demo_service.client()


class KeptDemo:
    """The demo's kept mirrors of this worker, made by `rankterm demo`'s own code (cli/demo_mirror.py) in a cache
    folder of their own, one a seeding of the demo: the kept file is named by the seeding it was made from, and a
    process seeds the day's demo again, with new ids, when a test of another day came between."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.players: dict[Path, frozenset[str] | None] = {}
        """Each kept mirror's demo players (None: the mirror could not be made)."""

    def start(self, service: DemoService, client: RankingClient) -> RankingClient | Group:
        """`client`'s group, its mirror a copy of the kept one (as `rankterm demo` starts); `client` alone (an
        empty mirror) when no kept mirror is of `service`'s seeding (a test that seeded another day's demo
        after `service` was made)."""
        from rankterm.cli.demo_mirror import demo_group, mirror_file

        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKTERM_CACHE_DIR", str(self.folder))
            path = mirror_file(FROZEN_NOW)
            if path not in self.players:
                self.players[path] = self.make(path)
            kept = self.players[path]
            if kept is None or not kept <= demo_players(service):  # a test may have added players: a subset
                return client
            return demo_group(lambda: client)

    def make(self, path: Path) -> frozenset[str] | None:
        """Keep the mirror at `path` of a fresh copy of the process's demo, in a thread (`demo_group` makes none
        on a running event loop: an async test's): its players, None when it was not made."""
        made: list[DemoService] = []
        failed: list[BaseException] = []

        def make_client() -> RankingClient:
            made.append(_new_demo_service())
            return made[-1].client()

        def keep() -> None:
            from rankterm.cli.demo_mirror import demo_group

            try:
                group = demo_group(make_client)
                asyncio.run(group.aclose())
                group.mirror.close()
            except BaseException as exc:
                failed.append(exc)

        thread = threading.Thread(target=keep)
        thread.start()
        thread.join()
        if failed:
            raise failed[0]
        players = {demo_players(service) for service in made}
        return players.pop() if path.exists() and len(players) == 1 else None


def demo_players(service: DemoService) -> frozenset[str]:
    """The ids of the demo group's players."""
    from rankterm.server.seed import DEMO_KEY  # only tests may reach the server package

    store = service.asgi.state.store
    group = store.client_by_key(DEMO_KEY).group_id
    ids: set[str] = set()
    page, pages = 1, 1
    while page <= pages:
        read = store.players_page(group, page)
        ids.update(p.id for p in read.data)
        page, pages = page + 1, read.total_pages
    return frozenset(ids)


@pytest.fixture(scope="session")
def kept_demo(tmp_path_factory: pytest.TempPathFactory) -> KeptDemo:
    """The demo's kept mirror of this worker."""
    return KeptDemo(tmp_path_factory.mktemp("kept-demo"))


def fixed_ids() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"rt-test-{next(counter):04d}"


@pytest.fixture
def make_app(
    demo_service: DemoService, demo_client: RankingClient, kept_demo: KeptDemo
) -> Callable[..., Any]:
    """`make_app(**kw)`: a RanktermApp on `demo_client`, its mirror started from the kept one (unless `client`
    is given); keywords override any constructor argument.

    `demo_factory` makes a fresh demo group (frozen clock); `client_factory(profile)` makes a client on this
    test's demo service with the profile's key and secret, so a profile can be tested without a network.
    """
    from rankterm.tui.app import RanktermApp

    def client_factory(profile: Profile) -> RankingClient:
        return demo_service.client(profile.key, profile.resolve_secret())

    def build(**kw: Any) -> RanktermApp:
        args: dict[str, Any] = {
            "config": Config(),
            "client": demo_client,
            "demo": True,
            "demo_factory": lambda: _new_demo_service().client(),
            "client_factory": client_factory,
            "id_factory": fixed_ids(),
        }
        if "client" not in kw:
            args["client"] = kept_demo.start(demo_service, demo_client)
        args.update(kw)
        return RanktermApp(**args)

    return build


@pytest.fixture
def wait() -> Callable[..., Any]:
    """`await wait(pilot, delay=0.0)`: see `settle`."""
    return settle
