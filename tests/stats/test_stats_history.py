"""Where the stats read from, against the embedded service in-process: the group's matches synced and then
trusted (0 requests on a second open), ree history and ree around matches read from the standings within a
share of the hourly ranking-call quota, continued later, and what happens offline."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.server.store import Store
from rankterm.stats import source, tonight
from rankterm.stats.compact import game_matches, matches_since, player_matches
from rankterm.stats.history import coarse_first, player_history, ree_around, thin
from rankterm.stats.rules import faction_of, player_ids
from rankterm.stats.source import group_matches, held_matches, sync_group
from rankterm.wire.errors import Offline
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.clock import SettableClock

BASE = "http://in-process.rankterm/"


class Net(httpx.AsyncBaseTransport):
    """The way to the service: records each path asked, can be cut, can make the quota endpoint fail."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.paths: list[str] = []
        self.down = False
        self.quota_fails = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("network is unreachable", request=request)
        path = request.url.path.strip("/")
        self.paths.append(path)
        if self.quota_fails and path == "quota":
            return httpx.Response(500, json={"errors": [{"code": "R001", "message": "no quota today"}]})
        return await self.inner.handle_async_request(request)

    def rankings(self) -> list[str]:
        return [p for p in self.paths if p.startswith("rankings")]


class Seat:
    def __init__(self, app, key: str, secret: str, clock: SettableClock) -> None:
        self.net = Net(httpx.ASGITransport(app=app))
        http = httpx.AsyncClient(transport=self.net, base_url=BASE)
        self.client = RankingClient(
            BASE, key=key, secret=secret, http=http, clock=clock, retries=0, backoff=0
        )
        self.client._own_http = True
        self.group = Group(self.client)


@pytest.fixture
async def demo():
    """`demo(limits=None)`: a seat at a fresh copy of the demo group (300 matches, 10 players)."""
    clock = SettableClock()
    seats: list[Seat] = []

    def sit(limits: QuotaLimits | None = None) -> Seat:
        app = create_app(demo_store(clock=clock), clock=clock, limits=limits)
        seat = Seat(app, DEMO_KEY, DEMO_SECRET, clock)
        seats.append(seat)
        return seat

    sit.clock = clock  # type: ignore[attr-defined]
    yield sit
    for seat in seats:
        await seat.client.aclose()


