"""Imports that stay true, into the embedded service in process: a play dated in the future is
skipped by the rule the service and the form judge by (M010), any past date goes to the embedded service,
BoardGameGeek's unnamed seats are anonymous (never one ghost), BG Stats' local times are read in a zone the
dry run names (`--tz`), a new game keeps the BGG id its file gives, and a file whose plays all fail (dates
that cannot be read) exits 1 with the reason.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from rankterm.cli import main
from rankterm.client.client import RankingClient
from rankterm.importing import MapFile, open_source, plan_import, send_plan
from rankterm.importing.plan import FUTURE, NO_PLAYER, TOO_OLD
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox, OutboxSender
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.wire.errors import RanktermError
from rankterm.wire.new_match import future_date_problem

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"
BASE = "http://import.test/"
COOP = MapFile(cooperative=frozenset({"pandemic"}))


def at(text: str) -> float:
    """Seconds since the epoch of a UTC ``YYYY-MM-DD HH:MM``."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC).timestamp()


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def machine_in_auckland() -> Iterator[None]:
    """This process's time zone is Pacific/Auckland (UTC+13 in March) for the test."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Pacific/Auckland"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.fixture
async def service(tmp_path: Path):
    store = Store(tmp_path / "service.db")
    key, secret = store.create_client(store.create_group("True imports"))
    group = Group(
        RankingClient.in_process(create_app(store), key=key, secret=secret, base_url=BASE, retries=0)
    )
    outbox = Outbox(tmp_path / "outbox.db", scope=group.client.scope)
    yield group, outbox
    outbox.close()
    await group.client.aclose()
    store.close()


async def send(group: RankingClient, outbox: Outbox, path: Path, map_file: MapFile | None = COOP):
    with await plan_import(group, open_source(path), map_file=map_file, outbox=outbox) as plan:
        report = await send_plan(plan, group, outbox, OutboxSender(outbox, group, max_rounds=1).send_pending)
    return plan, report


# ---------------------------------------------------------------------------------------------- future dates


async def test_a_play_dated_ahead_of_now_is_skipped_by_the_service_rule(service) -> None:
    group, outbox = service
    now = at("2026-04-06 11:56")  # BGG days are taken at 12:00: the play of April 6 is 4 minutes ahead
    with await plan_import(
        group, open_source(FIXTURES / "plays.xml"), map_file=COOP, outbox=outbox, now=now
    ) as plan:
        assert not plan.public
        future = {s.external_id: s.reason for s in plan.skipped if s.kind == FUTURE}
        assert set(future) == {"bgg-107", "bgg-108", "bgg-109"}  # April 7, 8, 9
        ahead = future_date_problem(datetime(2026, 4, 8, 12), datetime.fromtimestamp(now, UTC))
        assert ahead is not None and future["bgg-108"] == ahead.sentence.rstrip(".")
        assert "bgg-106" not in future  # within the five minutes clocks may differ by
    later = at("2026-04-06 11:54")  # six minutes ahead: refused
    with await plan_import(group, open_source(FIXTURES / "plays.xml"), map_file=COOP, now=later) as plan:
        assert {s.external_id for s in plan.skipped if s.kind == FUTURE} == {
            "bgg-106",
            "bgg-107",
            "bgg-108",
            "bgg-109",
        }


def test_the_command_lists_a_play_of_tomorrow_as_skipped_and_records_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
    soon = (datetime.now(UTC) + timedelta(minutes=2)).strftime("%Y-%m-%d %H:%M")
    path = tmp_path / "plays.csv"
    path.write_text(
        "date,game,player,score\n"
        f"{tomorrow},Catan,Ada,10\n{tomorrow},Catan,Ben,8\n"
        f"{soon},Azul,Ada,40\n{soon},Azul,Ben,52\n"
        "2019-06-01 20:00,Azul,Ada,61\n2019-06-01 20:00,Azul,Ben,50\n"
    )
    assert main(["import", str(path), "--demo", "--dry-run", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)["dryRun"]
    assert (
        out["toRecord"] == 2
    )  # two minutes ahead is within the leeway; 2019 is fine for the embedded service
    (skipped,) = out["skippedPlays"]
    assert (
        skipped["kind"] == FUTURE
        and "is in the future" in skipped["reason"]
        and tomorrow in skipped["reason"]
    )


async def test_any_past_date_goes_to_the_embedded_service_and_the_window_stays_for_the_public_one(
    service,
) -> None:
    group, _outbox = service
    a_year_on = at("2027-03-20 12:00")  # the fixture's plays are of March 2026
    with await plan_import(
        group, open_source(FIXTURES / "bgstats.json"), map_file=COOP, now=a_year_on
    ) as plan:
        assert plan.to_record == 8 and TOO_OLD not in plan.skip_counts
    with await plan_import(
        group, open_source(FIXTURES / "bgstats.json"), map_file=COOP, now=a_year_on, public=True
    ) as plan:
        assert plan.to_record == 0 and plan.skip_counts[TOO_OLD] == 12


# ------------------------------------------------------------------------------------- anonymous BGG seats


def test_bgg_anonymous_seats_are_anonymous_not_a_person() -> None:
    plays = {p.external_id: p for p in open_source(FIXTURES / "plays_page2.xml").plays()}
    assert [s.anonymous for s in plays["bgg-95"].seats] == [True, False, True]
    assert [s.anonymous for s in plays["bgg-94"].seats] == [False, True]
    assert not any(s.anonymous for s in plays["bgg-96"].seats)  # userid 0 alone is just a guest with a name


async def test_bgg_anonymous_seats_wait_for_the_map_file_and_never_become_one_ghost(
    service, tmp_path: Path
) -> None:
    group, outbox = service
    with await plan_import(group, open_source(FIXTURES / "plays_page2.xml"), outbox=outbox) as plan:
        reasons = {s.external_id: (s.kind, s.reason) for s in plan.skipped}
        assert reasons["bgg-94"] == (
            NO_PLAYER,
            "an anonymous player (Anonymous player): say who in the map file",
        )
        assert reasons["bgg-95"][0] == NO_PLAYER  # two such seats: the same question, not M006
        assert "Anonymous player" not in {p.name for p in plan.players}
    mapped = MapFile(players={"Anonymous player": "Guest"})
    plan, report = await send(group, outbox, FIXTURES / "plays_page2.xml", map_file=mapped)
    reasons = {s.external_id: (s.kind, s.reason) for s in plan.skipped}
    assert "bgg-94" not in reasons and report.rejected == 0
    kind, reason = reasons["bgg-95"]
    assert kind == NO_PLAYER and reason.startswith(
        "2 anonymous seats, and the map file makes them one player"
    )
    matches = {m.external_id: m for m in await group.all_matches()}
    assert "Guest" in {p.display_name.lstrip("*") for f in matches["bgg-94"].factions for p in f.players}


# ------------------------------------------------------------------------------------------ BG Stats zones


def test_bg_stats_times_are_read_in_the_zone_given_whatever_this_machine_says(machine_in_auckland) -> None:
    source = open_source(FIXTURES / "bgstats.json")
    first = next(iter(source.plays(ZoneInfo("UTC"))))
    assert first.date == "2026-03-01 20:00:00"
    assert next(iter(source.plays(ZoneInfo("Europe/Paris")))).date == "2026-03-01 19:00:00"
    assert next(iter(source.plays())).date == "2026-03-01 07:00:00"  # this machine's zone: UTC+13 in March


async def test_the_dry_run_names_the_zone_of_local_times(service, machine_in_auckland) -> None:
    group, _outbox = service
    with await plan_import(group, open_source(FIXTURES / "bgstats.json"), map_file=COOP) as plan:
        assert plan.zone == "Pacific/Auckland"
        assert any("Pacific/Auckland, this machine's zone" in note for note in plan.notes)
    with await plan_import(
        group, open_source(FIXTURES / "bgstats.json"), map_file=COOP, zone=ZoneInfo("America/New_York")
    ) as plan:
        assert plan.zone == "America/New_York" and plan.preview[0].date == "2026-03-02 01:00:00"
    with await plan_import(group, open_source(FIXTURES / "plays.csv"), map_file=COOP) as plan:
        assert plan.zone is None and not any("local times" in note for note in plan.notes)  # CSV is UTC
    with await plan_import(
        group, open_source(FIXTURES / "plays.csv"), map_file=COOP, zone=ZoneInfo("Asia/Tokyo")
    ) as plan:
        assert any(note.startswith("The zone given (Asia/Tokyo) changes nothing") for note in plan.notes)


def test_tz_chooses_the_zone_and_a_zone_that_does_not_exist_is_one_sentence(
    capsys: pytest.CaptureFixture[str], machine_in_auckland
) -> None:
    args = ["import", str(FIXTURES / "bgstats.json"), "--demo", "--dry-run", "--format", "json"]
    assert main([*args, "--tz", "Europe/Paris"]) == 0
    out = json.loads(capsys.readouterr().out)["dryRun"]
    assert out["localTimeZone"] == "Europe/Paris"
    assert out["firstMatches"][0]["date"] == "2026-03-01 19:00:00"
    for bad in ("Mars/Olympus_Mons", "../../etc/passwd", ""):
        assert main([*args, "--tz", bad]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and "is not a time zone" in lines[0] and "Europe/Paris" in lines[0]
    from rankterm.importing.plays import zone_named

    with pytest.raises(RanktermError):
        zone_named("UTC+5")


# -------------------------------------------------------------------------------------- BGG ids of new games


async def test_a_new_game_keeps_the_bgg_id_of_its_file_and_the_next_file_finds_it_by_id(
    service, tmp_path: Path
) -> None:
    group, outbox = service
    export = json.loads((FIXTURES / "bgstats.json").read_text())
    export["games"].append(
        {"id": 9, "uuid": "g-9", "name": "Kitchen Table Game", "bggId": 424242, "highestWins": True}
    )
    export["plays"] = [
        {
            "uuid": "kitchen-1",
            "gameRefId": 9,
            "playDate": "2026-03-20 20:00:00",
            "playerScores": [
                {"playerRefId": 1, "score": "7", "winner": True},
                {"playerRefId": 2, "score": "5", "winner": False},
            ],
        }
    ]
    first = tmp_path / "bgstats.json"
    first.write_text(json.dumps(export))
    _plan, report = await send(group, outbox, first)
    assert report.games_made == 1 and report.recorded == 1
    made = {g.name: g.bgg_id_game for g in await group.games(refresh=True)}
    assert made["Kitchen Table Game"] == 424242
    renamed = tmp_path / "bgg.xml"  # BGG calls it otherwise: the id finds it all the same
    renamed.write_text(
        '<plays><play id="5" date="2026-03-21"><item name="Kitchen Table Game (2nd ed.)" objectid="424242"/>'
        '<players><player name="Ada" score="3" win="0"/><player name="Bob" score="9" win="1"/></players>'
        "</play></plays>"
    )
    with await plan_import(group, open_source(renamed)) as plan:
        (game,) = plan.games
        assert (game.how, game.new, game.name) == ("group (BGG id)", False, "Kitchen Table Game")
    _plan, report = await send(group, outbox, FIXTURES / "plays.xml")
    assert {g.name: g.bgg_id_game for g in await group.games(refresh=True)}[
        "Our Kitchen Table Game"
    ] == 999999


# ------------------------------------------------------------------------------- a file that records nothing


def test_a_file_whose_dates_cannot_be_read_exits_1_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(FIXTURES / "dates_day_first.csv")
    assert main(["import", path, "--demo"]) == 1
    captured = capsys.readouterr()
    why = "Nothing can be recorded: 2 plays left out: dates that cannot be read (19/02/2025, 21/02/2025)"
    assert why in captured.out and why in captured.err
    assert "Recorded" not in captured.err
    assert main(["import", path, "--demo", "--dry-run", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)["dryRun"]
    assert out["nothingRecorded"].startswith(why)


def test_a_file_without_plays_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "plays.xml"
    empty.write_text('<?xml version="1.0" encoding="utf-8"?>\n<plays username="ada" total="0" page="1"/>\n')
    assert main(["import", str(empty), "--demo"]) == 1
    assert "Nothing can be recorded: the file holds no plays." in capsys.readouterr().err


def test_a_file_recorded_already_is_still_nothing_new_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    from rankterm.cli import import_plays, parser
    from rankterm.cli.app import make_demo_client
    from rankterm.cli.common import run_headless

    parsed = parser().parse_args(["import", str(FIXTURES / "plays_page2.xml"), "--demo"])
    group = Group(make_demo_client())
    assert run_headless(parsed, import_plays.run_import, group) == 0
    assert run_headless(parsed, import_plays.run_import, group) == 0
    assert "nothing new to record" in capsys.readouterr().err
