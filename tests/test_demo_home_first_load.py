"""`rankterm demo`'s first screen, Home, while the demo group is opened, then with its data; and the Service
screen's first load: no spinner until one helps."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rankterm.client.client import RankingClient
from rankterm.config import Config
from rankterm.tui.screens import service
from rankterm.tui.screens.home import HomeScreen
from rankterm.tui.screens.service import ServiceScreen

PANELS = ("service-status", "service-counters", "service-quota")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One cache dir for the module: the demo group is seeded once, then copied."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def isolated_paths(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(cache_dir))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RANKTERM_LIVE_EVERY", "0")


@pytest.fixture
def spins(monkeypatch) -> list[set]:
    """Each time the Service screen's first load showed spinners: the panels still waiting then."""
    seen: list[set] = []
    real = ServiceScreen._spin

    def spin(panels, waiting):
        seen.append(set(waiting))
        real(panels, waiting)

    monkeypatch.setattr(ServiceScreen, "_spin", staticmethod(spin))
    return seen


def demo_client() -> RankingClient:
    from rankterm.server.seed import demo_app

    asgi, key, secret = demo_app(clock=lambda: 1_780_000_000.0)
    return RankingClient.in_process(asgi, key=key, secret=secret, clock=lambda: 1_780_000_000.0)


def app_opening(factory):
    from rankterm.tui.app import RanktermApp

    return RanktermApp(config=Config(), client=None, demo=True, demo_factory=factory)


def loading(app) -> list[str]:
    return [name for name in PANELS if app.screen.query_one(f"#{name}").loading]


def text(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def settled(pilot) -> None:
    for _ in range(2):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_home_shows_at_once_while_the_demo_group_is_opened_then_its_data(monkeypatch):
    gate = threading.Event()
    client = demo_client()

    def factory() -> RankingClient:
        gate.wait(10)
        return client

    app = app_opening(factory)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        assert isinstance(app.screen, HomeScreen) and app.client is None  # still opening
        assert text(app, "#home-title") == "Home — opening the built-in demo…"
        assert text(app, "#home-note") == ""  # said once, in the title
        assert "new match" in text(app, "#home-keys")  # what comes next is there from the first paint
        gate.set()
        await settled(pilot)
        assert app.client is client
        assert text(app, "#home-title").endswith("· after match 300")
        assert "Ada" in text(app, "#home-standings") and "#300" in text(app, "#home-last")
        assert text(app, "#home-tonight").startswith("Last game night")


async def test_no_spinner_on_the_service_screen_before_its_quick_figures(spins, monkeypatch):
    monkeypatch.setattr(service, "SPINNER_AFTER", 60.0)  # answers quicker than that: no spinner
    app = app_opening(demo_client)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("d")
        await settled(pilot)
        assert isinstance(app.screen, ServiceScreen)
        assert "300" in text(app, "#service-counters-text")
        assert loading(app) == [] and spins == []  # the figures came before any spinner was due


async def test_a_slow_first_answer_gets_spinners_on_the_panels_still_waiting(spins, monkeypatch):
    monkeypatch.setattr(service, "SPINNER_AFTER", 0.05)
    client = demo_client()
    real_quota = client.quota
    answer = asyncio.Event()

    async def slow_quota():
        await answer.wait()
        return await real_quota()

    app = app_opening(lambda: client)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)  # Home, with its data
        client.quota = slow_quota  # type: ignore[method-assign]
        await pilot.press("d")
        for _ in range(500):  # until status and counters are shown (quota is held)
            await pilot.pause(0.02)
            if text(app, "#service-counters-text").strip():
                break
        await pilot.pause(0.1)  # past SPINNER_AFTER
        assert loading(app) == ["service-quota"]  # the one panel still waiting spins
        answer.set()
        await settled(pilot)
        assert loading(app) == []
        assert len(spins) == 1 and "service-quota" in spins[0]
        assert app.screen.query("UsageBar")