def test_thinning_is_stable_and_coarse_points_come_first():
    numbers = list(range(1, 201))
    picks = thin(numbers, 60)
    assert len(picks) <= 60 and picks[0] == 1 and picks[-1] == 200
    assert set(thin([*numbers, 201, 202], 60)) >= set(picks) - {200}  # a new match adds, never moves
    assert thin(numbers[:40], 60) == numbers[:40] and thin(numbers, 1) == [200] and thin([], 5) == []
    assert all(len(thin(numbers[:n], m)) <= m for n in range(1, 80) for m in range(1, 12))
    order = coarse_first(9)
    assert order[:3] == [8, 0, 8 // 2] and sorted(order) == list(range(9))


async def test_a_second_open_makes_no_request_and_a_match_from_this_seat_is_seen(demo):
    seat = demo()
    first = await group_matches(seat.group)
    assert len(first) == 300 and [m.number for m in first[:3]] == [1, 2, 3]
    asked = len(seat.net.paths)
    assert await group_matches(seat.group) == first
    assert len(seat.net.paths) == asked  # nothing changed: no request at all
    players = player_ids(first[-1].factions[0]) + player_ids(first[-1].factions[1])
    await seat.group.add_matches(
        NewMatch(
            game=first[-1].game.id,
            weight="normal",
            factions=[NewFaction(players=[players[0]], rank=1), NewFaction(players=[players[1]], rank=2)],
        )
    )
    after = await group_matches(seat.group)
    assert len(after) == 301 and after[-1].number == 301  # recorded here: not trusted, synced
    assert after[0] is first[0]  # only the new match was parsed, appended to those parsed before
    assert after == list(reversed(seat.group.cached_matches()))
    asked = len(seat.net.paths)
    await group_matches(seat.group, max_age=0)
    assert seat.net.paths[asked:] == ["matches/1"]  # forced: the one cheap check


async def test_a_player_a_game_an_evening_read_only_their_matches_from_the_mirror(demo):
    seat = demo()
    await sync_group(seat.group)
    assert (player_matches(seat.group, "nobody"), game_matches(seat.group, -1)) == ([], [])
    assert seat.group.memo.get("stats.parsed") is None  # the narrow reads parse no match
    first = await group_matches(seat.group)
    player, game = player_ids(first[-1].factions[0])[0], first[-1].game.id
    since = datetime.strptime(first[-20].date, "%Y-%m-%d %H:%M:%S")

    def numbers(matches: Iterable[Any]) -> list[int]:
        return [m.number for m in matches]

    assert numbers(player_matches(seat.group, player)) == numbers(m for m in first if faction_of(m, player))
    assert numbers(game_matches(seat.group, game)) == numbers(m for m in first if m.game.id == game)
    assert numbers(matches_since(seat.group, since)) == numbers(m for m in first if m.date >= first[-20].date)
    assert source.matches_numbered(seat.group, [3, 1, 999]) == first[:3:2]


async def test_a_held_match_that_cannot_be_read_is_left_out(demo):
    seat = demo()
    held = await group_matches(seat.group)
    player = player_ids(held[-1].factions[0])[0]
    seat.group.mirror.held.put_matches(
        [(999, None, {"number": 999, "factions": [{"rank": "first", "players": player}]})]
    )
    assert held_matches(seat.group) == held
    compact = player_matches(seat.group, player)
    assert [m.number for m in compact] == [m.number for m in held if faction_of(m, player)]


async def test_offline_the_held_matches_answer_unless_told_not_to(demo):
    seat = demo()
    seat.net.down = True
    with pytest.raises(Offline):
        await group_matches(seat.group)  # never held
    seat.net.down = False
    held = await group_matches(seat.group)
    seat.net.down = True
    assert await group_matches(seat.group, max_age=0) == held
    with pytest.raises(Offline):
        await group_matches(seat.group, max_age=0, offline_ok=False)
    assert held_matches(seat.group) == held


async def test_history_is_the_standings_after_the_players_matches_and_is_read_once(demo):
    seat = demo()
    matches = await group_matches(seat.group)
    player = player_ids(matches[-1].factions[0])[0]
    mine = [m.number for m in matches if faction_of(m, player)]
    history = await player_history(seat.group, player, max_points=20)
    assert history.complete and history.stopped is None
    assert [p.match_number for p in history.points] == thin(mine, 20)
    assert len(seat.net.rankings()) == history.wanted  # 10 players: one page a point
    other = demo().group  # the same group read afresh, page by page
    for point in history.points[:: max(1, len(history.points) // 4)]:
        rows = await Group.of(other).all_rankings(match=point.match_number)
        row = next(r for r in rows if r.player.id == player)
        assert (point.ree, point.position) == (row.ree, row.position)
    asked = len(seat.net.paths)
    again = await player_history(seat.group, player, max_points=20)
    assert again == history and len(seat.net.paths) == asked  # held pages, synced matches: no request


async def test_history_in_a_games_subset_is_over_that_games_matches(demo):
    seat = demo()
    matches = await group_matches(seat.group)
    player = player_ids(matches[-1].factions[0])[0]
    game = matches[-1].game.id
    subset = next(s for s in await seat.group.subsets() if s.game is not None and s.game.id == game)
    history = await player_history(seat.group, player, subset=subset.id)
    theirs = [m.number for m in matches if m.game.id == game and faction_of(m, player)]
    assert history.complete and [p.match_number for p in history.points] == thin(theirs, 60)
    rows = await demo().group.all_rankings(subset=subset.id, match=history.points[0].match_number)
    first = next(r for r in rows if r.player.id == player)
    assert (history.points[0].ree, history.points[0].position) == (first.ree, first.position)


async def test_history_leaves_the_end_of_the_hour_to_the_standings_screens(demo):
    seat = demo(QuotaLimits(ranking_calls_per_hour=20))  # each ranking call is 5 % of the hour
    for _ in range(17):  # the standings screens used 85 % of the hour already
        await seat.group.rankings_page(1)
    matches = await group_matches(seat.group)
    before = len(seat.net.rankings())
    history = await player_history(seat.group, player_ids(matches[-1].factions[0])[0], quota_share=0.5)
    assert history.stopped == "quota" and len(seat.net.rankings()) - before == 1  # 90 %, not a call more
    assert (await seat.client.quota()).usage()["rankingCallsPerHour"] == 90


async def test_history_spends_at_most_its_share_of_the_hour_and_continues_later(demo):
    seat = demo(QuotaLimits(ranking_calls_per_hour=40))  # each ranking call is 2.5 % of the hour
    matches = await group_matches(seat.group)
    player = player_ids(matches[-1].factions[0])[0]
    history = await player_history(seat.group, player, quota_share=0.25)
    spent = seat.net.rankings()
    assert 0 < len(spent) <= 10  # a quarter of 40
    assert history.stopped == "quota" and history.loaded == len(spent) < history.wanted
    numbers = [p.match_number for p in history.points]
    assert min(numbers) == min(m.number for m in matches if faction_of(m, player))  # coarse first: spans
    assert max(numbers) == max(m.number for m in matches if faction_of(m, player))
    quota = await seat.client.quota()
    assert quota.usage()["rankingCallsPerHour"] <= 25
    assert len(seat.net.rankings()) == len(spent)  # asked again in the same hour: nothing more
    again = await player_history(seat.group, player, quota_share=0.25)
    assert len(seat.net.rankings()) == len(spent) and again.loaded == history.loaded
    demo.clock.advance(3600)  # the next hour
    later = await player_history(seat.group, player, quota_share=0.25)
    assert later.loaded > history.loaded
    fetched = seat.net.rankings()
    assert len(fetched) == len(set(fetched))  # no page read twice


async def test_without_a_quota_reading_history_spends_a_fixed_share(demo):
    seat = demo()
    seat.net.quota_fails = True
    matches = await group_matches(seat.group)
    player = player_ids(matches[-1].factions[0])[0]
    history = await player_history(seat.group, player, quota_share=0.1)
    assert len(seat.net.rankings()) == 10 and history.stopped == "quota"


async def test_offline_history_shows_what_is_held(demo):
    seat = demo()
    matches = await group_matches(seat.group)
    player = player_ids(matches[-1].factions[0])[0]
    some = await player_history(seat.group, player, max_points=5)
    seat.net.down = True
    more = await player_history(seat.group, player, max_points=40)
    assert more.stopped == "offline" and more.wanted > more.loaded >= 2
    assert {p.match_number for p in some.points} & {p.match_number for p in more.points}


async def test_ree_around_matches_is_before_and_after_each(demo):
    seat = demo()
    matches = await group_matches(seat.group)
    numbers = [m.number for m in matches[-6:]]
    around = await ree_around(seat.group, numbers)
    assert around.loaded == around.wanted == 6 and around.stopped is None
    assert sorted(set(seat.net.rankings())) == [f"rankings/{n}/1" for n in [numbers[0] - 1, *numbers]]
    other = demo().group  # the service's own rows: ree after the match, and its change
    for m in matches[-6:]:
        rows = {r.player.id: r for r in await Group.of(other).all_rankings(match=m.number)}
        for pid in [p for f in m.factions for p in player_ids(f)]:
            assert around.after[(m.number, pid)] == rows[pid].ree
            assert around.before[(m.number, pid)] == pytest.approx(
                rows[pid].ree - rows[pid].delta_ree, abs=0.011
            )
    asked = len(seat.net.paths)
    assert await ree_around(seat.group, numbers) == around and len(seat.net.paths) == asked
    # a newcomer's first match: not ranked before it, their ree before is the newcomer's
    newbie = await seat.group.create_player("Newbie")
    rival = player_ids(matches[-1].factions[0])[0]
    duel = [NewFaction(players=[newbie.id], rank=1), NewFaction(players=[rival], rank=2)]
    await seat.group.add_matches(NewMatch(game=matches[-1].game.id, weight="normal", factions=duel))
    await sync_group(seat.group)
    first = await ree_around(seat.group, [301])
    assert first.after[(301, newbie.id)] > first.before[(301, newbie.id)] > 1000
    assert first.before[(301, rival)] == around.after[(300, rival)]  # the rival played match 300
    assert first.new == {(301, newbie.id)}  # entered the standings with it; the rival did not


async def test_a_newcomers_first_match_is_not_tonights_biggest_gain_or_upset(demo):
    seat = demo()
    matches = await group_matches(seat.group)
    newbie = await seat.group.create_player("Newbie")
    weakest = min(
        (r for r in await seat.group.all_rankings() if not r.player.ghost), key=lambda r: r.ree or 0.0
    )
    game = matches[-1].game.id
    duel = [NewFaction(players=[newbie.id], rank=1), NewFaction(players=[weakest.player.id], rank=2)]
    await seat.group.add_matches(NewMatch(game=game, weight="normal", factions=duel))
    await sync_group(seat.group)
    evening = [m for m in held_matches(seat.group) if m.number >= 300]
    since = datetime.strptime(evening[0].date, "%Y-%m-%d %H:%M:%S")
    around = await ree_around(seat.group, [m.number for m in evening])
    assert around.new == {(301, newbie.id)}
    told = tonight(evening, since, around.before, around.after, around.new)
    assert {t.player_id for t in told.tallies} >= {newbie.id}  # their win still counts
    for named in (told.biggest_gain, told.biggest_upset):
        assert named is None or named.player_id != newbie.id
    # without `new`, the newcomer's start is taken for a ree they had: they would be both
    naive = tonight(evening, since, around.before, around.after)
    assert naive.biggest_upset is not None and naive.biggest_upset.player_id == newbie.id


async def test_a_point_costs_about_one_call_when_the_standings_have_several_pages(tmp_path):
    clock = SettableClock()
    store = Store(tmp_path / "service.db", clock=clock)
    key, secret = store.create_client(store.create_group("Big table"))
    seat = Seat(create_app(store, clock=clock), key, secret, clock)
    group = Group.of(seat.group)
    try:
        people = [(await group.create_player(f"P{i:02d}")).id for i in range(32)]
        game = (await group.create_game(name="Catan")).id
        rng = random.Random(3)
        news = []
        for i in range(45):
            # people[0] plays every third match and always comes last: deep down the standings
            seated = rng.sample(people[1:], 4) if i % 3 else [*rng.sample(people[1:], 3), people[0]]
            news.append(
                NewMatch(
                    game=game,
                    weight="normal",
                    date=f"2026-05-{1 + i // 10:02d} 20:{i % 10:02d}:00",
                    factions=[NewFaction(players=[p], rank=r) for r, p in enumerate(seated, start=1)],
                )
            )
        await group.add_matches(news)
        await group_matches(group)
        mine = [m.number for m in held_matches(group) if faction_of(m, people[0])]
        before = len(seat.net.rankings())
        history = await player_history(group, people[0])
        calls = len(seat.net.rankings()) - before
        assert history.complete and len(history.points) == len(mine) == 15
        assert any(p.position > 25 for p in history.points)  # the player was beyond page 1 at times
        naive = sum(math.ceil(p.position / 25) for p in history.points)  # page 1, then 2, ... each time
        assert calls <= len(mine) * 1.5 and calls < naive * 0.7  # a guessed page, sometimes a second
        other = Seat(create_app(store, clock=clock), key, secret, clock).group
        for point in history.points[::5]:
            rows = await Group.of(other).all_rankings(match=point.match_number)
            row = next(r for r in rows if r.player.id == people[0])
            assert (point.ree, point.position) == (row.ree, row.position)
        await other.aclose()
    finally:
        await group.client.aclose()
        store.close()
