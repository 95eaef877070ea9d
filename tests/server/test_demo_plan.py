"""Tests of the demo group plan (rankterm.server.demo) and of the bundled game catalogue."""

from __future__ import annotations

import ast
import json
import unicodedata
from collections import Counter
from datetime import date, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from rankterm.server import demo
from rankterm.server.demo import DemoFaction, DemoMatch, DemoPlan, demo_plan

SERVER_DIR = Path(demo.__file__).parent
CATALOGUE_PATH = SERVER_DIR / "catalogue.json"
WEIGHTS = ["ultralight", "light", "midlight", "normal", "heavy", "massive"]
KINDS = {"ffa", "teams", "coop", "duel"}
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
START = "2026-03-06 19:30:00"


@pytest.fixture(scope="module")
def plan() -> DemoPlan:
    return demo_plan()


@pytest.fixture(scope="module")
def catalogue() -> list[dict]:
    return json.loads(CATALOGUE_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def by_name(catalogue: list[dict]) -> dict[str, dict]:
    return {entry["name"]: entry for entry in catalogue}


def game_of(plan: DemoPlan, match: DemoMatch):
    return next(g for g in plan.games if g.name == match.game)


def fold(text: str) -> str:
    """Accent- and case-insensitive form of a name."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()


def win_rates(plan: DemoPlan) -> dict[str, float]:
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for match in plan.matches:
        for faction in match.factions:
            for key in faction.players:
                played[key] += 1
                won[key] += faction.rank == 1
    return {key: won[key] / played[key] for key in played}


# --- determinism and arguments ----------------------------------------------------------------------------


def test_same_seed_gives_the_same_plan() -> None:
    assert demo_plan(seed=11) == demo_plan(seed=11)
    assert demo_plan() == demo_plan(seed=7, matches=300, start=START)


def test_different_seeds_give_different_seasons() -> None:
    a, b = demo_plan(seed=1), demo_plan(seed=2)
    assert a.matches != b.matches
    assert [m.date for m in a.matches] != [m.date for m in b.matches]
    assert a.players == b.players and a.games == b.games  # the cast stays; only the season differs


def test_a_shorter_plan_is_a_prefix_of_a_longer_one(plan: DemoPlan) -> None:
    short = demo_plan(matches=40)
    assert len(short.matches) == 40
    assert short.matches == plan.matches[:40]


def test_match_count_follows_the_argument() -> None:
    assert len(demo_plan(matches=0).matches) == 0
    assert len(demo_plan(matches=1).matches) == 1
    assert len(demo_plan(matches=517).matches) == 517


@pytest.mark.parametrize("kwargs", [{"matches": -1}, {"start": "2026-03-06"}, {"start": "yesterday"}])
def test_bad_arguments_raise(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        demo_plan(**kwargs)


def test_demo_module_is_pure() -> None:
    """No rankterm imports and nothing that does I/O: only the standard modules the plan needs."""
    tree = ast.parse(Path(demo.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"__future__", "random", "dataclasses", "datetime", "itertools"}, imported
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert "open" not in calls
    assert ast.get_docstring(tree)


# --- the cast --------------------------------------------------------------------------------------------


def test_players(plan: DemoPlan) -> None:
    assert 8 <= len(plan.players) <= 12
    assert sum(p.ghost for p in plan.players) == 3
    assert len({p.key for p in plan.players}) == len(plan.players)
    assert len({p.name for p in plan.players}) == len(plan.players)
    for p in plan.players:
        assert p.key and p.key == p.key.strip().lower()
        assert p.name and not p.name.startswith("*")
        assert isinstance(p.skill, float)
    assert len({p.skill for p in plan.players}) == len(plan.players)  # a clear strongest and weakest


def test_games_cover_every_kind(plan: DemoPlan) -> None:
    assert len(plan.games) == 8
    assert len({g.name for g in plan.games}) == 8
    kinds = Counter(g.kind for g in plan.games)
    assert set(kinds) == KINDS
    assert kinds["ffa"] >= 3
    assert kinds["duel"] == 2
    assert any(WEIGHTS.index(g.weight) >= WEIGHTS.index("heavy") for g in plan.games)


def test_demo_games_come_from_the_catalogue(plan: DemoPlan, by_name: dict[str, dict]) -> None:
    for game in plan.games:
        assert game.name in by_name, game.name
        assert by_name[game.name]["kind"] == game.kind, game.name
        assert by_name[game.name]["weight"] == game.weight, game.name


def test_every_player_and_every_game_takes_part(plan: DemoPlan) -> None:
    seen_players = {k for m in plan.matches for f in m.factions for k in f.players}
    assert seen_players == {p.key for p in plan.players}
    assert {m.game for m in plan.matches} == {g.name for g in plan.games}


# --- the matches -----------------------------------------------------------------------------------------


def test_season_size(plan: DemoPlan) -> None:
    assert len(plan.matches) == 300


def test_factions_name_known_players_once(plan: DemoPlan) -> None:
    keys = {p.key for p in plan.players}
    names = {g.name for g in plan.games}
    for match in plan.matches:
        assert match.game in names
        assert len(match.factions) >= 2
        seated = [k for f in match.factions for k in f.players]
        assert len(seated) == len(set(seated)), match
        assert set(seated) <= keys, match
        assert all(isinstance(f, DemoFaction) for f in match.factions)


def test_bot_factions_have_no_players(plan: DemoPlan) -> None:
    bots = [f for m in plan.matches for f in m.factions if f.bot]
    assert bots
    for faction in bots:
        assert faction.players == ()
        assert faction.name
    for match in plan.matches:
        assert all(f.players for f in match.factions if not f.bot), match


def test_faction_shapes_follow_the_game_kind(plan: DemoPlan, by_name: dict[str, dict]) -> None:
    for match in plan.matches:
        kind = game_of(plan, match).kind
        sizes = sorted(len(f.players) for f in match.factions)
        if kind == "duel":
            assert sizes == [1, 1], match
        elif kind == "teams":
            assert sizes == [2, 2], match
        elif kind == "coop":
            assert [f.bot for f in match.factions].count(True) == 1, match
            humans = next(f for f in match.factions if not f.bot)
            lo, hi = by_name[match.game]["players"]
            assert lo <= len(humans.players) <= hi
        else:
            assert set(sizes) == {1}, match
            lo, hi = by_name[match.game]["players"]
            assert lo <= len(sizes) <= hi, match


def test_coop_games_are_sometimes_won_and_sometimes_lost(plan: DemoPlan) -> None:
    outcomes = Counter(
        next(f.rank for f in m.factions if not f.bot) for m in plan.matches if game_of(plan, m).kind == "coop"
    )
    assert outcomes[1] > 0 and outcomes[2] > 0
    assert set(outcomes) == {1, 2}


def test_ranks_are_competition_ranks(plan: DemoPlan) -> None:
    for match in plan.matches:
        ranks = [f.rank for f in match.factions]
        assert all(isinstance(r, int) and r >= 1 for r in ranks), match
        assert min(ranks) == 1, match
        for r in ranks:
            assert r == 1 + sum(other < r for other in ranks), match  # 1, 1, 3 after a tie for first


def test_points_are_consistent_with_ranks(plan: DemoPlan) -> None:
    scored = 0
    for match in plan.matches:
        points = [f.points for f in match.factions]
        assert all(isinstance(p, str) for p in points)
        if all(p == "" for p in points):
            continue
        assert all(p != "" for p in points), match  # never half a score sheet
        scored += 1
        for a in match.factions:
            for b in match.factions:
                if a.rank == b.rank:
                    assert int(a.points) == int(b.points), match
                elif a.rank < b.rank:
                    assert int(a.points) > int(b.points), match
    assert scored > len(plan.matches) // 2


def test_ties_happen_but_only_in_free_for_all_games(plan: DemoPlan) -> None:
    tied = [m for m in plan.matches if len({f.rank for f in m.factions}) < len(m.factions)]
    assert tied
    assert len(tied) < len(plan.matches) // 5  # occasional
    assert {game_of(plan, m).kind for m in tied} == {"ffa"}


def test_dates_are_strictly_increasing_evenings(plan: DemoPlan) -> None:
    dates = [datetime.strptime(m.date, DATE_FORMAT) for m in plan.matches]
    assert plan.matches[0].date == START
    assert all(a < b for a, b in pairwise(dates))
    start = datetime.strptime(START, DATE_FORMAT)
    weekdays = {(start + timedelta(days=d)).weekday() for d in (0, 1, 4, 5)}  # after midnight counts too
    assert {d.weekday() for d in dates} <= weekdays
    nights = Counter(d.date() for d in dates if d.hour >= 12)
    assert max(nights.values()) >= 4  # several matches a night
    assert all(d.hour >= 19 or d.hour < 3 for d in dates)


def test_other_start_moves_the_season(plan: DemoPlan) -> None:
    moved = demo_plan(start="2026-09-04 18:00:00")
    assert moved.matches[0].date == "2026-09-04 18:00:00"
    assert all(m.date >= "2026-09-04 18:00:00" for m in moved.matches)
    assert len(moved.matches) == len(plan.matches)
    assert moved.matches[-1].date != plan.matches[-1].date


def test_external_ids_are_unique_and_sequential(plan: DemoPlan) -> None:
    ids = [m.external_id for m in plan.matches]
    assert len(set(ids)) == len(ids)
    assert ids == [f"demo-{i:04d}" for i in range(1, len(ids) + 1)]


def test_weights_and_match_names(plan: DemoPlan) -> None:
    for match in plan.matches:
        assert match.weight in WEIGHTS
        game = game_of(plan, match)
        if match.weight != game.weight:
            assert match.notes.startswith("Teaching game"), match
            assert WEIGHTS.index(match.weight) < WEIGHTS.index(game.weight)
        assert match.name in {"", "default_1", "default_2"}
        if match.name == "default_2":
            assert len(match.factions) == 2
    assert Counter(m.name for m in plan.matches)[""] > len(plan.matches) // 2


@pytest.mark.parametrize("seed", [7, 1, 2, 3, 42])
def test_the_strongest_player_wins_more_often_than_the_weakest(seed: int) -> None:
    season = demo_plan(seed=seed)
    rates = win_rates(season)
    strongest = max(season.players, key=lambda p: p.skill).key
    weakest = min(season.players, key=lambda p: p.skill).key
    assert rates[strongest] > rates[weakest]
    assert rates[strongest] < 1.0  # but not always


def test_the_strongest_player_does_not_win_everything(plan: DemoPlan) -> None:
    strongest = max(plan.players, key=lambda p: p.skill).key
    wins = [
        next(f.rank for f in m.factions if strongest in f.players) == 1
        for m in plan.matches
        if any(strongest in f.players for f in m.factions)
    ]
    assert 0.3 < sum(wins) / len(wins) < 0.85


# --- the catalogue ---------------------------------------------------------------------------------------


def test_catalogue_is_a_big_list(catalogue: list[dict]) -> None:
    assert isinstance(catalogue, list)
    assert len(catalogue) >= 150


def test_catalogue_entries_are_well_formed(catalogue: list[dict]) -> None:
    for entry in catalogue:
        assert set(entry) == {"name", "bggId", "weight", "players", "kind"}, entry
        assert isinstance(entry["name"], str) and entry["name"] == entry["name"].strip() and entry["name"]
        assert entry["bggId"] is None or (type(entry["bggId"]) is int and entry["bggId"] > 0), entry
        assert entry["weight"] in WEIGHTS, entry
        assert entry["kind"] in KINDS, entry
        lo, hi = entry["players"]
        assert type(lo) is int and type(hi) is int and 1 <= lo <= hi, entry
        if entry["kind"] == "duel":
            assert (lo, hi) == (2, 2), entry


def test_catalogue_names_and_ids_are_unique(catalogue: list[dict]) -> None:
    names = [e["name"] for e in catalogue]
    assert len(set(names)) == len(names)
    assert len({fold(n) for n in names}) == len(names)  # unique even accent- and case-insensitively
    ids = [e["bggId"] for e in catalogue if e["bggId"] is not None]
    assert len(set(ids)) == len(ids), [i for i, n in Counter(ids).items() if n > 1]


def test_catalogue_covers_kinds_weights_and_accents(catalogue: list[dict]) -> None:
    assert {e["kind"] for e in catalogue} == KINDS
    assert {e["weight"] for e in catalogue} == set(WEIGHTS)
    accented = [e["name"] for e in catalogue if fold(e["name"]) != e["name"].casefold()]
    assert len(accented) >= 3, accented


@pytest.mark.parametrize(
    ("name", "bgg_id"),
    [
        ("Catan", 13),
        ("Carcassonne", 822),
        ("Ticket to Ride", 9209),
        ("Pandemic", 30549),
        ("Twilight Imperium: Fourth Edition", 233078),
        ("Chess", 171),
        ("Tichu", 215),
        ("Brass: Birmingham", 224517),
    ],
)
def test_catalogue_knows_well_known_games(by_name: dict[str, dict], name: str, bgg_id: int) -> None:
    assert by_name[name]["bggId"] == bgg_id


def test_catalogue_weights_are_plausible(by_name: dict[str, dict]) -> None:
    assert by_name["Twilight Imperium: Fourth Edition"]["weight"] == "massive"
    assert by_name["Brass: Birmingham"]["weight"] == "heavy"
    assert by_name["Codenames"]["kind"] == "teams"
    assert by_name["Pandemic"]["kind"] == "coop"
    assert WEIGHTS.index(by_name["Skull"]["weight"]) < WEIGHTS.index("normal")


def test_last_day_moves_the_whole_season_by_whole_days(plan: DemoPlan) -> None:
    moved = demo_plan(last_day=date(2026, 5, 27))
    assert moved.matches[-1].date[:10] == "2026-05-27"
    assert [m.date[10:] for m in moved.matches] == [m.date[10:] for m in plan.matches]  # same times of day
    gaps = [
        datetime.strptime(b.date, DATE_FORMAT) - datetime.strptime(a.date, DATE_FORMAT)
        for a, b in pairwise(plan.matches)
    ]
    moved_gaps = [
        datetime.strptime(b.date, DATE_FORMAT) - datetime.strptime(a.date, DATE_FORMAT)
        for a, b in pairwise(moved.matches)
    ]
    assert moved_gaps == gaps
    assert [m.external_id for m in moved.matches] == [m.external_id for m in plan.matches]
