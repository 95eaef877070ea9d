"""A first sync within a share of the hourly call quota, against the embedded service: newest pages first,
resumed in a later hour without a page read twice, never past 80 % of the hourly meter, and one sync at a
time per mirror file (two processes on one file over a real socket read each page once)."""

from __future__ import annotations

import asyncio
import collections
import math
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, HeldHistory, Mirror
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.clock import T0, SettableClock
from tests.support.live import serve_in_thread

BASE = "http://in-process.rankterm/"
HOUR = 3600.0
GROUP = 300
"""Matches of the demo group: 12 pages of 25."""


class Counted(httpx.AsyncBaseTransport):
    """The way to the service, recording each path asked."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path.strip("/"))
        return await self.inner.handle_async_request(request)

    def metered(self) -> int:
        """Requests the quota counts (all but `auth`)."""
        return sum(1 for p in self.paths if p != "auth")

    def pages(self) -> collections.Counter[str]:
        return collections.Counter(p for p in self.paths if p.startswith("matches"))


class Service:
    """The demo group on one in-process service whose hourly call meter is `calls_per_hour`."""

    def __init__(self, calls_per_hour: int, mirror_path: Path) -> None:
        self.clock = SettableClock(T0 - T0 % HOUR + 60)  # a minute into an hour
        self.app = create_app(
            demo_store(clock=self.clock), clock=self.clock, limits=QuotaLimits(calls_per_hour=calls_per_hour)
        )
        self.mirror_path = mirror_path
        self.seats: list[tuple[Group, Counted]] = []

    def seat(self, *, sync_share: float = 0.25) -> tuple[Group, Counted]:
        net = Counted(httpx.ASGITransport(app=self.app))
        client = RankingClient(
            BASE,
            key=DEMO_KEY,
            secret=DEMO_SECRET,
            http=httpx.AsyncClient(transport=net, base_url=BASE),
            clock=self.clock,
            backoff=0.0,
        )
        client._own_http = True
        mirror = Mirror(self.mirror_path, f"{BASE}|{DEMO_KEY}", clock=self.clock)
        group = Group(client, mirror, sync_share=sync_share)
        self.seats.append((group, net))
        return group, net

    async def close(self) -> None:
        for group, _ in self.seats:
            group.mirror.close()
            await group.aclose()


@pytest.fixture
async def group(tmp_path):
    groups: list[Service] = []

    def make(calls_per_hour: int) -> Service:
        groups.append(Service(calls_per_hour, tmp_path / "mirror.db"))
        return groups[-1]

    yield make
    for g in groups:
        await g.close()


def duel(game: int, winner: str, loser: str) -> NewMatch:
    return NewMatch(
        game=game,
        weight="normal",
        factions=[NewFaction(players=[winner], rank=1, points="3"), NewFaction(players=[loser], rank=2)],
    )


def held_numbers(client: Group) -> list[int]:
    return [m.number for m in client.cached_matches()]


async def test_a_first_sync_spends_a_quarter_of_the_hour_newest_first_and_goes_on_next_hour(group):
    g = group(calls_per_hour=40)
    seat, net = g.seat()
    await seat.sync_matches()
    held = held_numbers(seat)
    assert net.metered() <= 40 * 0.25  # a quarter of the hour's calls, the quota reads and page 1 counted
    assert 0 < len(held) < GROUP
    assert held == list(range(GROUP, GROUP - len(held), -1))  # the newest matches, none missing between
    history = seat.held_history()
    assert (history.held, history.total, history.whole) == (len(held), GROUP, False)
    assert history.rest_in is not None and 0 < history.rest_in <= 12 * HOUR
    assert str(history).startswith(f"{len(held)} of {GROUP} matches · the rest within ")

    syncs, hours = 1, 0
    while not seat.held_history().whole:
        before = net.metered()
        more = await seat.sync_matches()  # the same hour: the share is spent, only page 1 is asked
        assert (more, net.metered() - before) == (0, 1)  # page 1 only: the share of this hour is spent
        g.clock.advance(HOUR)
        hours += 1
        before, count = net.metered(), len(held_numbers(seat))
        assert await seat.sync_matches() > 0
        syncs += 2
        assert net.metered() - before <= 40 * 0.25
        assert held_numbers(seat) == list(range(GROUP, GROUP - len(held_numbers(seat)), -1))
        assert len(held_numbers(seat)) > count
        assert hours < 12
    assert str(seat.held_history()) == f"{GROUP} matches"
    pages = net.pages()
    assert pages["matches/1"] == syncs  # each sync learns what is new from page 1
    assert {n for p, n in pages.items() if p != "matches/1"} == {1}  # every other page read once
    assert len(pages) == 12
    g.clock.advance(HOUR)
    assert [(m.number, m.id) for m in seat.cached_matches()] == [
        (m.number, m.id) for m in await seat.all_matches()
    ]


async def test_matches_recorded_while_the_history_is_read_are_held_and_none_is_skipped(group):
    g = group(calls_per_hour=40)
    seat, _ = g.seat()
    await seat.sync_matches()
    players, game = await seat.players(), (await seat.games())[0].id
    other, _ = g.seat()  # another seat records 30 matches: every page moves down by 30 matches
    await other.add_matches([duel(game, players[i % 5].id, players[5].id) for i in range(30)])
    hours = 0
    while not seat.held_history().whole:
        g.clock.advance(HOUR)
        hours += 1
        await seat.sync_matches()
        assert held_numbers(seat) == list(range(GROUP + 30, GROUP + 30 - len(held_numbers(seat)), -1))
        assert hours < 12
    g.clock.advance(HOUR)
    assert [(m.number, m.id) for m in seat.cached_matches()] == [
        (m.number, m.id) for m in await seat.all_matches()
    ]


async def test_a_first_sync_never_takes_the_hourly_meter_past_80_percent(group):
    g = group(calls_per_hour=40)
    seat, net = g.seat(sync_share=1.0)
    for _ in range(26):  # 65 % of the hour spent by other reads
        await seat.client.quota()
    await seat.sync_matches()
    assert net.metered() <= 40 * 0.8
    assert 0 < len(held_numbers(seat)) < GROUP
    assert (
        await seat.client.quota()
    ).calls_per_hour == f"{math.ceil(100 * net.metered() / 40)}%"  # it agrees


async def test_an_unlimited_quota_is_read_in_one_sync(group):
    g = group(calls_per_hour=0)
    g.app = create_app(demo_store(clock=g.clock), clock=g.clock, limits=QuotaLimits(calls_per_hour=None))
    seat, net = g.seat()
    assert await seat.sync_matches() == GROUP
    assert seat.held_history() == HeldHistory(GROUP, GROUP, None)
    assert set(net.pages().values()) == {1}


async def test_a_sync_waits_for_another_seat_on_the_same_file_and_reads_nothing_it_read(group):
    g = group(calls_per_hour=5000)
    seat, net = g.seat()
    other, other_net = g.seat()

    async def slowly(request: httpx.Request) -> None:
        if request.url.path.startswith("/matches"):
            await asyncio.sleep(0.02)  # the other seat is still reading when this one starts

    other.client.http.event_hooks["request"].append(slowly)

    async def later() -> int:
        await asyncio.sleep(0.05)
        return await seat.sync_matches()

    await asyncio.gather(Group.of(other).sync_matches(), later())
    assert net.pages() == {}  # it waited, then found the matches the other seat read
    assert set(other_net.pages().values()) == {1}
    assert held_numbers(seat) == list(range(GROUP, 0, -1))


async def test_past_standings_are_asked_again_rather_than_waiting_for_another_seats_sync(group):
    g = group(calls_per_hour=5000)
    seat, net = g.seat()
    await seat.sync_matches()
    await seat.rankings_page(1, match=GROUP - 1)
    g.clock.advance(seat.fresh_for)  # the held matches no longer vouch for the standings by themselves
    seat.mirror.lease.take_sync_lease("another seat", time.time(), 30)  # its sync may take minutes
    asked = len(net.paths)
    standings = await asyncio.wait_for(seat.rankings_page(1, match=GROUP - 1), 10)
    assert standings.match is not None and standings.match.number == GROUP - 1
    assert net.paths[asked:] == [f"rankings/{GROUP - 1}/1"]


async def test_a_lease_left_by_a_seat_that_stopped_runs_out(group):
    g = group(calls_per_hour=5000)
    seat, net = g.seat()
    seat.mirror.lease.take_sync_lease("a seat that was killed", time.time() - 60, 30)
    assert await seat.sync_matches() == GROUP
    assert set(net.pages().values()) == {1}


def test_what_the_screens_say_of_the_held_history():
    assert (
        str(HeldHistory(18_000, 100_000, 3 * HOUR - 5))
        == "18,000 of 100,000 matches · the rest within 3 hours"
    )
    assert str(HeldHistory(18_000, 100_000, 600)) == "18,000 of 100,000 matches · the rest within 1 hour"
    assert str(HeldHistory(18_000, 100_000, None)) == "18,000 of 100,000 matches · the rest on its way"
    assert str(HeldHistory(100_000, 100_000, None)) == "100,000 matches"
    assert HeldHistory(0, 0).whole


CHILD = textwrap.dedent(
    """
    import asyncio, sys, time
    from pathlib import Path
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group, Mirror

    base, key, secret, mirror_path, go = sys.argv[1:6]

    async def main():
        client = RankingClient(base, key=key, secret=secret)
        group = Group(client, Mirror(mirror_path, f"{base}|{key}"))
        await client.authenticate()
        print("ready", flush=True)
        while not Path(go).exists():
            time.sleep(0.005)
        added = await group.sync_matches()
        print("added", added, flush=True)
        await client.aclose()

    asyncio.run(main())
    """
)


class PageCounter:
    """ASGI middleware: counts the requests per matches page, each answered a little late (so that two
    syncs started together overlap)."""

    def __init__(self, app) -> None:
        self.app = app
        self.pages: collections.Counter[str] = collections.Counter()

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "").strip("/")
        if path.startswith("matches"):
            self.pages[path] += 1
            await asyncio.sleep(0.02)
        await self.app(scope, receive, send)


def test_two_processes_syncing_one_mirror_file_at_once_read_each_page_once(tmp_path):
    counter = PageCounter(create_app(demo_store()))
    mirror_path, go = tmp_path / "mirror.db", tmp_path / "go"
    with serve_in_thread(counter) as base:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        args = [sys.executable, "-c", CHILD, base, DEMO_KEY, DEMO_SECRET, str(mirror_path), str(go)]
        seats = [subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
        try:
            for seat in seats:
                assert seat.stdout is not None and seat.stdout.readline().strip() == "ready"
            go.touch()
            out = [seat.communicate(timeout=120)[0] for seat in seats]
        finally:
            for seat in seats:
                seat.kill()
    assert all(seat.returncode == 0 for seat in seats)
    assert [int(o.split()[-1]) for o in out] == [GROUP, GROUP]  # each holds them now
    assert set(counter.pages.values()) == {1} and len(counter.pages) == 12
    db = sqlite3.connect(mirror_path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        numbers = [n for (n,) in db.execute("SELECT number FROM matches ORDER BY number")]
        assert numbers == list(range(1, GROUP + 1))
    finally:
        db.close()
