"""Two seats and a match that arrives after a later one, over a real socket: both follow the played order.

The table's story: seat A is offline and records a match at 20:00 (it waits in A's outbox); seat B records
one at 20:30 (and another at 20:40); A's arrives at 21:00. The service places A's match before B's (numbers
follow the order the matches were played in), so B's first match, held by B as number 301, is now 302. Then:

- seat A, reading what its match did as the form does, finds it at its place (301, played before 2 later
  matches) and its mirror holds the played order;
- seat B, an app sitting on the matches screen, follows within one live probe: its screen and its mirror show
  A's match at 301 and its own after it, and the standings it held after 301 (its own match's, final since
  its second match) are read again: they are those after A's match now;
- `rankterm matches` (another process) lists them in played order;
- the standings equal those of a fresh service that was sent the same matches in the order played.

The service is the demo group on uvicorn at 127.0.0.1 on a settable clock; A's network is cut by a
`FaultyTransport` over a real HTTP transport, so A is offline while B is not.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.config import Config
from rankterm.mirror import Group, Mirror
from rankterm.outbox.outbox import Outbox, OutboxSender
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.stats.effect import outcome_effect
from rankterm.tui.app import RanktermApp
from rankterm.tui.screens.matches import MatchesScreen
from rankterm.wire.ids import service_scope
from rankterm.wire.models import NewFaction, NewMatch, Weight
from tests.support.clock import SettableClock
from tests.support.faults import FaultyTransport
from tests.support.live import UvicornThread
from tests.support.terminal import room_env
from tests.tui.pilot import settle

ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-05-28"
EIGHT_PM = datetime(2026, 5, 28, 20, 0, tzinfo=UTC).timestamp()


@pytest.fixture(autouse=True)
def own_paths(seat_home, monkeypatch):
    monkeypatch.setenv("RANKTERM_LIVE_EVERY", "3600")  # the probe takes its baseline; the test probes once


def client_of(base_url: str, home: Path, clock: SettableClock, **kw) -> Group:
    """A seat's group: its own mirror on disk (another laptop), on the service at `base_url`."""
    scope = service_scope(base_url, DEMO_KEY)
    mirror = Mirror(home / "mirror.db", scope, clock=clock)
    client = RankingClient(
        base_url, key=DEMO_KEY, secret=DEMO_SECRET, clock=clock, retries=0, timeout=5.0, **kw
    )
    return Group(client, mirror)


def duel(game: int, winner: str, loser: str, at: str, name: str) -> NewMatch:
    return NewMatch(
        game=game,
        weight=Weight.NORMAL,
        external_id=name,
        date=f"{DAY} {at}:00",
        factions=[NewFaction(players=[winner], rank=1), NewFaction(players=[loser], rank=2)],
    )


def standings(rows) -> list[tuple[str, int, float]]:
    return [(r.player.id, r.position, round(float(r.ree), 6)) for r in rows]


