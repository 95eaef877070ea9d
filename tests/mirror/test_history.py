"""A history that changed under a seat's mirror: a match played before held ones arrived, so that the held
numbers now name other matches (numbers follow the order matches were played in; a later match's number goes
up by one, its id stays).

The seat's service is the embedded one, in-process. Today's service numbers matches as they arrive, so the
group's history before and after the backdated match is made with two real stores, each recorded through the
store directly: `before` holds the group as the seat first read it, `after` the same group once the backdated
match took its place (recorded there in the order played). Match ids line up as on one service: `before`
spends the backdated match's id on a match of another group. The seat reads `before`, then its client is
turned to `after` (`Group.move`), as if the service had changed under it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import LAST, Group, Mirror
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.server.store import Store
from rankterm.stats.compact import player_matches
from rankterm.stats.effect import match_effect, number_of
from rankterm.stats.history import player_history
from rankterm.stats.source import held_matches, held_roster
from rankterm.wire.models import NewFaction, NewMatch, Weight
from tests.fake_service import ok
from tests.support.clock import SettableClock

BASE = "http://in-process.rankterm/"
DAY = "2026-05-28"  # the clock's day (SettableClock's T0, 20:26 UTC); the demo's season ends the day before


@dataclass
class Stores:
    """The demo group on two stores: as the seat first read it, and once the backdated match arrived."""

    before: Store
    after: Store
    clock: SettableClock
    mirror: Mirror
    clients: list[RankingClient]
    https: list[httpx.AsyncClient]

    def seat(self, store: Store, mirror: Mirror | None = None) -> Group:
        """A group read from `store`'s service on the seat's one mirror (or on `mirror`)."""
        client = RankingClient(
            BASE, key=DEMO_KEY, secret=DEMO_SECRET, http=self._http(store), clock=self.clock, backoff=0
        )
        self.clients.append(client)
        return Group(client, mirror or self.mirror)

    async def move(self, group: Group) -> Group:
        """The service changes under `group`: from here on it answers as `after` (with a token of its own,
        taken now so that the calls counted are the sync's)."""
        self.https.append(group.client.http)
        group.client.http = self._http(self.after)
        await group.client.authenticate(force=True)
        return group

    def _http(self, store: Store) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(store)), base_url=BASE)


def record(
    store: Store, group: int, game: int, winner: str, loser: str, date: str, name: str, late: float = 0
) -> None:
    """Record a duel through the store; `late`: seconds after the clock's time that it arrives."""
    match = NewMatch(
        game=game,
        weight=Weight.NORMAL,
        external_id=name,
        date=date,
        factions=[NewFaction(players=[winner], rank=1), NewFaction(players=[loser], rank=2)],
    )
    answer = store.add_matches(group, [match.to_wire()], now=store.clock() + late)
    assert answer.accepted_count == 1, answer


async def made(tmp_path: Path, later: int) -> AsyncIterator[Stores]:
    """The demo group, then `later` matches played from 19:00; in `after`, a match played at 18:00 (before
    them) arrived a minute after them and sits before them, numbered 301."""
    clock = SettableClock()
    before, after = demo_store(clock=clock), demo_store(clock=clock)
    group = Stores(before, after, clock, Mirror(tmp_path / "mirror.db", "seat", clock=clock), [], [])
    probe = group.seat(before)
    ids = {p.display_name: p.id for p in await probe.players()}
    catan = next(g.id for g in await probe.games() if g.name == "Catan")
    home = before.groups()[0][0]
    elsewhere = before.create_group("Another group")  # takes the id the backdated match has in `after`
    ghosts = [before.create_player(elsewhere, name).id for name in ("Xan", "Yu")]
    record(before, elsewhere, catan, *ghosts, f"{DAY} 17:00:00", "elsewhere")
    record(after, home, catan, ids["Ben"], ids["Ada"], f"{DAY} 18:00:00", "backdated", late=60)
    for store in (before, after):
        for i in range(later):
            winner, loser = ("Ada", "Ben") if i % 2 == 0 else ("Chiara", "Ada")
            record(store, home, catan, ids[winner], ids[loser], f"{DAY} 19:{i:02d}:00", f"later-{i}")
    try:
        yield group
    finally:
        for client in group.clients:
            await client.http.aclose()
        for http in group.https:
            await http.aclose()
        group.mirror.close()


