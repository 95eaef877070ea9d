"""The demo group: what `seed_demo` makes through the service's own paths, and independent `demo_app` copies."""

from __future__ import annotations

from datetime import date

import pytest

from rankterm.server.demo import demo_plan
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app, seed_demo
from rankterm.server.store import Store
from tests.support.clock import SettableClock

from .conftest import Api, _client


def test_seed_demo_makes_the_planned_group():
    plan = demo_plan(last_day=date(2026, 5, 27))  # the day before the clock's day
    with Store(":memory:", clock=SettableClock()) as store:
        assert seed_demo(store) == (DEMO_KEY, DEMO_SECRET)
        [(group, name)] = store.groups()
        assert name == plan.group_name
        players = store.players_page(group, 1)
        assert players.total_players == len(plan.players) == 10
        ghosts = sorted(p.display_name for p in players.data if p.ghost)
        assert ghosts == sorted("*" + p.name for p in plan.players if p.ghost) and len(ghosts) == 3
        assert all(not p.display_name.startswith("*") for p in players.data if not p.ghost)
        assert sorted(g.name for g in store.games(group)) == sorted(g.name for g in plan.games)
        assert len(store.games(group)) == 8
        assert store.match_status(group).total == 300
        subsets = store.subsets(group)
        assert len(subsets) == 9 and sum(s.count_matches for s in subsets if s.type == "game") == 300
        assert store.match_exists(group, "demo-0300") and not store.match_exists(group, "demo-0301")
        first = store.matches_page(group, None, 12).data[-1]
        assert (first.number, first.external_id, first.date) == (1, "demo-0001", plan.matches[0].date)
        assert store.authenticate(DEMO_KEY, DEMO_SECRET).group_id == group
        with pytest.raises(ValueError):
            seed_demo(store)


def test_a_smaller_demo():
    with Store(":memory:") as store:
        seed_demo(store, seed=3, matches=20)
        group = store.groups()[0][0]
        assert store.match_status(group).total == 20
        assert store.rankings_page(group, None, None, 1).match.number == 20


async def test_demo_apps_are_independent_copies():
    (one, key, secret), (two, _, _) = demo_app(), demo_app()
    assert (key, secret) == (DEMO_KEY, DEMO_SECRET)
    async for http_one in _client(one):
        async for http_two in _client(two):
            first, second = Api(http_one, key, secret), Api(http_two, key, secret)
            await first.login()
            await second.login()
            assert (await first.ok("players"))["totalPlayers"] == 10
            await first.player("Newcomer")
            assert (await first.ok("players"))["totalPlayers"] == 11
            assert (await second.ok("players"))["totalPlayers"] == 10
            # Each copy signs its own tokens.
            foreign = await http_two.get("players", headers=first.headers)
            Api.check_error(foreign, "A002", 403)


async def test_the_demo_is_lived_in(demo_api):
    page = await demo_api.ok("matches")
    assert page["totalMatches"] == 300 and page["totalPages"] == 12
    types = {m["type"] for p in (1, 5, 9) for m in (await demo_api.ok(f"matches/{p}"))["data"]}
    assert {"player_vs_player", "multiplayer"} <= types
    popular = await demo_api.ok("games/popular")
    assert {g["name"] for g in popular[:8]} == {g.name for g in demo_plan(matches=0).games}