def rankterm_matches(tmp: Path, url: str) -> list[dict]:
    """`rankterm matches --page 1 --format json` in its own process, on a profile for `url`: page 1's matches."""
    env = room_env(tmp, url, DEMO_KEY, DEMO_SECRET, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "rankterm", "matches", "--page", "1", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["data"]


async def test_a_match_sent_late_takes_its_place_on_both_seats_and_in_the_standings(tmp_path):
    clock = SettableClock(EIGHT_PM - 30 * 60)
    store = demo_store(clock=clock)
    server = UvicornThread(create_app(store, clock=clock))
    server.start()
    url = server.base_url
    net_a = FaultyTransport(httpx.AsyncHTTPTransport())
    seat_a = client_of(url, tmp_path / "a", clock, http=httpx.AsyncClient(transport=net_a, base_url=url))
    seat_b = client_of(url, tmp_path / "b", clock)
    outbox_a = Outbox(tmp_path / "a" / "outbox.db", seat_a.client.scope, clock=clock)
    app_b = RanktermApp(
        config=Config(),
        client=seat_b,
        outbox_factory=lambda client, _demo: Outbox(tmp_path / "b" / "outbox.db", client.scope, clock=clock),
    )
    try:
        ids = {p.display_name: p.id for p in await seat_a.players()}
        catan = next(g.id for g in await seat_a.games() if g.name == "Catan")
        await seat_a.sync_matches()
        a_match = duel(catan, ids["Ada"], ids["Ben"], "20:00", "seat-a-20h")
        b_matches = [
            duel(catan, ids["Chiara"], ids["Ada"], "20:30", "seat-b-2030"),
            duel(catan, ids["Ben"], ids["Chiara"], "20:40", "seat-b-2040"),
        ]

        # 20:00: A is offline; its match waits in its outbox
        clock.now = EIGHT_PM
        net_a.down = True
        outbox_a.add(a_match)
        sender_a = OutboxSender(outbox_a, seat_a, max_rounds=1)
        assert (await sender_a.send_pending()).sent == 0

        async with app_b.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("m")
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, MatchesScreen)

            # 20:30 and 20:40: B records its matches, 301 and 302 for now; B reads the standings after 301
            clock.now = EIGHT_PM + 40 * 60
            assert (await app_b.record_matches(b_matches)).accepted_count == 2
            await settle(pilot)
            assert [m.external_id for m in seat_b.cached_matches(limit=2)] == ["seat-b-2040", "seat-b-2030"]
            held_301 = await seat_b.rankings_page(1, match=301)
            assert held_301.match is not None and held_301.match.external_id == "seat-b-2030"
            assert seat_b.mirror.rankings.rankings("", 301, 1).final  # a later match exists: kept

            # 21:00: A is back; its match arrives, dated 20:00
            clock.now = EIGHT_PM + 60 * 60
            net_a.down = False
            report = await sender_a.send_pending()
            assert report.sent == 1
            effect = await outcome_effect(seat_a, report.outcomes["seat-a-20h"])
            assert effect.number == 301 and effect.later == 2
            assert effect.heading() == "Match 301, played before 2 later matches"

            # B: one live probe
            assert await app_b.live.probe_once()
            await settle(pilot)
            shown = [(m.number, m.external_id) for m in screen.page_data.data[:3]]
            assert shown == [(303, "seat-b-2040"), (302, "seat-b-2030"), (301, "seat-a-20h")]
            assert (
                seat_b.mirror.rankings.rankings("", 301, 1) is None
            )  # what B held after 301 was its own match's

            truth = await seat_b.all_matches()
            for seat in (seat_a, seat_b):
                assert [(m.number, m.id) for m in seat.cached_matches()] == [(m.number, m.id) for m in truth]
            assert [m.external_id for m in truth[:3]] == ["seat-b-2040", "seat-b-2030", "seat-a-20h"]
            assert [m.date for m in truth] == sorted((m.date for m in truth), reverse=True)

            listed = await asyncio.to_thread(rankterm_matches, tmp_path / "cli", url)
            assert [(m["number"], m["externalId"]) for m in listed[:4]] == [
                (303, "seat-b-2040"),
                (302, "seat-b-2030"),
                (301, "seat-a-20h"),
                (300, truth[3].external_id),
            ]

            # the same matches sent in the order played to a fresh service end the same
            in_order = demo_store(clock=clock)
            async with Group(
                RankingClient.in_process(
                    create_app(in_order, clock=clock), key=DEMO_KEY, secret=DEMO_SECRET, clock=clock
                )
            ) as fresh:
                assert (await fresh.add_matches([a_match, *b_matches])).accepted_count == 3
                expected = standings(await fresh.all_rankings())
                expected_301 = standings(await fresh.all_rankings(match=301))
            assert standings(await seat_b.all_rankings()) == expected
            assert standings(await seat_a.all_rankings()) == expected
            assert standings(await seat_b.all_rankings(match=301)) == expected_301
    finally:
        outbox_a.close()
        await seat_a.aclose()
        seat_a.mirror.close()
        server.stop()
        store.close()