@pytest.fixture
async def near(tmp_path):
    """The backdated match placed before 2 later matches (all on page 1 of the matches)."""
    async for group in made(tmp_path, 2):
        yield group


@pytest.fixture
async def deep(tmp_path):
    """The backdated match placed before 30 later matches (below page 1)."""
    async for group in made(tmp_path, 30):
        yield group


def listen(client: Group) -> list[int]:
    heard: list[int] = []
    client.history_listeners.append(heard.append)
    return heard


def held_form(client: Group) -> list[tuple[int, str]]:
    return [(m.number, m.id) for m in client.cached_matches()]


async def test_a_backdated_match_is_noticed_on_page_1_and_the_held_matches_follow(near):
    seat = near.seat(near.before)
    assert await seat.sync_matches() == 302
    assert held_form(seat)[0][0] == 302
    stats_before = [m.id for m in held_matches(seat)]  # parsed once; the stats read it from here on
    roster_before = held_roster(seat)
    heard = listen(seat)
    await near.move(seat)
    calls = seat.client.calls
    assert await seat.sync_matches() == 1
    assert seat.client.calls == calls + 1  # page 1 of the matches: it tells the change
    truth = await seat.all_matches()
    assert held_form(seat) == [(m.number, m.id) for m in truth]
    assert [m.external_id for m in seat.cached_matches(limit=3)] == ["later-1", "later-0", "backdated"]
    assert heard == [301]
    # the stats' parsed copies follow the rewrite (an update that only appends would hold match 302 twice)
    assert [m.id for m in held_matches(seat)] == [m.id for m in reversed(truth)] != stats_before
    roster = held_roster(seat)
    ids = {p.display_name: p.id for p in await seat.players()}
    ada, ben = ids["Ada"], ids["Ben"]
    assert (
        roster.played[ada] == roster_before.played[ada] + 1
        and roster.played[ben] == roster_before.played[ben] + 1
    )
    assert [m.number for m in player_matches(seat, ada)][-3:] == [301, 302, 303]


async def test_far_below_page_1_only_the_pages_down_to_the_change_are_read(deep):
    seat = deep.seat(deep.before)
    await seat.sync_matches()
    heard = listen(await deep.move(seat))
    calls = seat.client.calls
    await seat.sync_matches()
    assert seat.client.calls == calls + 2  # pages 1 and 2 (down to match 300, unchanged), not the group's 14
    assert held_form(seat) == [(m.number, m.id) for m in await seat.all_matches()]
    assert heard == [301]
    calls = seat.client.calls
    assert await seat.sync_matches() == 0 and seat.client.calls == calls + 1  # and then nothing is new


async def test_standings_held_after_the_change_are_dropped_and_those_before_kept(near):
    seat = near.seat(near.before)
    await seat.sync_matches()
    for n in (300, 301):
        await seat.rankings_page(1, match=n)  # final: later matches exist
    await seat.rankings_page(1)
    assert near.mirror.rankings.rankings("", 301, 1).final and near.mirror.rankings.rankings("", 300, 1).final
    await near.move(seat)
    seat.invalidate("matches")  # what the live probe does when the counters moved
    calls = seat.client.calls
    after_301 = await seat.rankings_page(1, match=301)
    assert seat.client.calls == calls + 2  # the held matches brought up to date (page 1), then the standings
    assert after_301.match is not None and after_301.match.external_id == "backdated"
    fresh = near.seat(near.after, Mirror(None, "another seat"))
    assert after_301 == await fresh.rankings_page(1, match=301)
    assert near.mirror.rankings.rankings("", LAST, 1) is None  # the latest standings held were dropped too
    calls = seat.client.calls
    kept = await seat.rankings_page(1, match=300)
    assert seat.client.calls == calls  # before the change: still true, still held
    assert kept.data == (await fresh.rankings_page(1, match=300)).data  # (its subset's counts are of then)


