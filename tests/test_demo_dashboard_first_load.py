"""`rankterm demo`'s dashboard while the demo group is opened, and its first load: no spinner until one helps."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rankterm.client.client import RankingClient
from rankterm.config import Config
from rankterm.tui.screens import dashboard
from rankterm.tui.screens.dashboard import DashboardScreen

PANELS = ("dash-status", "dash-counters", "dash-quota")


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
    """Each time the first load showed spinners: the panels still waiting then."""
    seen: list[set] = []
    real = DashboardScreen._spin

    def spin(panels, waiting):
        seen.append(set(waiting))
        real(panels, waiting)

    monkeypatch.setattr(DashboardScreen, "_spin", staticmethod(spin))
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


async def settled(pilot) -> None:
    for _ in range(2):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_no_spinner_while_the_demo_group_is_opened_nor_before_its_quick_figures(spins, monkeypatch):
    monkeypatch.setattr(dashboard, "SPINNER_AFTER", 60.0)  # answers quicker than that: no spinner
    gate = threading.Event()
    client = demo_client()

    def factory() -> RankingClient:
        gate.wait(10)
        return client

    app = app_opening(factory)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        assert isinstance(app.screen, DashboardScreen) and app.client is None  # still opening
        assert loading(app) == []
        gate.set()
        await settled(pilot)
        assert app.client is client
        assert "300" in str(app.screen.query_one("#dash-counters-text").render())
        assert loading(app) == [] and spins == []  # the figures came before any spinner was due


async def test_a_slow_first_answer_gets_spinners_on_the_panels_still_waiting(spins, monkeypatch):
    monkeypatch.setattr(dashboard, "SPINNER_AFTER", 0.05)
    client = demo_client()
    real_quota = client.quota
    answer = asyncio.Event()

    async def slow_quota():
        await answer.wait()
        return await real_quota()

    client.quota = slow_quota  # type: ignore[method-assign]
    app = app_opening(lambda: client)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(500):  # until status and counters are shown (quota is held)
            await pilot.pause(0.02)
            if app.client is not None and str(app.screen.query_one("#dash-counters-text").render()).strip():
                break
        await pilot.pause(0.1)  # past SPINNER_AFTER
        assert loading(app) == ["dash-quota"]  # the one panel still waiting spins
        answer.set()
        await settled(pilot)
        assert loading(app) == []
        assert len(spins) == 1 and "dash-quota" in spins[0]
        assert app.screen.query("UsageBar")
