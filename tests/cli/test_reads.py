"""Headless reads (`rankterm games|players|matches|rankings|subsets|quota|status`) run through `main([...])`
in-process: against `--demo`, and against the embedded service on a real socket through a profile (global
`--profile P` and the command's own), for the exit codes: 0 done, 1 refused, 2 usage, 3 offline."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rankterm.cli import main
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from tests.cli.conftest import league_profile
from tests.support.live import UvicornThread
from tests.wire_contract import (
    GAME_KEYS,
    MATCH_KEYS,
    PLAYER_KEYS,
    QUOTA_KEYS,
    SERVICE_STATUS_KEYS,
    check_keys,
    check_rankings_page,
    check_subset,
)

EVIL = "Evil [/b] Eve"
ESCAPE = "\x1b]0;pwned\x07Mal\x1b[2Jlory"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    return capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- the demo


def test_every_read_prints_a_table_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    for command, columns in [
        ("games", "id\tname\tweight\tbgg_id"),
        ("players", "id\tname\tusername\tghost"),
        ("matches", "match\tdate (UTC)\tgame\tresult\tweight"),
        ("rankings", "pos\tplayer\tree\tΔree\tΔpos\tbelt\ttitle\tstatus"),
        ("subsets", "id\tname\ttype\tmatches\tfirst_match\tlast_match"),
        ("quota", "quota\tused"),
        ("status", "key\tvalue"),
    ]:
        code, out, err = run(capsys, command, "--demo")
        assert (code, err) == (0, ""), command
        lines = out.splitlines()
        assert lines[0].startswith("# ") and lines[1] == columns, command
        assert len(lines) > 2, command


def test_json_is_the_wire_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games", "--demo", "--format", "json")
    games = json.loads(out)
    assert code == 0 and games and all(set(g) == GAME_KEYS for g in games)
    code, out, _ = run(capsys, "players", "--demo", "--format", "json")
    players = json.loads(out)
    assert code == 0 and len(players) == 10 and all(set(p) == PLAYER_KEYS for p in players)
    assert all(p["ghost"] in (0, 1) for p in players)  # booleans as the wire sends them
    code, out, _ = run(capsys, "matches", "--demo", "--format", "json")
    matches = json.loads(out)
    assert code == 0 and all(set(m) == MATCH_KEYS for m in matches)
    assert [m["number"] for m in matches] == list(range(300, 0, -1))  # every page, newest first
    code, out, _ = run(capsys, "players", "--demo", "--format", "json", "--page", "1")
    page = json.loads(out)
    assert page["page"] == 1 and page["totalPlayers"] == 10 and len(page["data"]) == 10
    code, out, _ = run(capsys, "quota", "--demo", "--format", "json")
    assert code == 0
    check_keys(json.loads(out), QUOTA_KEYS, "quota")
    code, out, _ = run(capsys, "status", "--demo", "--format", "json")
    status = json.loads(out)
    assert code == 0 and status["status"] == "ok"
    check_keys(status, SERVICE_STATUS_KEYS, "status")
    code, out, _ = run(capsys, "subsets", "--demo", "--format", "json")
    subsets = json.loads(out)
    assert code == 0 and subsets[0]["id"] == "main"
    for subset in subsets:
        check_subset(subset)  # first and last match whole, as the service sent them
    assert (subsets[0]["firstMatch"], subsets[0]["lastMatch"]) == (matches[-1], matches[0])


def test_the_subsets_table_names_each_first_and_last_match_by_number(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "subsets", "--demo", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and rows[0]["id"] == "main"
    assert (rows[0]["matches"], rows[0]["first_match"], rows[0]["last_match"]) == ("300", "1", "300")
    code, out, _ = run(capsys, "subsets", "--demo", "--format", "json")
    by_id = {s["id"]: s for s in json.loads(out)}
    for row in rows:
        wire = by_id[row["id"]]
        assert (int(row["first_match"]), int(row["last_match"])) == (
            wire["firstMatch"]["number"],
            wire["lastMatch"]["number"],
        )


def test_matches_jsonl_of_a_subset_one_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "subsets", "--demo", "--format", "json")
    catan = next(s for s in json.loads(out) if s["name"] == "Catan")
    code, out, err = run(capsys, "matches", "--demo", "--subset", catan["id"], "--format", "jsonl")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == catan["countMatches"] > 25  # more than a page, all of them
    numbers = [json.loads(line)["number"] for line in lines]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
    assert {json.loads(line)["game"]["name"] for line in lines} == {"Catan"}
    code, out, _ = run(capsys, "matches", "--demo", "--page", "2", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["number", "date", "game", "result", "weight", "id", "external_id"]
    assert [int(r[0]) for r in rows[1:]] == list(range(275, 250, -1))


def test_rankings_after_a_match_every_page_and_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rankings", "--demo", "--after", "40", "--page", "1", "--format", "json")
    page = json.loads(out)
    assert code == 0
    check_rankings_page(page)  # exactly the wire's keys, nested ones too: no count, whole subset ends
    assert page["match"]["number"] == 40 and page["subset"]["lastMatch"]["number"] == 300
    code, out, _ = run(capsys, "rankings", "--demo", "--after", "40", "--format", "json")
    rows = json.loads(out)
    assert rows == page["data"]
    assert [r["position"] for r in rows] == sorted(r["position"] for r in rows)
    code, out, _ = run(capsys, "rankings", "--demo", "--format", "csv")
    latest = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and latest[0]["position"] == "1" and float(latest[0]["ree"]) > 1000
    assert [r["player_id"] for r in latest] != [r["player"]["id"] for r in rows]  # 40 matches in, not 300


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert "from 1" in usage_error(capsys, "players", "--demo", "--page", "0")
    assert "from 1" in usage_error(capsys, "rankings", "--demo", "--after", "x")
    assert "subset id" in usage_error(capsys, "matches", "--demo", "--subset", "12")
    assert "invalid choice" in usage_error(capsys, "games", "--demo", "--format", "xml")
    assert "invalid choice" in usage_error(capsys, "games", "--demo", "--format", "jsonl")  # matches only
    code, out, err = run(capsys, "games", "--demo", "--profile", "home")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "not both" in err
    code, out, err = run(capsys, "games", "--profile", "nowhere")
    assert (code, out) == (2, "") and "No profile named 'nowhere'" in err


def test_an_unknown_subset_is_the_services_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rankings", "--demo", "--subset", "nosuch")
    assert (code, out) == (1, "")
    assert err.startswith("rankterm: rankings:") and "nosuch" in err and "(R002)" in err
    assert err.count("\n") == 1


# ---------------------------------------------------------------------------------------------- a profile


@dataclass
class Live:
    """The embedded service over a SQLite file, on a real socket, and a profile named `league` for it."""

    store: Store
    server: UvicornThread
    group: int


def _group(store: Store) -> tuple[int, str, str]:
    group = store.create_group("League")
    key, secret = store.create_client(group)
    evil = store.create_player(group, EVIL)
    mallory = store.create_player(group, ESCAPE)
    game = store.create_game(group, name="Catan [i]")
    body = {
        "game": game.id,
        "weight": "normal",
        "factions": [
            {"players": [evil.id], "rank": 1, "points": "10"},
            {"players": [mallory.id], "rank": 2, "points": "7"},
        ],
    }
    answer = store.add_matches(group, [body, body])
    assert answer.accepted_count == 2
    return group, key, secret


def serve(tmp_path: Path, limits: QuotaLimits | None = None) -> Iterator[Live]:
    store = Store(tmp_path / "service.db")
    group, key, secret = _group(store)
    with league_profile(tmp_path, store, key, secret, limits=limits) as server:
        yield Live(store, server, group)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    yield from serve(tmp_path)


def test_profile_before_or_after_the_command(capsys: pytest.CaptureFixture[str], live: Live) -> None:
    before = run(capsys, "--profile", "league", "players", "--format", "json")
    after = run(capsys, "players", "--profile", "league", "--format", "json")
    default = run(capsys, "players", "--format", "json")  # the only profile is the default one
    assert before == after == default
    assert before[0] == 0
    assert {p["displayName"] for p in json.loads(before[1])} == {f"*{EVIL}", f"*{ESCAPE}"}


def test_names_from_the_service_reach_a_terminal_literally_and_harmless(
    capsys: pytest.CaptureFixture[str], live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, piped, _ = run(capsys, "matches", "--profile", "league")
    assert code == 0 and "Evil [/b] Eve" in piped and "\x1b" not in piped and "\x07" not in piped
    assert "␛]0;pwned␇Mal␛[2Jlory" in piped  # shown as symbols, one line
    monkeypatch.setattr("rankterm.cli.common.is_terminal", lambda stream=None: True)
    for command in ("players", "matches", "rankings", "games"):
        code, drawn, err = run(capsys, command, "--profile", "league")
        assert (code, err) == (0, ""), command
        assert "\x1b" not in drawn and "\x07" not in drawn, command
        assert "─" in drawn and "\t" not in drawn, command  # a Rich table, not tab-separated text
    assert "Catan [i]" in drawn  # not read as markup
    _, players, _ = run(capsys, "players", "--profile", "league")
    assert "Evil [/b] Eve" in players and "␛" in players
    code, out, _ = run(capsys, "players", "--profile", "league", "--format", "csv")
    assert (
        ESCAPE not in out and "␛]0;pwned␇Mal␛[2Jlory" in out
    )  # csv to a terminal: as symbols (to a pipe: exact)
    code, out, _ = run(capsys, "matches", "--profile", "league", "--format", "jsonl")
    assert json.loads(out.splitlines()[0])["factions"][1]["players"][0]["displayName"] == f"*{ESCAPE}"


def test_offline_exits_3_even_with_a_copy_on_this_machine(
    capsys: pytest.CaptureFixture[str], live: Live
) -> None:
    for command in ("games", "rankings"):
        assert run(capsys, command, "--profile", "league")[0] == 0  # the mirror now holds them
    live.server.stop()
    for command in ("games", "rankings"):  # a mirrored list, mirrored standings (export: straight pages)
        code, out, err = run(capsys, command, "--profile", "league")
        assert (code, out) == (3, ""), command
        assert err.startswith("rankterm: Cannot reach the service") and err.count("\n") == 1, command


def test_quota_exceeded_is_a_refusal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for _ in serve(tmp_path, QuotaLimits(calls_per_hour=0)):
        code, out, err = run(capsys, "games", "--profile", "league")
        assert (code, out) == (1, "")
        assert err.startswith("rankterm: games:") and "(Q002)" in err and err.count("\n") == 1


def test_equal_ree_shares_a_position_in_the_table_and_json_keeps_the_services(
    capsys: pytest.CaptureFixture[str], live: Live
) -> None:
    tia, tom = live.store.create_player(live.group, "Tia"), live.store.create_player(live.group, "Tom")
    game = live.store.create_game(live.group, name="Hive")
    tied = [{"players": [tia.id], "rank": 1}, {"players": [tom.id], "rank": 1}]
    assert live.store.add_matches(live.group, [{"game": game.id, "weight": "normal", "factions": tied}])
    code, out, _ = run(capsys, "rankings", "--format", "json")
    sent = {r["player"]["displayName"]: r for r in json.loads(out)}
    assert code == 0 and sent["*Tia"]["ree"] == sent["*Tom"]["ree"]
    first, second = sorted([sent["*Tia"]["position"], sent["*Tom"]["position"]])
    assert second == first + 1  # the wire: 1..N without ties
    code, out, _ = run(capsys, "rankings", "--format", "table")  # piped: tab-separated, for people
    shown = {line.split("\t")[1]: line.split("\t")[0] for line in out.splitlines()[2:]}
    assert code == 0 and shown["*Tia"] == shown["*Tom"] == str(first) and str(second) not in shown.values()