async def test_the_effect_of_the_backdated_match_is_at_its_place(near):
    seat = near.seat(near.before)
    await seat.sync_matches()
    await seat.rankings_page(1, match=301)  # the standings after the old 301 (a later match), held
    await near.move(seat)
    number = await number_of(seat, external_id="backdated")
    assert number == 301
    effect = await match_effect(seat, number)
    assert effect.later == 2 and effect.heading() == "Match 301, played before 2 later matches"
    rows = {r.player.id: r for r in await seat.all_rankings(match=301)}
    assert [p.delta for p in effect.players] == pytest.approx(
        [rows[p.player_id].delta_ree for p in effect.players], abs=0.01
    )
    assert {p.name for p in effect.players} == {"Ada", "Ben"}
    latest = await match_effect(seat, 303)
    assert latest.later == 0 and latest.heading() == "Match 303"


async def test_a_players_chart_follows_the_history_that_changed(near):
    seat = near.seat(near.before)
    ada = next(p.id for p in await seat.players() if p.display_name == "Ada")
    drawn = await player_history(seat, ada)
    assert drawn.complete and drawn.points[-1].match_number == 302
    await near.move(seat)
    seat.invalidate("matches")  # what the live probe does when the counters moved
    again = await player_history(seat, ada)
    fresh = await player_history(near.seat(near.after, Mirror(None, "another seat")), ada)
    assert again.complete and again.points == fresh.points != drawn.points
    assert again.points[-1].match_number == 303


async def test_on_one_service_a_match_played_earlier_is_placed_and_the_seat_follows(tmp_path):
    """The same, on one embedded service that places a backdated match at its date: another seat records a
    match dated between the demo's matches 270 and 271 (two pages down)."""
    clock = SettableClock()
    group = Stores(
        demo_store(clock=clock), demo_store(clock=clock), clock, Mirror(tmp_path / "m.db", "seat"), [], []
    )
    seat, other = group.seat(group.before), group.seat(group.before, Mirror(None, "other seat"))
    try:
        await seat.sync_matches()
        for n in (269, 270, 271, 290):
            await seat.rankings_page(1, match=n)
        heard = listen(seat)
        held = {m.number: m for m in seat.cached_matches()}
        ids = {p.display_name: p.id for p in await Group.of(other).players()}
        catan = next(g.id for g in await Group.of(other).games() if g.name == "Catan")
        date = held[270].date  # equal dates keep the order of arrival: after 270, before 271
        assert held[271].date > date
        match = NewMatch(
            game=catan,
            weight=Weight.NORMAL,
            external_id="played-earlier",
            date=date,
            factions=[NewFaction(players=[ids["Ben"]], rank=1), NewFaction(players=[ids["Ada"]], rank=2)],
        )
        assert (await other.add_matches(match)).accepted_count == 1
        seat.invalidate("matches")  # what the live probe does when the counters moved
        calls = seat.client.calls
        after_271 = await seat.rankings_page(1, match=271)
        assert seat.client.calls == calls + 3  # matches pages 1 and 2 (down to 270, unchanged), the standings
        assert after_271.match is not None and after_271.match.external_id == "played-earlier"
        assert heard == [271]
        truth = await Group.of(other).all_matches()
        assert held_form(seat) == [(m.number, m.id) for m in truth]
        assert [m.id for m in seat.cached_matches()][:30] == [m.id for m in truth][:30]
        assert [group.mirror.rankings.rankings("", n, 1) is not None for n in (269, 270, 271, 290)] == [
            True,
            True,
            True,
            False,
        ]
        for n in (270, 271, 290):
            assert (await seat.rankings_page(1, match=n)).data == (
                await Group.of(other).rankings_page(1, match=n)
            ).data
    finally:
        for client in group.clients:
            await client.http.aclose()
        group.mirror.close()


