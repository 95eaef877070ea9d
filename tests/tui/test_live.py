"""Live seats (rankterm/tui/live.py): another seat's new match or player reaches the screen shown, a probe that
finds nothing new changes nothing, the quota stops the probe (and the status line says so), and a quiet seat
probes less often. Every test runs against the embedded demo service in-process; another seat is a second
`RankingClient` on the same service. The probe's interval is set per test (`RANKTERM_LIVE_EVERY`); where time
matters the probe's clock is a settable one and probes are driven by hand (`probe_once`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rankterm.client.client import RankingClient
from rankterm.config import Config
from rankterm.mirror import Group
from rankterm.server.quota import QuotaLimits
from rankterm.tui.app import RanktermApp
from rankterm.tui.live import ENV_EVERY, GATED_RECHECK, IDLE_AFTER, LiveProbe
from tests.support.clock import T0, SettableClock

from .conftest import DEMO_URL
from .pilot import catan_duel, count_frames, settle

HOUR = 3600.0


@pytest.fixture
def by_hand(monkeypatch):
    """Probes only when the test calls `probe_once` (the timer's interval is an hour)."""
    monkeypatch.setenv(ENV_EVERY, str(HOUR))


async def _on(pilot, key: str) -> Any:
    await pilot.press(key)
    await settle(pilot)
    return pilot.app.screen


def _info(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def _other_seat_records(other: RankingClient | Group, external_id: str) -> int:
    """Another seat records a Catan duel; its match number."""
    other = Group.of(other)  # a client: read through its group
    answer = await other.add_matches(await catan_duel(other, external_id))
    assert answer.accepted_count == 1
    return (await Group.of(other).matches_page(1)).data[0].number


# ---------------------------------------------------------------------- another seat's match, by the timer


async def test_another_seats_match_reaches_the_rankings_shown_by_the_timer(
    make_app, demo_service, monkeypatch
):
    monkeypatch.setenv(ENV_EVERY, "0.05")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _on(pilot, "r")
        before = _info(screen, "#rank-info")
        assert "after match 300 (latest)" in before
        other = demo_service.client()
        number = await _other_seat_records(other, "other-seat-1")
        assert number == 301
        for _ in range(100):  # the probe runs every 0.05 s: well within 5 s
            await pilot.pause(0.05)
            if "after match 301 (latest)" in _info(screen, "#rank-info"):
                break
        assert "after match 301 (latest)" in _info(screen, "#rank-info")
        assert app.live.found == 1
        await other.aclose()


async def test_another_seats_match_reaches_the_matches_list_and_the_subset_counts(
    make_app, demo_service, by_hand
):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _on(pilot, "m")
        assert screen.table.get_row_at(0)[0].plain == "300"
        main_before = screen.picker.subset.count_matches
        other = demo_service.client()
        await _other_seat_records(other, "other-seat-2")
        assert await app.live.probe_once()
        await settle(pilot)
        assert screen.table.get_row_at(0)[0].plain == "301"
        assert screen.picker.subset.count_matches == main_before + 1
        await other.aclose()


async def test_another_seats_ghost_reaches_the_players_screen(make_app, demo_service, by_hand):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _on(pilot, "p")
        caption = _info(screen, "#players-caption")
        total = int(caption.split(" · ")[1].split()[0])
        other = demo_service.client()
        await Group.of(other).create_player("Zed from the other laptop")
        assert await app.live.probe_once()
        await settle(pilot)
        assert f"· {total + 1} players" in _info(screen, "#players-caption")
        await other.aclose()


async def test_another_seats_match_moves_the_service_counters(make_app, demo_service, by_hand):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _on(pilot, "d")
        assert "300" in _info(screen, "#service-counters-text")
        other = demo_service.client()
        await _other_seat_records(other, "other-seat-3")
        assert await app.live.probe_once()
        await settle(pilot)
        assert "301" in _info(screen, "#service-counters-text")
        await other.aclose()


async def test_another_seats_match_reaches_home_by_the_timer(make_app, demo_service, monkeypatch):
    """Home, the first screen, follows the room: its standings' title and last match move on."""
    monkeypatch.setenv(ENV_EVERY, "0.05")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert "after match 300" in _info(screen, "#home-title")
        other = demo_service.client()
        await _other_seat_records(other, "other-seat-4")
        for _ in range(100):  # the probe runs every 0.05 s: well within 5 s
            await pilot.pause(0.05)
            if "after match 301" in _info(screen, "#home-title"):
                break
        await settle(pilot)
        assert "after match 301" in _info(screen, "#home-title")
        assert "#301" in _info(screen, "#home-last")
        await other.aclose()


# ---------------------------------------------------------------------- nothing new: nothing happens


@pytest.mark.parametrize("key", ["r", "h"])
async def test_a_probe_that_finds_nothing_new_changes_nothing_and_draws_nothing(make_app, monkeypatch, key):
    monkeypatch.setenv(ENV_EVERY, "0.05")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _on(pilot, key)
        version, probes, calls = app.group_version, app.live.probes, app.client.calls
        frames = count_frames(app, empty_too=False)
        await asyncio.sleep(0.5)  # about 10 probes
        assert app.live.probes >= probes + 5
        assert app.client.calls >= calls + 5  # they did ask the service
        assert app.group_version == version
        assert app.live.found == 0
        assert frames == []


# ---------------------------------------------------------------------- the quota stops it


def _app_on_small_quota(calls_per_hour: int, clock: SettableClock) -> tuple[RanktermApp, Any]:
    """An app on a demo service whose clients may make `calls_per_hour` calls an hour, on `clock`; and a
    maker of more clients with the same key (the same meter)."""
    from rankterm.server.app import create_app
    from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store

    asgi = create_app(demo_store(clock=clock), clock=clock, limits=QuotaLimits(calls_per_hour=calls_per_hour))

    def group() -> RankingClient:
        return RankingClient.in_process(
            asgi, key=DEMO_KEY, secret=DEMO_SECRET, base_url=DEMO_URL, clock=clock
        )

    return RanktermApp(config=Config(), client=group(), demo=True), group


async def test_at_80_percent_of_the_quota_the_probe_stops_the_status_line_says_so_and_it_resumes(by_hand):
    service_clock = SettableClock(T0)
    app, group = _app_on_small_quota(100, service_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _on(pilot, "r")
        live: LiveProbe = app.live
        live.clock = probe_clock = SettableClock(1000.0)
        live.quota_every = 1  # each probe reads the quota first
        calls = app.client.calls
        assert not await live.probe_once()
        assert app.client.calls == calls + 2  # below the gate: the quota, then the probe
        assert not live.gated
        assert "Live updates" not in _info(screen, "#status-line")
        other = group()
        while (await other.quota()).usage()["callsPerHour"] < 80:
            await other.status()  # the same API client: the same meter
        calls = app.client.calls
        assert not await live.probe_once()
        assert app.client.calls == calls + 1  # the quota, and no probe
        await settle(pilot)
        line = _info(screen, "#status-line")
        assert "Live updates paused: calls per hour at 8" in line and "of the quota" in line
        assert not await live.probe_once()
        assert app.client.calls == calls + 1  # gated: not even the quota, until GATED_RECHECK has passed

        service_clock.advance(HOUR)  # a new hour: the hourly meter starts again
        probe_clock.advance(GATED_RECHECK)
        await _other_seat_records(other, "next-hour")
        assert await live.probe_once()  # the quota read again, below the gate: probing resumes
        await settle(pilot)
        assert not live.gated
        assert "Live updates" not in _info(screen, "#status-line")
        await other.aclose()


# ---------------------------------------------------------------------- how often


async def test_a_quiet_seat_probes_every_minute_a_key_brings_it_back_and_dialogs_pause_it(make_app, by_hand):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _on(pilot, "r")
        live: LiveProbe = app.live
        clock = SettableClock(1000.0)
        live.clock = clock
        live.every, live.idle_every = 5.0, 60.0
        live.touched()
        assert live.interval() == 5.0
        clock.advance(IDLE_AFTER - 1)
        assert live.interval() == 5.0
        clock.advance(2)
        assert live.interval() == 60.0
        live.schedule()
        assert live._due - clock() == 60.0
        await pilot.press("down")  # any key: active again, the next probe comes forward
        assert live.interval() == 5.0
        assert live._due - clock() == 5.0

        assert live.wanted()
        await pilot.press("enter")  # a player's recent matches, over the rankings
        await settle(pilot)
        assert len(app.screen_stack) == 2
        assert not live.wanted()
        await pilot.press("escape")
        await settle(pilot)
        assert live.wanted()
        await _on(pilot, "n")  # the match form: never disturbed
        assert not live.wanted()


async def _cut_off_twice(pilot, transport) -> LiveProbe:
    """On the rankings, every 5 s, the service cut off: two probes fail, and the probe then waits as the
    outbox's first two retries do."""
    from rankterm.tui.outbox_runner import RETRY_DELAYS

    app = pilot.app
    await _on(pilot, "r")
    live: LiveProbe = app.live
    live.every = 5.0  # what the timer would use; probes are still made by hand here
    transport.down = True
    assert not await live.probe_once()
    assert app.offline
    assert live.interval() == RETRY_DELAYS[0]
    assert not await live.probe_once()
    assert live.interval() == RETRY_DELAYS[1]  # never faster than the outbox's retries
    return live


async def test_offline_the_probe_waits_like_the_outbox_and_the_service_back_revalidates_once(
    make_app, demo_service, by_hand
):
    from rankterm.tui.outbox_runner import RETRY_DELAYS

    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it
    app = make_app(client=group)
    async with app.run_test(size=(80, 24)) as pilot:
        live = await _cut_off_twice(pilot, transport)
        await _on(pilot, "p")  # the players' page comes from the mirror offline: not an answer to compare
        assert not await live.probe_once()
        assert live.interval() == RETRY_DELAYS[2]
        await _on(pilot, "r")
        version = app.group_version
        transport.down = False
        other = demo_service.client()
        await _other_seat_records(other, "while-away")
        assert not await live.probe_once()  # the app's own `_reachable` path revalidated: not twice
        assert app.group_version == version + 1
        assert not app.offline
        assert live.interval() == 5.0
        await other.aclose()


async def test_the_service_answering_another_request_brings_the_probe_back_to_its_pace(
    make_app, demo_service, by_hand
):
    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it
    app = make_app(client=group)
    async with app.run_test(size=(80, 24)) as pilot:
        live = await _cut_off_twice(pilot, transport)
        transport.down = False
        await group.players_page(1)  # any answer (the outbox's knock, a screen's read), not the probe's
        await settle(pilot)
        assert not app.offline
        assert live.interval() == 5.0
        assert live._timer is not None and live._due - live.clock() <= 5.0
