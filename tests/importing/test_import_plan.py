"""Imports into the embedded service, in process: each fixture's plays mapped onto a group (people
by name, games by BGG id then name), recorded through the outbox with the ranks stated, a second import of
the same file recording nothing, the map file, the public service's rules, and a dropped connection.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.importing import MapFile, load_map, open_source, plan_import, send_plan
from rankterm.importing.plan import BAD_DATE, FUTURE, NO_ORDER, NO_PLAYER, SOURCE, TOO_OLD, TWICE
from rankterm.mirror import Group as Reads
from rankterm.outbox.outbox import Outbox, OutboxSender, State
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from rankterm.wire.errors import Offline, QuotaError
from rankterm.wire.models import Match
from tests.support.clock import SettableClock
from tests.support.faults import FaultyTransport

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"
BASE = "http://import.test/"
COOP = MapFile(cooperative=frozenset({"pandemic"}))


@dataclass
class Group:
    """An empty group of the embedded service, a client that can lose its network, and an outbox."""

    client: RankingClient
    transport: FaultyTransport
    outbox: Outbox

    def __post_init__(self) -> None:
        self.reads = Reads(self.client)

    def sender(self) -> OutboxSender:
        return OutboxSender(self.outbox, self.reads, max_rounds=1, backoff=0)

    async def matches(self) -> dict[str, Match]:
        return {m.external_id: m for m in await self.reads.all_matches()}


@pytest.fixture
async def group(tmp_path: Path):
    store = Store(tmp_path / "service.db")
    key, secret = store.create_client(store.create_group("Import night"))
    transport = FaultyTransport(httpx.ASGITransport(app=create_app(store)))
    http = httpx.AsyncClient(transport=transport, base_url=BASE)
    client = RankingClient(BASE, key=key, secret=secret, http=http, retries=0, backoff=0)
    outbox = Outbox(tmp_path / "outbox.db", scope=client.scope)
    for name in ("Dan", "bob"):  # "Dán" and "Bob" of the files are these two, case and accents aside
        await Reads(client).create_player(name)
    yield Group(client, transport, outbox)
    outbox.close()
    await http.aclose()
    store.close()


async def run(group: Group, name: str, map_file: MapFile | None = COOP, **kw):
    plan = await plan_import(
        group.reads, open_source(FIXTURES / name), map_file=map_file, outbox=group.outbox, **kw
    )
    with plan:
        report = await send_plan(plan, group.reads, group.outbox, group.sender().send_pending)
    return plan, report


def result(match: Match) -> list[tuple[int, tuple[str, ...], bool]]:
    """(rank, player names without the ghost's *, bot) of each faction, best first."""
    return sorted(
        (f.rank, tuple(p.display_name.lstrip("*") for p in f.players), bool(f.bot)) for f in match.factions
    )


async def test_bgstats_file_mapped_as_stated_and_a_second_import_records_nothing(group: Group) -> None:
    plan, report = await run(group, "bgstats.json")
    assert (plan.plays_read, plan.to_record, report.recorded, report.rejected) == (14, 8, 8, 0)
    assert plan.skip_counts == {TWICE: 1, SOURCE: 1, NO_ORDER: 1, NO_PLAYER: 2, "M006": 1}
    people = {p.source: (p.how, p.new) for p in plan.players}
    assert people == {
        "Ada": ("new ghost", True),
        "Carla": ("new ghost", True),
        "Bob": ("same name (case, accents)", False),
        "Dán": ("same name (case, accents)", False),
    }
    assert {g.source: g.how for g in plan.games}["Hearts"] == "catalogue (name)"
    assert report.ghosts_made == 2 and report.games_made == 0
    got = await group.matches()
    assert result(got["bgs-play-01-tie"]) == [
        (1, ("Ada",), False),
        (2, ("Carla",), False),
        (2, ("bob",), False),
    ]
    assert result(got["bgs-play-03-lowest"])[0] == (1, ("bob",), False)
    assert result(got["bgs-play-04-coop-loss"]) == [(1, (), True), (2, ("Ada", "bob"), False)]
    assert result(got["bgs-play-05-coop-win"]) == [(1, ("Ada", "Carla"), False), (2, (), True)]
    assert result(got["bgs-play-06-teams"]) == [(1, ("Ada", "bob"), False), (2, ("Carla", "Dan"), False)]
    assert got["bgs-play-02-sum"].factions[0].points == 19
    assert got["bgs-play-02-sum"].game is not None and got["bgs-play-02-sum"].game.name == "Catan"
    assert [m.number for m in sorted(got.values(), key=lambda m: m.date)] == sorted(
        m.number for m in got.values()
    )

    again, second = await run(group, "bgstats.json")
    assert (again.to_record, again.already, second.recorded, second.requests) == (0, 8, 0, 0)
    assert again.new_players == [] and len(await group.matches()) == 8


async def test_bgg_file_games_by_bgg_id_then_name_made_when_new(group: Group) -> None:
    plan, report = await run(group, "plays.xml")
    assert (plan.to_record, report.recorded) == (7, 7)
    assert plan.skip_counts == {SOURCE: 2, NO_PLAYER: 1, TWICE: 1}
    games = {g.source: (g.how, g.new) for g in plan.games}
    assert games["Catan"] == ("catalogue (BGG id)", False)
    assert games["Our Kitchen Table Game"] == ("new", True)
    assert report.games_made == 1
    got = await group.matches()
    assert {"bgg-102", "bgg-102-2"} <= set(got)
    assert result(got["bgg-103"]) == [(1, ("Ada",), False), (1, ("bob",), False), (3, ("Carla",), False)]
    assert result(got["bgg-107"])[0] == (1, (), True)  # co-op (by the map file), nobody won: the game did
    assert got["bgg-102"].date == "2026-04-02 12:00:00"
    again, second = await run(group, "plays.xml")
    assert (again.to_record, again.already, second.recorded) == (0, 7, 0)
    assert again.new_games == []  # the game made by name is the group's now


async def test_csv_file_and_its_second_import(group: Group) -> None:
    plan, report = await run(group, "plays.csv")
    assert (plan.to_record, report.recorded) == (5, 5)
    assert plan.skip_counts == {NO_ORDER: 1, NO_PLAYER: 1, BAD_DATE: 1, TWICE: 1}
    got = await group.matches()
    assert len(got) == 5
    again, second = await run(group, "plays.csv")
    assert (again.to_record, second.recorded) == (0, 0)


async def test_without_the_map_a_coop_loss_has_no_order_and_the_map_names_the_anonymous(
    group: Group, tmp_path: Path
) -> None:
    plan = await plan_import(group.reads, open_source(FIXTURES / "plays.xml"), outbox=group.outbox)
    with plan:
        assert plan.skip_counts[NO_ORDER] == 1
    mapping = tmp_path / "players.toml"
    mapping.write_text('[players]\n"Anonymous player" = "Guest"\n"Carla" = "Dan"\n')
    plan = await plan_import(group.reads, open_source(FIXTURES / "bgstats.json"), map_file=load_map(mapping))
    with plan:
        people = {p.source: (p.name, p.how) for p in plan.players}
        assert people["Anonymous player"] == ("Guest", "map file: new")
        assert people["Carla"] == ("*Dan", "map file")
        # Carla mapped to Dan: the teams play now has Dan twice, and the service's rule says so
        assert any(s.kind == "M006" and s.where == "play 6" for s in plan.skipped)


async def test_two_group_players_fitting_one_name_is_a_question_not_a_guess(group: Group) -> None:
    await group.reads.create_player("BOB")
    plan = await plan_import(group.reads, open_source(FIXTURES / "plays.csv"), map_file=COOP)
    with plan:
        reasons = [s.reason for s in plan.skipped if s.kind == NO_PLAYER]
        assert any("'Bob' could be any of" in r for r in reasons)
        assert all(p.source != "Bob" for p in plan.players)


async def test_the_public_service_leaves_out_what_it_would_refuse(group: Group) -> None:
    may_28 = 1_780_000_000.0  # 2026-05-28
    plan = await plan_import(
        group.reads, open_source(FIXTURES / "plays.csv"), map_file=COOP, public=True, now=may_28
    )
    with plan:
        assert plan.to_record == 5  # every CSV play is of May 2026: within 31 days
        assert plan.notes and "31 days" in plan.notes[0]
    plan = await plan_import(
        group.reads, open_source(FIXTURES / "plays.csv"), public=True, now=may_28 - 86400 * 25
    )
    with plan:
        assert plan.skip_counts[FUTURE] == 4  # the plays of May 4 to 7 are after the 3rd
    plan = await plan_import(group.reads, open_source(FIXTURES / "bgstats.json"), public=True, now=may_28)
    with plan:
        assert plan.to_record == 0 and plan.skip_counts[TOO_OLD] == 12  # March: too old to backdate


async def test_a_dropped_connection_loses_nothing_and_the_next_import_sends_the_rest(group: Group) -> None:
    source = open_source(FIXTURES / "bgstats.json")
    plan = await plan_import(group.reads, source, map_file=COOP, outbox=group.outbox)
    sends = 0

    async def send_then_drop():
        nonlocal sends
        sends += 1
        group.transport.down = True  # the Wi-Fi goes as the first chunk is sent
        return await group.sender().send_pending()

    with plan:
        report = await send_plan(plan, group.reads, group.outbox, send_then_drop, chunk=3)
    assert isinstance(report.stopped, Offline)
    assert report.recorded == 0 and report.waiting == 8 and sends == 1
    assert len(group.outbox.entries(State.PENDING)) == 8 and len(group.outbox.ghosts()) == 2

    group.transport.down = False
    again = await plan_import(group.reads, source, map_file=COOP, outbox=group.outbox)
    with again:
        assert (again.to_record, again.queued) == (0, 8)  # all in the outbox: sent from there
        assert again.new_players == []  # the queued ghosts are offered by name
        report = await send_plan(again, group.reads, group.outbox, group.sender().send_pending)
    assert report.waiting == 0
    assert len(await group.matches()) == 8
    assert group.outbox.counts()[State.SENT] == 10  # 8 matches and 2 ghosts, each once


async def test_the_quota_stops_sending_the_rest_waits_and_goes_out_the_next_hour(tmp_path: Path) -> None:
    clock = SettableClock()
    store = Store(tmp_path / "service.db", clock=clock)
    key, secret = store.create_client(store.create_group("Busy"))
    app = create_app(store, clock=clock, limits=QuotaLimits(matches_per_hour=3))
    client = RankingClient.in_process(app, key=key, secret=secret, base_url=BASE, clock=clock, batch_size=1)
    outbox = Outbox(None, scope=client.scope)
    source = open_source(FIXTURES / "bgstats.json")
    try:
        reads = Reads(client)
        with await plan_import(reads, source, map_file=COOP, outbox=outbox) as plan:
            assert any("Quota used" in note for note in plan.notes)
            report = await send_plan(plan, reads, outbox, OutboxSender(outbox, reads).send_pending, chunk=2)
        assert isinstance(report.stopped, QuotaError)
        assert (report.recorded, report.waiting) == (3, 5)  # the rest of the file is queued all the same
        clock.advance(3600)
        with await plan_import(reads, source, map_file=COOP, outbox=outbox) as again:
            assert (again.to_record, again.queued) == (0, 5)
            report = await send_plan(again, reads, outbox, OutboxSender(outbox, reads).send_pending)
        assert (report.recorded, report.waiting) == (3, 2)
    finally:
        outbox.close()
        await client.aclose()
        store.close()
