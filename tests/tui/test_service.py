"""The Service screen (d): status keys, match counters, quota bars with warning and error colours, refresh."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from rankterm.tui.screens.service import ServiceScreen, humanize
from rankterm.tui.widgets.usage_bar import UsageBar, usage_level
from rankterm.wire.errors import Offline, QuotaError
from rankterm.wire.models import Quota


async def on_service(pilot, wait) -> None:
    """From Home, the first screen, to the Service screen: one key."""
    await wait(pilot)
    await pilot.press("d")
    await wait(pilot)
    assert isinstance(pilot.app.screen, ServiceScreen)


def test_usage_levels():
    assert [usage_level(p) for p in (None, 0, 69.9, 70, 89.9, 90, 100, 130)] == [
        "ok",
        "ok",
        "ok",
        "warning",
        "warning",
        "error",
        "error",
        "error",
    ]


def test_keys_read_as_words():
    assert humanize("rankingCallsPerHour") == "ranking calls per hour"
    assert humanize("serverTime") == "server time"
    assert humanize("api_created_games") == "api created games"


class BarApp(App):
    def compose(self) -> ComposeResult:
        yield UsageBar("low", 10.0, id="low")
        yield UsageBar("warn", 75.0, id="warn")
        yield UsageBar("high", 95.0, id="high")
        yield UsageBar("unknown", None, id="unknown")


async def test_bars_colour_by_level_and_fill_by_percent():
    app = BarApp()
    async with app.run_test(size=(60, 6)) as pilot:
        await pilot.pause()
        low, warn, high, unknown = (
            app.query_one(f"#{i}", UsageBar) for i in ("low", "warn", "high", "unknown")
        )
        assert not low.has_class("-warning") and not low.has_class("-error")
        assert warn.has_class("-warning") and not warn.has_class("-error")
        assert high.has_class("-error")
        assert str(unknown.render()).endswith("?")
        filled = [str(bar.render()).count("█") for bar in (low, warn, high)]
        assert filled[0] < filled[1] < filled[2]
        assert (
            low.get_component_rich_style("usage-bar--filled").color
            != high.get_component_rich_style("usage-bar--filled").color
        )


async def test_open_demo_shows_status_counters_and_quota_bars(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await on_service(pilot, wait)
        screen = app.screen
        assert isinstance(screen, ServiceScreen)
        status = str(screen.query_one("#service-status-text", Static).render())
        assert "status" in status and "ok" in status and "version" in status
        counters = str(screen.query_one("#service-counters-text", Static).render())
        assert "300" in counters and "processed" in counters and "queued" in counters
        bars = list(screen.query(UsageBar))
        assert [b.label for b in bars][:3] == ["calls per year", "calls per hour", "matches per year"]
        assert len(bars) == 9
        assert all(b.percent is not None for b in bars)


async def test_refresh_asks_again_and_shows_a_quota_warning(make_app, wait, demo_client, monkeypatch):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await on_service(pilot, wait)
        calls = demo_client.calls

        async def busy_quota() -> Quota:
            return Quota.model_validate({"callsPerYear": "75%", "callsPerHour": "93%", "newLimit": "5%"})

        monkeypatch.setattr(demo_client, "quota", busy_quota)
        await pilot.press("f5")
        await wait(pilot)
        assert demo_client.calls > calls
        bars = {b.label: b for b in app.screen.query(UsageBar)}
        assert bars["calls per year"].has_class("-warning")
        assert bars["calls per hour"].has_class("-error")
        assert "new limit" in bars  # any extra quota field gets a bar too
        assert "Near a limit" in str(app.screen.query_one("#service-quota-note", Static).render())


async def test_an_error_is_one_sentence_in_its_panel(make_app, wait, demo_client, monkeypatch):
    async def refused():
        raise QuotaError("quota", 429, message="quota limit reached")

    monkeypatch.setattr(demo_client, "quota", refused)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await on_service(pilot, wait)
        note = str(app.screen.query_one("#service-quota-note", Static).render())
        assert note == "quota: quota limit reached (HTTP 429)."
        assert "ok" in str(app.screen.query_one("#service-status-text", Static).render())


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_offline_the_panels_show_the_figures_held_and_the_service_panel_one_calm_line(
    make_app, wait, demo_service
):
    client, transport = demo_service.downable_client()
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        await on_service(pilot, wait)  # read once from the service: kept in the mirror
        online_bars = {b.label: b.percent for b in app.screen.query(UsageBar)}
        transport.down = True
        await pilot.press("f5")
        await wait(pilot)
        screen = app.screen
        assert app.offline
        assert text_of(screen, "#service-status-text") == (
            "Cannot reach the service. The figures shown are those of 20:26."
        )
        counters = text_of(screen, "#service-counters-text")
        assert "300" in counters and "processed" in counters and "Cannot reach" not in counters
        assert {b.label: b.percent for b in screen.query(UsageBar)} == online_bars
        assert "Cannot reach" not in text_of(screen, "#service-quota-note")
        assert not [n for n in app._notifications if n.severity == "error"]
        drawn = "\n".join(
            "".join(segment.text for segment in strip) for strip in screen._compositor.render_strips()
        )
        assert "api created games" in drawn  # at 80x24 every figure is in view, status line included

        transport.down = False
        app.group_changed()  # what the service answering again does (the app's `_reachable`)
        await wait(pilot)
        status = text_of(screen, "#service-status-text")
        assert "status" in status and "ok" in status and "Cannot reach" not in status


async def test_offline_from_the_start_the_panels_say_nothing_is_held_yet(make_app, wait, demo_service):
    client, transport = demo_service.downable_client()
    transport.down = True
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        await on_service(pilot, wait)
        screen = app.screen
        assert (
            text_of(screen, "#service-status-text")
            == "Cannot reach the service. Its figures show once it answers."
        )
        assert text_of(screen, "#service-counters-text") == "Not read yet: shown once the service answers."
        assert not list(screen.query(UsageBar))


async def test_the_service_screen_says_so_when_another_request_finds_the_service_gone(
    make_app, wait, demo_service
):
    client, transport = demo_service.downable_client()
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        await on_service(pilot, wait)
        assert "ok" in text_of(app.screen, "#service-status-text")
        transport.down = True
        with pytest.raises(Offline):
            await client.match_status()  # what the live probe asks every few seconds
        await wait(pilot)
        assert app.offline
        assert text_of(app.screen, "#service-status-text") == (
            "Cannot reach the service. The figures shown are those of 20:26."
        )
