"""A mirror holds the matches of one history. A service started afresh on the same address, with the same
client key (a demo seeded again, `rankterm serve` on a new database), numbers and ids its matches from 1
again: the mirror must see that the matches under those numbers and ids were recorded otherwise (other
players), read them all again, and tell the standings and the story that the whole history changed."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, build_day, seed_demo
from rankterm.server.store import Store
from rankterm.wire.models import Match, NewFaction, NewMatch
from tests.support.clock import SettableClock

BASE = "http://in-process.rankterm/"


def seeded(clock: SettableClock) -> Store:
    """The demo group seeded anew: the same matches, numbers, ids, external ids and dates; new player ids."""
    store = Store(clock=clock)
    seed_demo(store, day=build_day(clock()))
    return store


def seat(store: Store, clock: SettableClock, path: Path) -> Group:
    app = create_app(store, clock=clock, counted=False)
    client = RankingClient(
        BASE,
        key=DEMO_KEY,
        secret=DEMO_SECRET,
        http=httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE),
        clock=clock,
        backoff=0.0,
    )
    client._own_http = True
    return Group(client, Mirror(path, f"{BASE}|{DEMO_KEY}", clock=clock))


def players_of(matches: list[Match]) -> set[str]:
    return {p.id for m in matches for f in m.factions for p in f.players}


@pytest.mark.parametrize("recorded_before", [0, 1], ids=["as many matches", "fewer matches than held"])
async def test_a_service_started_afresh_on_the_same_address_is_read_again(
    tmp_path: Path, recorded_before: int
) -> None:
    clock = SettableClock()
    path = tmp_path / "mirror.db"
    before = seat(seeded(clock), clock, path)
    try:
        if recorded_before:
            rows = (await before.rankings_page(1)).data
            duel = NewMatch(
                game=1,
                weight="normal",
                factions=[
                    NewFaction(players=[rows[0].player.id], rank=1),
                    NewFaction(players=[rows[1].player.id], rank=2),
                ],
            )
            assert (await before.client.add_matches([duel])).accepted_count == 1
        assert await before.sync_matches() == 300 + recorded_before
        old_players = players_of(before.cached_matches())
        old_standings = await before.rankings_page(1, match=200)
    finally:
        before.mirror.close()
        await before.aclose()

    clock.advance(3600)
    store = seeded(clock)
    after = seat(store, clock, path)
    rewritten: list[int] = []
    after.history_listeners.append(rewritten.append)
    try:
        await after.sync_matches()
        held = after.cached_matches()
        assert len(held) == 300 and not players_of(held) & old_players
        assert rewritten == [1]
        standings = await after.rankings_page(1, match=200)
        assert {r.player.id for r in standings.data}.isdisjoint({r.player.id for r in old_standings.data})
    finally:
        after.mirror.close()
        await after.aclose()


async def test_the_same_service_is_not_read_again(tmp_path: Path) -> None:
    clock = SettableClock()
    path = tmp_path / "mirror.db"
    store = seeded(clock)
    first = seat(store, clock, path)
    try:
        await first.sync_matches()
    finally:
        first.mirror.close()
        await first.aclose()
    clock.advance(3600)
    again = seat(store, clock, path)
    rewritten: list[int] = []
    again.history_listeners.append(rewritten.append)
    try:
        assert await again.sync_matches() == 0
        assert rewritten == []
    finally:
        again.mirror.close()
        await again.aclose()
