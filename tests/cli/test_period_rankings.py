"""`rankterm rankings --season P` and `--since D --until D`: a period's standings alone, in the shapes of the
service's, for the main subset or a game's, and one sentence (exit 2) for what cannot be asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankterm.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_season_is_the_range_of_its_days_and_keeps_the_rankings_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "rankings", "--demo", "--season", "2026-03", "--format", "json")
    season = json.loads(out)
    code_all, out_all, _ = run(capsys, "rankings", "--demo", "--format", "json")
    everyone = json.loads(out_all)
    assert code == code_all == 0 and season
    assert all(set(row) == set(everyone[0]) for row in season)  # the service's row keys
    assert [row["position"] for row in season] == list(range(1, len(season) + 1))
    assert [row["ree"] for row in season] == sorted((row["ree"] for row in season), reverse=True)
    code, out, _ = run(
        capsys, "rankings", "--demo", "--since", "2026-03-01", "--until", "2026-04-01", "--format", "json"
    )
    assert code == 0 and json.loads(out) == season
    # Everyone starts even in a period: its standings are not the all-time ones.
    assert [r["ree"] for r in season] != [
        r["ree"] for r in everyone if r["player"]["id"] in {s["player"]["id"] for s in season}
    ]


def test_a_games_season_holds_only_who_played_it_then(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "subsets", "--demo", "--format", "json")
    game = next(s for s in json.loads(out) if s["type"] == "game")
    code, out, _ = run(capsys, "matches", "--demo", "--subset", game["id"], "--format", "json")
    played = {
        p["id"]
        for m in json.loads(out)
        if m["date"].startswith("2026")
        for f in m["factions"]
        if not f.get("bot")
        for p in f["players"]
    }
    code, out, _ = run(
        capsys, "rankings", "--demo", "--season", "2026", "--subset", game["id"], "--format", "json"
    )
    assert code == 0 and {row["player"]["id"] for row in json.loads(out)} == played
    code, out, _ = run(capsys, "rankings", "--demo", "--season", "2026", "--subset", game["id"])
    assert out.startswith(f"# Rankings, {game['name']}, 2026 alone (")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--season", "2026-Q9"], "is not a season"),
        (["--since", "2026-01-01"], "needs both --since and --until"),
        (["--since", "2026-02-01", "--until", "2026-01-01"], "must come after its start"),
        (["--since", "yesterday", "--until", "2026-01-01"], "'yesterday' is not a date"),
        (["--season", "2026", "--after", "3"], "cannot be asked with --after or --page"),
        (["--season", "2026", "--since", "2026-01-01", "--until", "2026-02-01"], "not both"),
        (["--season", "2026", "--subset", "zz"], "'zz' is neither"),
    ],
)
def test_what_cannot_be_asked_is_one_sentence(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, out, err = run(capsys, "rankings", "--demo", *argv)
    assert (code, out) == (2, "") and said in err and err.count("\n") == 1


SPRING = '[[seasons]]\nname = "Spring league"\nsince = 2026-03-01\nuntil = 2026-06-01\n'


def named_spring(isolated: Path) -> None:
    """The config names a season for every profile and the demo group (top-level `[[seasons]]`)."""
    config = isolated / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(SPRING, encoding="utf-8")


def test_a_named_season_is_its_range_alone(capsys: pytest.CaptureFixture[str], isolated: Path) -> None:
    named_spring(isolated)
    code, out, err = run(capsys, "rankings", "--demo", "--season", "spring LEAGUE", "--format", "json")
    assert (code, err) == (0, "") and json.loads(out)
    _, by_range, _ = run(
        capsys, "rankings", "--demo", "--since", "2026-03-01", "--until", "2026-06-01", "--format", "json"
    )
    assert json.loads(out) == json.loads(by_range)
    code, out, _ = run(capsys, "rankings", "--demo", "--season", "Spring league")
    assert code == 0 and out.startswith("# Rankings, main, Spring league alone (")
    code, out, err = run(capsys, "rankings", "--demo", "--season", "Winter")
    assert (code, out) == (2, "") and "one of 'Spring league'" in err and err.count("\n") == 1


def test_a_named_season_stands_beside_the_calendar_ones(
    capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    named_spring(isolated)
    code, out, _ = run(capsys, "seasons", "--demo", "--by", "month", "--format", "json")
    roll = json.loads(out)
    spring = next(s for s in roll if s["period"] == "Spring league")
    assert code == 0 and set(spring) == set(roll[0])  # the calendar periods' shape
    _, ranked, _ = run(capsys, "rankings", "--demo", "--season", "Spring league", "--format", "json")
    assert spring["champion"]["id"] == json.loads(ranked)[0]["player"]["id"]
    months = ("2026-03", "2026-04", "2026-05")
    assert spring["matches"] == sum(s["matches"] for s in roll if s["period"] in months) > 0
    order = [s["period"] for s in roll]  # oldest first; a longer period after a shorter one ending with it
    assert order.index("Spring league") == order.index("2026-05") + 1
