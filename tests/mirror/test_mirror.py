"""The group on disk: the client's mirror against the embedded service (in-process), with the network cut by
`FaultyTransport`: lists answered offline, incremental match sync, ghosts from another seat, rankings kept,
and a mirror file that is private and survives being broken."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror, sync
from rankterm.mirror.file import SCHEMA_VERSION
from rankterm.server.seed import demo_app
from rankterm.wire import errors as er
from rankterm.wire.ids import new_local_id
from rankterm.wire.models import NewFaction, NewMatch, Player
from tests.support.clock import SettableClock
from tests.support.faults import FaultyTransport

BASE = "http://in-process.rankterm/"
SCOPE = f"{BASE}|demo"


class Seat:
    """One laptop: a client on the shared service through its own cuttable network, with its own mirror."""

    def __init__(self, app, key: str, secret: str, clock: SettableClock, mirror_path: Path | None) -> None:
        self.net = FaultyTransport(httpx.ASGITransport(app=app))
        self.http = httpx.AsyncClient(transport=self.net, base_url=BASE)
        self.mirror = Mirror(mirror_path, SCOPE, clock=clock)
        self.client = RankingClient(BASE, key=key, secret=secret, http=self.http, clock=clock, backoff=0.0)
        self.group = Group(self.client, self.mirror)

    async def aclose(self) -> None:
        await self.http.aclose()
        self.mirror.close()


@pytest.fixture
async def group(tmp_path):
    """The demo group (300 matches) on one in-process service, and a way to sit down at it."""
    clock = SettableClock()
    app, key, secret = demo_app(clock=clock)
    seats: list[Seat] = []

    def seat(mirror_path: Path | None = tmp_path / "mirror.db") -> Group:
        s = Seat(app, key, secret, clock, mirror_path)
        seats.append(s)
        return s.group

    seat.clock = clock  # type: ignore[attr-defined]
    seat.seats = seats  # type: ignore[attr-defined]
    yield seat
    for s in seats:
        await s.aclose()


def net(group: Group) -> FaultyTransport:
    return group.client.http._transport  # type: ignore[return-value]


def duel(game: int, winner: str, loser: str) -> NewMatch:
    return NewMatch(
        game=game,
        weight="normal",
        factions=[NewFaction(players=[winner], rank=1, points="3"), NewFaction(players=[loser], rank=2)],
    )


async def test_a_new_seat_with_the_network_down_still_lists_the_group(group):
    first = group()
    games, players, subsets = await first.games(), await first.players(), await first.subsets()
    read_at = group.clock()
    group.clock.advance(3600)
    again = group()  # the next run: same file, no network
    net(again).down = True
    assert [g.id for g in await again.games()] == [g.id for g in games]
    assert [p.id for p in await again.players()] == [p.id for p in players]
    assert [(s.id, s.count_matches) for s in await again.subsets()] == [
        (s.id, s.count_matches) for s in subsets
    ]
    assert again.as_of is not None and again.as_of.timestamp() == pytest.approx(read_at)
    assert again.as_of_for("players") == again.as_of
    page = await again.players_page(1)
    assert [p.id for p in page.data] == [p.id for p in players[:25]]
    net(again).down = False
    await again.games(refresh=True)
    assert again.as_of_for("games") is None and again.as_of is not None  # players still as of then
    await again.players(refresh=True)
    await again.subsets(refresh=True)
    assert again.as_of is None


async def test_with_nothing_held_offline_is_still_an_error(group):
    seat = group()
    net(seat).down = True
    with pytest.raises(er.Offline):
        await seat.games()
    assert seat.cached_games() == [] and seat.synced_at("games") is None


async def test_cached_lists_read_only_the_mirror(group):
    seat = group()
    await seat.games()
    await seat.players()
    calls = seat.client.calls
    assert seat.cached_games() and seat.cached_players() and seat.cached_subsets() == []
    assert seat.synced_at("games") is not None and seat.synced_at("subsets") is None
    assert seat.client.calls == calls


async def test_match_sync_asks_only_for_new_pages(group):
    seat = group()
    assert await seat.sync_matches() == 300
    assert seat.mirror.held.match_numbers() == (300, 300)
    calls = seat.client.calls
    assert await seat.sync_matches() == 0
    assert seat.client.calls == calls + 1  # nothing new: page 1 says so
    players = await seat.players()
    game = (await seat.games())[0].id
    other = group(None)  # another seat records 30 matches
    await other.add_matches([duel(game, players[i % 5].id, players[5].id) for i in range(30)])
    calls = seat.client.calls
    assert await seat.sync_matches() == 30
    assert seat.client.calls == calls + 2  # 30 new matches: pages 1 and 2, not the 14 pages of the group
    held = seat.cached_matches()
    everything = await seat.all_matches()
    assert [m.number for m in held] == [m.number for m in everything] == list(range(330, 0, -1))
    assert [m.id for m in seat.cached_matches(subset=None, limit=3)] == [m.id for m in everything[:3]]


def held_behind(seat: Group) -> list[tuple[int, int]]:
    """Hold a match the service does not have (number 999) and record, at each part a full read writes
    aside, the held (count, top): the read of everything again is the one this forces."""
    first = seat.cached_matches()[0]
    seat.mirror.held.put_matches([(999, None, {**first.model_dump(by_alias=True), "number": 999})])
    seen: list[tuple[int, int]] = []
    stage = seat.mirror.held.stage_matches

    def staging(rows, *, first=False):
        rows = list(rows)
        seen.append((len(rows), *seat.mirror.held.match_numbers()))
        stage(rows, first=first)

    seat.mirror.held.stage_matches = staging  # type: ignore[method-assign]
    return seen


async def test_a_full_read_writes_its_parts_aside_and_swaps_them_in_at_once(group, monkeypatch):
    monkeypatch.setattr(sync, "RESYNC_PAGES", 3)
    seat = group()
    await seat.sync_matches()
    seen = held_behind(seat)
    calls = seat.client.calls
    await seat.sync_matches()  # 301 held, 300 on the service: everything is read again
    assert seat.client.calls == calls + 12  # page 1 (which says the counts disagree), then pages 2..12
    # page 1, then pages 2-4, 5-7, 8-10, 11-12: never more than 3 pages' rows held in memory, and the
    # held matches stay as they were (the stray 999 included) until the last part is in
    assert [n for n, _, _ in seen] == [25, 75, 75, 75, 50]
    assert {(count, top) for _, count, top in seen} == {(301, 999)}
    assert seat.mirror.held.match_numbers() == (300, 300)
    assert [m.number for m in seat.cached_matches()] == list(range(300, 0, -1))


async def test_a_full_read_cut_midway_leaves_the_held_matches_whole(group, monkeypatch):
    monkeypatch.setattr(sync, "RESYNC_PAGES", 3)
    seat = group()
    await seat.sync_matches()
    seen = held_behind(seat)
    stage = seat.mirror.held.stage_matches

    def then_cut(rows, *, first=False):
        stage(rows, first=first)
        if len(seen) == 2:  # the network goes after the second part
            net(seat).down = True

    seat.mirror.held.stage_matches = then_cut  # type: ignore[method-assign]
    with pytest.raises(er.Offline):
        await seat.sync_matches()
    assert seat.mirror.held.match_numbers() == (301, 999)
    net(seat).down = False
    seat.mirror.held.stage_matches = stage  # type: ignore[method-assign]
    await seat.sync_matches()  # the next read starts its parts afresh
    assert [m.number for m in seat.cached_matches()] == list(range(300, 0, -1))


async def test_the_held_match_before_a_number_is_looked_up_not_read(group):
    seat = group()
    subsets = await seat.subsets()
    await seat.sync_matches()
    for subset in subsets:
        numbers = [m.number for m in seat.cached_matches(subset=subset.id)]
        for number in (numbers[0] + 1, numbers[0], numbers[len(numbers) // 2], numbers[-1], 1):
            below = [n for n in numbers if n < number]
            assert seat.held_number_below(number, subset=subset.id) == (max(below) if below else None)
    assert seat.held_number_below(300) == 299
    assert seat.held_number_below(50, subset="no such subset") is None


async def test_offline_matches_pages_come_from_the_held_matches(group):
    seat = group()
    await seat.subsets()
    await seat.sync_matches()
    online = await seat.matches_page(2)
    one_game = next(s for s in await seat.subsets() if s.game is not None)
    online_game = await seat.matches_page(1, subset=one_game.id)
    net(seat).down = True
    offline = await seat.matches_page(2)
    assert [m.id for m in offline.data] == [m.id for m in online.data]
    assert (offline.total_matches, offline.total_pages) == (online.total_matches, online.total_pages)
    offline_game = await seat.matches_page(1, subset=one_game.id)
    assert [m.id for m in offline_game.data] == [m.id for m in online_game.data]
    assert offline_game.total_matches == one_game.count_matches
    assert seat.as_of_for("matches") is not None


async def test_a_ghost_made_on_another_seat_appears_after_revalidation(group):
    here, there = group(), group(None)
    before = await here.players()
    ghost = await there.create_player("Newcomer")
    assert ghost.id not in [p.id for p in await here.players()]  # read a moment ago: no request
    assert ghost.id in [p.id for p in await here.players(refresh=True)]
    assert ghost.id in [p.id for p in here.cached_players()]
    other = await there.create_player("Later")
    group.clock.advance(here.fresh_for + 1)
    assert other.id in [p.id for p in await here.players()]  # older than fresh_for: asked again
    assert len(here.cached_players()) == len(before) + 2


async def test_writes_from_this_seat_land_in_the_mirror(group):
    seat = group()
    players, games, subsets = await seat.players(), await seat.games(), await seat.subsets()
    calls = seat.client.calls
    ghost = await seat.create_player("Walk-in")
    game = await seat.create_game(name="Hanabi")
    assert seat.client.calls == calls + 2
    assert [p.id for p in seat.cached_players()] == [p.id for p in players] + [ghost.id]
    net(seat).down = True
    assert ghost.id in [p.id for p in await seat.players()]  # offline too, from the answer to the write
    net(seat).down = False
    calls = seat.client.calls
    assert ghost.id in [p.id for p in await seat.players()]  # online: asked again, for the service's order
    assert [g.id for g in await seat.games()] == [g.id for g in games]  # asked: not played yet
    assert seat.client.calls == calls + 2
    main = next(s for s in subsets if s.is_main)
    await seat.add_matches(duel(game.id, players[0].id, ghost.id))
    calls = seat.client.calls
    fresh_main = next(s for s in await seat.subsets() if s.is_main)
    assert seat.client.calls == calls + 1 and fresh_main.count_matches == main.count_matches + 1
    assert game.id in [g.id for g in await seat.games()]  # its first match made it one of the group's
    assert seat.client.calls == calls + 2


async def test_a_ghost_held_under_a_local_id_stays_through_reads_until_dropped(group, tmp_path):
    seat = group()
    players = await seat.players()
    local = Player(id=new_local_id(), ghost=True, display_name="*Walk-in")
    seat.hold_player(local)
    assert [p.id for p in seat.cached_players()] == [p.id for p in players] + [local.id]
    calls = seat.client.calls
    assert local.id in [p.id for p in await seat.players(refresh=True)]  # online: asked, and still kept
    assert seat.client.calls > calls
    assert local.id in [p.id for p in seat.cached_players()]
    assert local.id not in [p.id for p in await seat.players_now()]  # the service's list: not a local one
    net(seat).down = True
    assert local.id in [p.id for p in await seat.players()]  # offline: from the mirror, with it
    with pytest.raises(er.Offline):
        await seat.players_now(refresh=True)  # never an older copy
    again = group()  # a restart: the mirror file holds it
    assert local.id in [p.id for p in again.cached_players()]
    seat.drop_player(local.id)
    assert local.id not in [p.id for p in seat.cached_players()]
    assert len(seat.cached_players()) == len(players)


async def test_rankings_after_a_past_match_are_read_once(group):
    seat = group()
    await seat.sync_matches()
    first = await seat.rankings_page(1, match=120)
    assert first.match is not None and first.match.number == 120 and first.data
    calls = seat.client.calls
    again = await seat.rankings_page(1, match=120)
    assert seat.client.calls == calls  # no request: the matches held were synced just now
    assert again.to_wire() == first.to_wire()
    group.clock.advance(seat.fresh_for)
    await seat.rankings_page(1, match=120)
    assert (
        seat.client.calls == calls + 1
    )  # the held matches checked (page 1 of the matches), the standings held
    other = group(None)  # another seat, nothing held
    assert await Group.of(other).rankings_page(1, match=120) == first  # the service says the same
    calls = other.client.calls
    await Group.of(other).rankings_page(1, match=120)
    assert other.client.calls == calls + 1  # no match ever held to vouch for them: the standings asked again


async def test_the_latest_standings_are_asked_again_and_kept_for_offline(group):
    seat = group()
    latest = await seat.rankings_page(1, match=300)  # the last match: status still moves with time
    calls = seat.client.calls
    await seat.rankings_page(1, match=300)
    assert seat.client.calls == calls + 1
    last = await seat.rankings_page(1)
    await seat.rankings_page(1)
    assert seat.client.calls == calls + 3
    net(seat).down = True
    assert (await seat.rankings_page(1)).to_wire() == last.to_wire()
    assert (await seat.rankings_page(1, match=300)).to_wire() == latest.to_wire()
    assert seat.as_of_for("rankings") is not None
    with pytest.raises(er.Offline):
        await seat.rankings_page(2, match=17)  # never read


async def test_the_mirror_file_is_private(group, tmp_path):
    seat = group()
    await seat.players()
    for name in ("mirror.db", "mirror.db-wal"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(b"this is not a database at all" * 100), id="garbage"),
        pytest.param(lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000), id="bad-header"),
        pytest.param(lambda p: p.mkdir(), id="a-directory"),
    ],
)
async def test_a_broken_mirror_is_reported_in_one_sentence_and_replaced(group, tmp_path, damage):
    path = tmp_path / "mirror.db"
    damage(path)
    seat = group(path)
    problem = seat.mirror.problem
    assert problem and str(path) in problem and problem.endswith(".") and "\n" not in problem
    assert "Traceback" not in problem
    assert len(await seat.games()) == 8
    assert len(seat.cached_games()) == 8  # the mirror works (afresh, or in memory for this run)


def truncate_half(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("kind", ["truncated", "garbage"])
async def test_a_damaged_mirror_is_moved_aside_beside_itself_and_rebuilt_from_the_service(
    group, tmp_path, kind
):
    path = tmp_path / "mirror.db"
    first = group(path)
    await first.games()
    await first.players()
    first.mirror.close()
    if kind == "truncated":
        truncate_half(path)
    else:
        path.write_bytes(b"not a mirror " * 500)
    damaged = path.read_bytes()
    seat = group(path)
    [aside] = [p for p in tmp_path.glob("mirror.db.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert aside.read_bytes() == damaged  # kept as it was, to be looked at
    problem = seat.mirror.problem or ""
    assert f"{path} could not be read" in problem and f"moved to {aside}" in problem and "\n" not in problem
    assert len(await seat.games()) == 8 and len(seat.cached_games()) == 8  # read again from the service


async def test_a_mirror_damaged_while_open_starts_afresh(group, tmp_path):
    seat = group()
    await seat.games()
    seat.mirror.file.db.execute("DROP TABLE items")  # as if the file lost a table under us
    assert seat.cached_games() == []
    assert seat.mirror.problem and "afresh" in seat.mirror.problem
    assert len(await seat.games(refresh=True)) == 8 and len(seat.cached_games()) == 8


def test_another_version_or_scope_is_started_afresh(tmp_path):
    path = tmp_path / "m.db"
    m = Mirror(path, "a|k")
    m.lists.replace("games", [("1", {"id": 1, "name": "Go"})])
    m.close()
    m = Mirror(path, "a|k")
    assert m.lists.items("games") == [{"id": 1, "name": "Go"}] and m.problem is None
    m.close()
    m = Mirror(path, "b|k")
    assert m.lists.items("games") is None and "another service" in (m.problem or "")
    m.lists.replace("games", [("1", {"id": 1})])
    m.close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    m = Mirror(path, "b|k")
    assert m.lists.items("games") is None and "another version" in (m.problem or "")
    m.close()


async def test_offline_the_latest_standings_are_those_read_after_the_newest_match(group):
    """Standings read after a match just recorded are the latest: offline, the latest standings are those,
    not an older read of them (Home after a restart without the service)."""
    seat = group()
    before = await seat.rankings_page(1)
    assert before.match is not None and before.match.number == 300
    game = (await seat.games())[0]
    players = await seat.players()
    await seat.add_matches(duel(game.id, players[0].id, players[1].id))
    after = await seat.rankings_page(1, match=301)  # what the form reads to say what the match did
    assert after.match is not None and after.match.number == 301
    net(seat).down = True
    latest = await seat.rankings_page(1)
    assert latest.match is not None and latest.match.number == 301
    assert latest.to_wire() == after.to_wire()