async def test_standings_that_disagree_with_the_held_matches_are_not_kept_for_good(near):
    seat = near.seat(near.before)
    await seat.sync_matches()
    await near.move(seat)  # the seat's matches were synced just now: it has not noticed the change yet
    page = await seat.rankings_page(1, match=301)
    assert page.match is not None and page.match.external_id == "backdated"
    assert not near.mirror.rankings.rankings("", 301, 1).final  # the mirror holds another match as 301
    await seat.sync_matches()
    await seat.rankings_page(1, match=301)
    assert near.mirror.rankings.rankings("", 301, 1).final  # now they agree


async def test_a_service_that_numbers_on_arrival_but_rates_by_date_drops_the_standings_after_the_date(
    fake, group
):
    """What the embedded service cannot be made to do (it numbers matches in the order played): a service
    that gives a late match the next number, dated before held ones. The standings held after the held
    matches dated after it are dropped; those before are kept."""
    group = Group.of(group)  # a client: read through its group

    def match(number: int, hour: int) -> dict:
        return {"id": f"m{number}", "number": number, "date": f"{DAY} {hour:02d}:00:00", "factions": []}

    held = [match(1, 17), match(2, 18), match(3, 19)]
    listed = held[:]

    def page(_request: httpx.Request) -> httpx.Response:
        data = sorted(listed, key=lambda m: -m["number"])
        return ok({"page": 1, "totalPages": 1, "rowsForPage": 25, "totalMatches": len(data), "data": data})

    fake.routes["GET matches/1"] = page
    heard = listen(group)
    await group.sync_matches()
    for n in (1, 2):
        group.mirror.rankings.put_rankings("", n, 1, {"page": 1, "data": []}, final=True)
    listed.append(match(4, 17) | {"date": f"{DAY} 17:30:00"})  # played between matches 1 and 2
    assert await group.sync_matches() == 1
    assert (
        group.mirror.rankings.rankings("", 1, 1) is not None
        and group.mirror.rankings.rankings("", 2, 1) is None
    )
    assert heard == [2]
    listed.append(match(5, 20))  # played after all: nothing dropped
    group.mirror.rankings.put_rankings("", 3, 1, {"page": 1, "data": []}, final=True)
    await group.sync_matches()
    assert group.mirror.rankings.rankings("", 3, 1) is not None and heard == [2]


async def test_two_syncs_at_once_rewrite_once(deep):
    seat = deep.seat(deep.before)
    await seat.sync_matches()
    heard = listen(await deep.move(seat))
    slowed: list[str] = []

    async def first_page_2_is_slow(request: httpx.Request) -> None:
        if request.url.path.endswith("/matches/2") and not slowed:
            slowed.append(request.url.path)
            await asyncio.sleep(0.2)  # the first sync is still reading when the second starts

    seat.client.http.event_hooks["request"].append(first_page_2_is_slow)
    calls = seat.client.calls
    assert sorted(await asyncio.gather(seat.sync_matches(), seat.sync_matches())) == [0, 1]
    assert heard == [301]  # the second waited for the first (two pages), then found nothing new
    assert seat.client.calls == calls + 3
    assert held_form(seat) == [(m.number, m.id) for m in await seat.all_matches()]


async def test_past_standings_are_asked_again_rather_than_waiting_for_a_sync_under_way(near):
    seat = near.seat(near.before)
    await seat.sync_matches()
    await seat.rankings_page(1, match=300)
    near.clock.advance(seat.fresh_for)  # the held matches no longer vouch for the standings by themselves
    done: list[str] = []

    async def slow_matches(request: httpx.Request) -> None:
        if request.url.path.endswith("/matches/1"):
            await asyncio.sleep(0.2)  # a sync under way (a large group's may take minutes)

    seat.client.http.event_hooks["request"].append(slow_matches)

    async def sync() -> None:
        await seat.sync_matches()
        done.append("sync")

    async def standings() -> None:
        await asyncio.sleep(0)  # once the sync has started
        await seat.rankings_page(1, match=300)
        done.append("standings")

    await asyncio.gather(sync(), standings())
    assert done == ["standings", "sync"]
