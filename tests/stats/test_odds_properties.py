"""Odds and fair teams judged by their properties: chances sum to one, equal factions are even, a stronger
faction never has less chance, the order factions are listed in does not matter, the integral agrees with a
seeded Monte Carlo of the same model, and the fairest splits found are those an independent brute force finds."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.stats.odds import Side, chances_first, side_of
from rankterm.stats.teams import fairest_splits, splits
from rankterm.wire.rating import BETA, Skill
from tests.support.examples import examples

mus = st.floats(min_value=-20, max_value=120, allow_nan=False)
sigmas = st.floats(min_value=0.0, max_value=30, allow_nan=False)
sides = st.builds(Side, mus, sigmas)
tables = st.lists(sides, min_size=2, max_size=12)


@given(tables)
def test_chances_sum_to_one_and_each_is_a_chance(table: list[Side]) -> None:
    chances = chances_first(table)
    assert len(chances) == len(table)
    assert math.isclose(math.fsum(chances), 1.0, abs_tol=1e-9)
    assert all(-1e-12 <= c <= 1 + 1e-12 for c in chances)


@given(st.integers(min_value=2, max_value=12), mus, sigmas)
def test_equal_factions_have_equal_chances(n: int, mu: float, sigma: float) -> None:
    assert chances_first([Side(mu, sigma)] * n) == pytest.approx([1 / n] * n, abs=1e-7)


@given(tables, st.data(), st.floats(min_value=0.01, max_value=30))
def test_a_stronger_faction_never_has_less_chance(
    table: list[Side], data: st.DataObject, more: float
) -> None:
    i = data.draw(st.integers(min_value=0, max_value=len(table) - 1))
    stronger = [*table]
    stronger[i] = Side(table[i].mu + more, table[i].sigma)
    assert chances_first(stronger)[i] >= chances_first(table)[i] - 1e-9


@given(tables, st.randoms(use_true_random=False))
def test_the_order_factions_are_listed_in_does_not_matter(table: list[Side], rnd: random.Random) -> None:
    order = list(range(len(table)))
    rnd.shuffle(order)
    shuffled = chances_first([table[i] for i in order])
    original = chances_first(table)
    assert [shuffled[order.index(i)] for i in range(len(table))] == pytest.approx(original, abs=1e-7)


def test_two_factions_are_the_closed_form() -> None:
    a, b = Side(31.0, 4.0), Side(26.0, 7.0)
    expected = 0.5 * math.erfc(
        -(a.mu - b.mu) / math.sqrt(2 * BETA**2 + a.sigma**2 + b.sigma**2) / math.sqrt(2)
    )
    assert chances_first([a, b])[0] == pytest.approx(expected, abs=1e-12)


def test_a_faction_is_its_players_summed() -> None:
    side = side_of([Skill(25, 3), Skill(30, 4)])
    assert side == Side(55, 5)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 13))
def test_the_integral_agrees_with_a_monte_carlo_of_the_same_model(n: int) -> None:
    rng = random.Random(n)
    table = [Side(rng.uniform(15, 40), rng.uniform(0.5, 8.4)) for _ in range(n)]
    spreads = [math.sqrt(s.sigma**2 + BETA**2) for s in table]
    draws = 200_000
    wins = [0] * n
    gauss = rng.gauss
    for _ in range(draws):
        performances = [gauss(s.mu, spread) for s, spread in zip(table, spreads, strict=True)]
        wins[performances.index(max(performances))] += 1
    assert chances_first(table) == pytest.approx([w / draws for w in wins], abs=0.01)


def brute_force(skills: dict[str, Skill], teams: int) -> list[float]:
    """Every split weighed by the odds themselves, most even first (the module's own search not used)."""
    scores = []
    for split in splits(list(skills), teams):
        chances = chances_first([side_of(skills[p] for p in team) for team in split])
        scores.append(abs(chances[0] - 0.5) if teams == 2 else -min(chances))
    return sorted(scores)


skill = st.builds(Skill, st.floats(min_value=10, max_value=45), st.floats(min_value=0.5, max_value=8.4))


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(skill, min_size=4, max_size=9), st.integers(min_value=2, max_value=4))
def test_the_fairest_splits_are_those_a_brute_force_finds(players: list[Skill], teams: int) -> None:
    if len(players) < teams:
        teams = 2
    skills = {f"P{i}": s for i, s in enumerate(players)}
    found = fairest_splits(skills, teams)
    expected = brute_force(skills, teams)
    assert len(found) == min(3, len(expected))
    assert [s.unfairness for s in found] == pytest.approx(expected[: len(found)], abs=1e-6)
    for split in found:
        assert sorted(p for team in split.teams for p in team) == sorted(skills)
        sizes = [len(team) for team in split.teams]
        assert max(sizes) - min(sizes) <= 1 and len(sizes) == teams
        assert math.isclose(math.fsum(split.chances), 1.0, abs_tol=1e-9)


def test_the_number_of_splits_is_the_number_of_ways() -> None:
    assert len(list(splits([str(i) for i in range(12)], 4))) == 15_400
    assert len(set(splits([str(i) for i in range(12)], 6))) == 10_395
    assert len(list(splits([str(i) for i in range(12)], 2))) == 462
    assert len(list(splits([str(i) for i in range(7)], 3))) == 105  # 3+2+2: 7!/(3!2!2!2!)


def test_equal_fairness_is_broken_by_fewer_repeated_pairings() -> None:
    skills = {name: Skill(25, 8) for name in "ABCD"}
    last_evening = {frozenset("AB"): 2, frozenset("CD"): 2}
    best = fairest_splits(skills, 2, pairings=last_evening)
    assert all(split.repeats == 0 for split in best[:2])
    assert best[2].repeats == 4


def test_last_evenings_pairings_are_counted_from_its_matches_only() -> None:
    from rankterm.stats.teams import last_evening_pairings
    from rankterm.wire.models import Faction, Match, Player

    def played(number: int, date: str, *teams: str) -> Match:
        return Match(
            id=f"m{number}",
            number=number,
            date=date,
            factions=[
                Faction(rank=i + 1, players=[Player(id=p, display_name=p) for p in team])
                for i, team in enumerate(teams)
            ],
        )

    matches = [
        played(1, "2026-11-20 20:00:00", "AB", "CD"),  # a week before: not last evening
        played(2, "2026-11-27 19:00:00", "AB", "CD"),
        played(3, "2026-11-27 21:00:00", "AC", "BD"),
        played(4, "2026-11-27 22:00:00", "AB", "CD"),
    ]
    assert last_evening_pairings(matches) == {
        frozenset("AB"): 2,
        frozenset("CD"): 2,
        frozenset("AC"): 1,
        frozenset("BD"): 1,
    }
