"""Stats on a seat that has never reached the service: an offline sentence (never a tab's widget name), and
the stats come by themselves once the service answers (the live probe does not run on this screen)."""

from __future__ import annotations

import pytest

from rankterm.tui.screens.stats.base import StoryScreen
from rankterm.tui.screens.stats.mode import StatsScreen

from .pilot import settle


async def test_stats_offline_says_so_and_come_when_the_service_answers(
    make_app, demo_service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(StoryScreen, "OFFLINE_RETRY", 0.2, raising=False)
    client, transport = demo_service.downable_client()
    transport.down = True
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, StatsScreen)
        info = screen.query_one(screen.INFO)
        for key in ("1", "2", "3", "4"):
            await pilot.press(key)
            await settle(pilot)
            assert str(info.render()) == StatsScreen.NO_COPY
            assert "TabPane" not in pilot.app.export_screenshot()
        await pilot.press("1")
        transport.down = False
        for _ in range(100):  # asked again by itself, no key pressed
            await pilot.pause(0.05)
            if screen.loaded:
                break
        await settle(pilot)
        assert screen.loaded and screen.roster is not None and screen.roster.players
        assert str(info.render()) != StatsScreen.NO_COPY
