"""`rankterm odds`, `rankterm teams` and `rankterm stats predictions` on the demo: the documented JSON shapes,
the table model's ratings (the service's own ree), and a clear refusal for what cannot be asked."""

from __future__ import annotations

import asyncio
import json
import math

import pytest

from rankterm.cli import main
from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import demo_app

ODDS_KEYS = {"model", "factions"}
FACTION_KEYS = {"players", "mu", "sigma", "chance"}
PLAYER_KEYS = {"id", "name", "mu", "sigma", "ree"}
PREDICTION_KEYS = {
    "matches", "winner_picked", "baseline", "brier", "baseline_brier", "pairwise", "openskill_winner_picked",
    "openskill_brier",
}  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def service_ree() -> dict[str, float]:
    app, key, secret = demo_app()
    async with Group(RankingClient.in_process(app, key=key, secret=secret)) as group:
        return {row.player.label: float(row.ree) for row in await group.all_rankings()}


def test_odds_are_chances_in_the_order_given_with_the_services_ree(capsys) -> None:
    code, out, err = run(capsys, "odds", "Dev", "Ben+Chiara", "ada", "--demo", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert set(doc) == ODDS_KEYS and set(doc["model"]) >= {"name", "beta"}
    factions = doc["factions"]
    assert [[p["name"] for p in f["players"]] for f in factions] == [["Dev"], ["Ben", "Chiara"], ["Ada"]]
    assert all(set(f) == FACTION_KEYS for f in factions)
    assert all(set(p) == PLAYER_KEYS for f in factions for p in f["players"])
    assert math.isclose(sum(f["chance"] for f in factions), 1.0, abs_tol=1e-9)
    pair = factions[1]
    assert math.isclose(pair["mu"], sum(p["mu"] for p in pair["players"]))
    assert math.isclose(pair["sigma"], math.sqrt(sum(p["sigma"] ** 2 for p in pair["players"])))
    ree = asyncio.run(service_ree())
    assert {p["name"]: p["ree"] for f in factions for p in f["players"]} == {
        name: ree[name] for name in ("Dev", "Ben", "Chiara", "Ada")
    }


def test_the_stronger_of_two_players_is_the_favourite_both_ways(capsys) -> None:
    _, out, _ = run(capsys, "odds", "Ada", "Dev", "--demo", "--format", "json")
    one = [f["chance"] for f in json.loads(out)["factions"]]
    _, out, _ = run(capsys, "odds", "Dev", "Ada", "--demo", "--format", "json")
    other = [f["chance"] for f in json.loads(out)["factions"]]
    assert one == pytest.approx(other[::-1], abs=1e-12)


def test_teams_lists_the_three_fairest_splits_fairest_first(capsys) -> None:
    players = ["Ada", "Ben", "Chiara", "Dev", "Elena", "Greta"]
    code, out, err = run(capsys, "teams", *players, "--teams", "3", "--demo", "--format", "json")
    assert (code, err) == (0, "")
    splits = json.loads(out)["splits"]
    assert len(splits) == 3
    for split in splits:
        assert sorted(name for team in split["teams"] for name in team) == sorted(players)
        assert [len(team) for team in split["teams"]] == [2, 2, 2]
        assert math.isclose(sum(split["chances"]), 1.0, abs_tol=1e-9)
    least = [min(s["chances"]) for s in splits]
    assert least == sorted(least, reverse=True)


def test_predictions_score_every_match_beside_chance_and_openskill(capsys) -> None:
    code, out, err = run(capsys, "stats", "predictions", "--demo", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert set(doc) == PREDICTION_KEYS
    assert doc["matches"] >= 290
    assert 0 < doc["baseline"] < doc["winner_picked"] <= 1
    assert doc["brier"] < doc["baseline_brier"]
    code, out, _ = run(capsys, "stats", "predictions", "--last", "50", "--demo", "--format", "json")
    assert json.loads(out)["matches"] == 50


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["odds", "Ada", "--demo"], "at least two factions"),
        (["odds", "Ada", "Ada+Ben", "--demo"], "two factions"),
        (["odds", "Ada", "Nobody", "--demo"], "Nobody"),
        (["teams", "Ada", "Ben", "--teams", "3", "--demo"], "cannot make 3 teams"),
    ],
)
def test_what_cannot_be_asked_is_one_sentence_and_exit_2(capsys, argv: list[str], said: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert said in err and err.count("\n") == 1


def test_seasons_is_a_roll_of_honour_of_past_periods(capsys) -> None:
    code, out, err = run(capsys, "seasons", "--by", "quarter", "--demo", "--format", "json")
    assert (code, err) == (0, "")
    roll = json.loads(out)
    assert roll and [set(s) for s in roll] == [
        {"period", "matches", "players", "champion", "runner_up"}
    ] * len(roll)
    assert [s["period"] for s in roll] == sorted(s["period"] for s in roll)
    for season in roll:
        assert season["champion"]["ree"] >= season["runner_up"]["ree"]


def test_stats_changes_lists_the_events_since_a_time(capsys) -> None:
    code, out, err = run(
        capsys, "stats", "changes", "--since", "2000-01-01 00:00", "--demo", "--format", "json"
    )
    assert (code, err) == (0, "")
    doc = json.loads(out)
    kinds = {e["kind"] for e in doc["events"]}
    assert {"leader", "champion", "streak", "matches"} <= kinds
    numbers = [e["match"] for e in doc["events"]]
    assert numbers == sorted(numbers)


def test_stats_tonight_md_is_a_recap_to_share(capsys) -> None:
    code, out, err = run(capsys, "stats", "tonight", "--hours", "72", "--demo", "--format", "md")
    assert (code, err) == (0, "")
    assert out.startswith("## Tonight: ")
    assert "- **Most wins**" in out or "0 matches" in out
