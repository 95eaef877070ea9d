"""Tests of the pure rating engine: skill updates, weights, ties, teams, bots, ree, belts, titles, status."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.wire import rating
from rankterm.wire.rating import (
    BELTS,
    RATING_MODEL,
    WEIGHT_FACTORS,
    FactionResult,
    Skill,
    belt_for,
    initial_skill,
    rate_match,
    ree,
    status_for,
    title_for,
)
from tests.support.examples import examples

WEIGHTS_ASCENDING = ["ultralight", "light", "midlight", "normal", "heavy", "massive"]


def duel(winner: str, loser: str, skills: dict[str, Skill], weight: str = "normal") -> dict[str, Skill]:
    """Rate a 1v1 that `winner` won and return the new skills of both."""
    return rate_match([FactionResult(1, (winner,)), FactionResult(2, (loser,))], skills, weight)


def play(winner: str, loser: str, skills: dict[str, Skill], weight: str = "normal") -> None:
    skills.update(duel(winner, loser, skills, weight))


# --- skill updates -------------------------------------------------------------------------------------


def test_initial_skill_is_openskill_default_and_reads_below_2000() -> None:
    skill = initial_skill()
    assert skill == Skill(25.0, 25.0 / 3.0)
    assert 1000 < ree(skill) < 2000


def test_the_rating_model_is_the_one_named_and_installed() -> None:
    # An openskill release or a model other than the one named fails here until RATING_MODEL is updated.
    from importlib.metadata import version

    model = rating._model()
    release = ".".join(version("openskill").split(".")[:2])
    assert f"openskill {release} {type(model).__name__}" == RATING_MODEL
    assert initial_skill() == Skill(mu=float(model.mu), sigma=float(model.sigma))


def test_winner_gains_and_loser_loses() -> None:
    new = duel("ann", "bob", {})
    start = initial_skill()
    assert new["ann"].mu > start.mu
    assert new["bob"].mu < start.mu
    assert ree(new["ann"]) > ree(start) > ree(new["bob"])
    # both are better known after a match
    assert new["ann"].sigma < start.sigma
    assert new["bob"].sigma < start.sigma


def test_missing_keys_start_at_initial_skill() -> None:
    explicit = duel("ann", "bob", {"ann": initial_skill(), "bob": initial_skill()})
    assert duel("ann", "bob", {}) == explicit


def test_result_holds_exactly_the_participants() -> None:
    skills = {"zed": Skill(30.0, 2.0)}
    new = rate_match(
        [FactionResult(2, ("ann", "bob")), FactionResult(1, ("cat",)), FactionResult(3, ("dan",))],
        skills,
        "normal",
    )
    assert set(new) == {"ann", "bob", "cat", "dan"}


def test_upset_moves_more_than_expected_result() -> None:
    skills = {"strong": Skill(32.0, 3.0), "weak": Skill(18.0, 3.0)}
    expected = duel("strong", "weak", skills)
    upset = duel("weak", "strong", skills)

    expected_gain = expected["strong"].mu - skills["strong"].mu
    upset_gain = upset["weak"].mu - skills["weak"].mu
    assert expected_gain > 0
    assert upset_gain > 3 * expected_gain
    upset_loss = skills["strong"].mu - upset["strong"].mu
    expected_loss = skills["weak"].mu - expected["weak"].mu
    assert upset_loss > 3 * expected_loss > 0
    # and the same holds on the public scale
    assert ree(upset["weak"]) - ree(skills["weak"]) > ree(expected["strong"]) - ree(skills["strong"])


@pytest.mark.parametrize("base", [initial_skill(), Skill(27.0, 3.0)])
def test_heavier_weight_moves_strictly_more(base: Skill) -> None:
    skills = {"ann": base, "bob": Skill(24.0, 4.0)}
    gains, losses, sigmas = [], [], []
    for weight in WEIGHTS_ASCENDING:
        new = duel("ann", "bob", skills, weight)
        gains.append(new["ann"].mu - skills["ann"].mu)
        losses.append(skills["bob"].mu - new["bob"].mu)
        sigmas.append(new["bob"].sigma)
    for lighter, heavier in itertools.pairwise(gains):
        assert 0 < lighter < heavier
    for lighter, heavier in itertools.pairwise(losses):
        assert 0 < lighter < heavier
    # the sigma shrink is scaled too: heavier matches make the rating more certain
    for lighter, heavier in itertools.pairwise(sigmas):
        assert heavier < lighter


def test_weight_factors_match_the_documented_table() -> None:
    assert WEIGHT_FACTORS == {
        "ultralight": 0.25,
        "light": 0.5,
        "midlight": 0.75,
        "normal": 1.0,
        "heavy": 1.5,
        "massive": 2.0,
    }


def test_normal_weight_change_scales_linearly() -> None:
    normal = duel("ann", "bob", {})
    massive = duel("ann", "bob", {}, "massive")
    start = initial_skill().mu
    assert massive["ann"].mu - start == pytest.approx(2.0 * (normal["ann"].mu - start))


def test_tie_between_equal_players_moves_nobody_much() -> None:
    skills = {"ann": Skill(25.0, 3.0), "bob": Skill(25.0, 3.0)}
    new = rate_match([FactionResult(1, ("ann",)), FactionResult(1, ("bob",))], skills, "normal")
    win = duel("ann", "bob", skills)
    for key in ("ann", "bob"):
        assert abs(new[key].mu - skills[key].mu) < 0.01
        assert abs(ree(new[key]) - ree(skills[key])) < 15
    assert abs(win["ann"].mu - skills["ann"].mu) > 0.5


def test_tie_in_a_multiplayer_match_keeps_tied_equal_players_together() -> None:
    new = rate_match(
        [FactionResult(1, ("ann",)), FactionResult(2, ("bob",)), FactionResult(2, ("cat",))], {}, "normal"
    )
    assert new["bob"].mu == pytest.approx(new["cat"].mu)
    assert new["ann"].mu > new["bob"].mu


@pytest.mark.parametrize("ranks", [[1, 1, 3, 4], [1, 1, 2, 3, 4], [1, 2, 2, 4], [1, 1, 1, 4]])
def test_tied_winners_of_new_players_end_above_everyone_they_beat(ranks: list[int]) -> None:
    factions = [FactionResult(rank, (f"p{index}",)) for index, rank in enumerate(ranks)]
    new = rate_match(factions, {}, "normal")
    for better, worse in itertools.permutations(factions, 2):
        a, b = new[better.participants[0]], new[worse.participants[0]]
        if better.rank < worse.rank:
            assert a.mu > b.mu
            assert ree(a) > ree(b)
        elif better.rank == worse.rank:
            assert ree(a) == ree(b)


def test_a_tie_moves_a_stronger_and_a_weaker_player_towards_each_other() -> None:
    skills = {"strong": Skill(30.0, 3.0), "weak": Skill(20.0, 3.0), "cat": Skill(25.0, 3.0)}
    duel_tie = rate_match([FactionResult(1, ("strong",)), FactionResult(1, ("weak",))], skills, "normal")
    assert duel_tie["strong"].mu < skills["strong"].mu
    assert duel_tie["weak"].mu > skills["weak"].mu
    # the same in a larger match: tied behind a third player
    three = rate_match(
        [FactionResult(2, ("strong",)), FactionResult(2, ("weak",)), FactionResult(1, ("cat",))],
        skills,
        "normal",
    )
    assert three["strong"].mu - skills["strong"].mu < three["weak"].mu - skills["weak"].mu


def test_a_match_of_two_factions_is_rated_as_plackett_luce_rates_it() -> None:
    # With two factions the Bradley-Terry and Plackett-Luce updates are one formula: duels, team against
    # team and co-op against a bot keep the standings they had before the model changed.
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    skills = {
        "ann": Skill(28.0, 4.0),
        "bob": Skill(22.5, 6.1),
        "cat": Skill(31.0, 2.2),
        "dan": Skill(19.0, 3.3),
    }
    for ranks in ([1, 2], [2, 1], [1, 1]):
        for teams in ([("ann",), ("bob",)], [("ann", "bob"), ("cat", "dan")], [("cat",), ("ann", "dan")]):
            new = rate_match(
                [FactionResult(r, t) for r, t in zip(ranks, teams, strict=True)], skills, "normal"
            )
            old = model.rate(
                [[model.rating(skills[k].mu, skills[k].sigma) for k in team] for team in teams], ranks=ranks
            )
            for team, rated in zip(teams, old, strict=True):
                for key, raw in zip(team, rated, strict=True):
                    assert new[key].mu == pytest.approx(raw.mu, abs=1e-12)
                    assert new[key].sigma == pytest.approx(min(raw.sigma, 25.0 / 3.0), abs=1e-12)


def test_all_members_of_winning_team_gain_in_2v2() -> None:
    skills = {
        "ann": Skill(30.0, 3.0),
        "bob": Skill(20.0, 5.0),
        "cat": Skill(26.0, 4.0),
        "dan": Skill(24.0, 2.0),
    }
    new = rate_match([FactionResult(1, ("ann", "bob")), FactionResult(2, ("cat", "dan"))], skills, "normal")
    for key in ("ann", "bob"):
        assert new[key].mu > skills[key].mu
        assert ree(new[key]) > ree(skills[key])
    for key in ("cat", "dan"):
        assert new[key].mu < skills[key].mu


def test_coop_players_losing_to_the_bot_lose_ree_and_the_bot_learns() -> None:
    skills: dict[str, Skill] = {"ann": Skill(25.0, 3.0), "bob": Skill(25.0, 3.0)}
    bot = "bot:42"
    before = {key: ree(skill) for key, skill in skills.items()}
    for _ in range(5):
        skills.update(
            rate_match(
                [FactionResult(2, ("ann", "bob")), FactionResult(1, (bot,), bot=True)], skills, "normal"
            )
        )
    for key in ("ann", "bob"):
        assert ree(skills[key]) < before[key]
    # the bot's strength is learnt per game: it has won, so it is now rated above a fresh player
    assert skills[bot].mu > initial_skill().mu
    assert skills[bot].sigma < initial_skill().sigma


def test_single_key_bot_is_rated_as_large_as_the_human_team() -> None:
    # A fresh bot against a fresh co-op team of 3 is an even match: the win is worth as much as a 3v3 win.
    coop = rate_match(
        [FactionResult(1, ("a", "b", "c")), FactionResult(2, ("bot:1",), bot=True)], {}, "normal"
    )
    team = rate_match([FactionResult(1, ("a", "b", "c")), FactionResult(2, ("x", "y", "z"))], {}, "normal")
    assert coop["a"] == team["a"]
    assert coop["bot:1"] == team["x"]


def test_skills_are_never_nan_and_sigma_never_exceeds_the_prior() -> None:
    skills: dict[str, Skill] = {}
    for i in range(60):
        winner, loser = ("ann", "bob") if i % 3 else ("bob", "ann")
        play(winner, loser, skills, "massive")
    for skill in skills.values():
        assert math.isfinite(skill.mu)
        assert 0 < skill.sigma <= initial_skill().sigma


def test_determinism() -> None:
    factions = [
        FactionResult(2, ("ann", "bob")),
        FactionResult(1, ("cat",)),
        FactionResult(3, ("bot:7",), bot=True),
        FactionResult(2, ("dan",)),
    ]
    skills = {"ann": Skill(27.5, 4.2), "cat": Skill(21.0, 6.0), "bot:7": Skill(30.0, 2.5)}
    first = rate_match(factions, skills, "heavy")
    second = rate_match(list(factions), dict(skills), "heavy")
    assert first == second
    assert list(first) == list(second)
    assert [ree(s) for s in first.values()] == [ree(s) for s in second.values()]


def test_input_skills_are_not_mutated() -> None:
    skills = {"ann": Skill(25.0, 3.0), "bob": Skill(25.0, 3.0)}
    snapshot = dict(skills)
    duel("ann", "bob", skills)
    assert skills == snapshot


@pytest.mark.parametrize("weight", ["", "Normal", "medium", "HEAVY"])
def test_unknown_weight_is_rejected(weight: str) -> None:
    with pytest.raises(ValueError, match="weight"):
        duel("ann", "bob", {}, weight)


@pytest.mark.parametrize("count", [0, 1])
def test_fewer_than_two_factions_are_rejected(count: int) -> None:
    factions = [FactionResult(1, ("ann",))][:count]
    with pytest.raises(ValueError, match="2 factions"):
        rate_match(factions, {}, "normal")


def test_duplicate_or_empty_participants_are_rejected() -> None:
    with pytest.raises(ValueError, match="more than once"):
        rate_match([FactionResult(1, ("ann",)), FactionResult(2, ("ann",))], {}, "normal")
    with pytest.raises(ValueError, match="participant"):
        rate_match([FactionResult(1, ("ann",)), FactionResult(2, (), bot=True)], {}, "normal")


def test_invalid_skill_is_rejected() -> None:
    with pytest.raises(ValueError, match="invalid skill"):
        duel("ann", "bob", {"ann": Skill(float("nan"), 3.0)})
    with pytest.raises(ValueError, match="invalid skill"):
        duel("ann", "bob", {"ann": Skill(25.0, 0.0)})


# --- ree -----------------------------------------------------------------------------------------------


def test_ree_stays_above_1000_after_200_straight_losses() -> None:
    skills: dict[str, Skill] = {}
    for _ in range(200):
        play("champ", "loser", skills, "massive")
    assert skills["loser"].mu < 0
    assert ree(skills["loser"]) > 1000
    assert ree(skills["champ"]) > 3000


def test_established_average_player_is_near_2000() -> None:
    skills: dict[str, Skill] = {}
    for more in (30, 300):  # then a long-time regular at the same level stays near 2000 too
        for i in range(more):
            play(*(("bob", "ann") if i % 2 else ("ann", "bob")), skills)
        for key in ("ann", "bob"):
            assert 1850 <= ree(skills[key]) <= 2150


def test_ree_reference_points() -> None:
    assert ree(Skill(25.0, 3.0)) == 2000.0
    assert ree(Skill(1e9, 1.0)) > ree(Skill(100.0, 1.0)) > ree(Skill(40.0, 1.0)) > 2000
    assert ree(Skill(-1e9, 1.0)) > 1000
    assert ree(Skill(27.123, 2.5)) == round(ree(Skill(27.123, 2.5)), 2)


def test_ree_rejects_non_finite_skill() -> None:
    with pytest.raises(ValueError):
        ree(Skill(float("inf"), 1.0))


@settings(max_examples=examples(300), deadline=None)
@given(mu=st.floats(-200.0, 300.0), sigma=st.floats(0.01, 20.0))
def test_ree_is_always_above_1000(mu: float, sigma: float) -> None:
    value = ree(Skill(mu, sigma))
    assert value > 1000
    assert math.isfinite(value)


@settings(max_examples=examples(200), deadline=None)
@given(
    mu=st.floats(-50.0, 100.0),
    sigma=st.floats(0.1, 10.0),
    step=st.floats(0.01, 10.0),
)
def test_ree_is_monotonic_in_mu_and_decreasing_in_sigma(mu: float, sigma: float, step: float) -> None:
    base = ree(Skill(mu, sigma))
    assert ree(Skill(mu + step, sigma)) >= base
    assert ree(Skill(mu, sigma + step)) <= base


skill_strategy = st.builds(Skill, mu=st.floats(-50.0, 100.0), sigma=st.floats(0.5, 25.0 / 3.0))


@st.composite
def matches(draw: st.DrawFn) -> tuple[list[FactionResult], dict[str, Skill], str]:
    faction_count = draw(st.integers(2, 6))
    factions = []
    skills: dict[str, Skill] = {}
    for index in range(faction_count):
        is_bot = draw(st.booleans()) and index > 0
        size = 1 if is_bot else draw(st.integers(1, 4))
        keys = tuple(f"p{index}_{member}" for member in range(size))
        factions.append(FactionResult(draw(st.integers(1, faction_count)), keys, bot=is_bot))
        for key in keys:
            if draw(st.booleans()):
                skills[key] = draw(skill_strategy)
    weight = draw(st.sampled_from(WEIGHTS_ASCENDING))
    return factions, skills, weight


@settings(max_examples=examples(200), deadline=None)
@given(match=matches())
def test_rate_match_never_produces_nan_and_is_repeatable(
    match: tuple[list[FactionResult], dict[str, Skill], str],
) -> None:
    factions, skills, weight = match
    new = rate_match(factions, skills, weight)
    assert set(new) == {key for faction in factions for key in faction.participants}
    for key, skill in new.items():
        assert math.isfinite(skill.mu)
        assert math.isfinite(skill.sigma)
        assert 0 < skill.sigma <= max(skills.get(key, initial_skill()).sigma, initial_skill().sigma)
        assert ree(skill) > 1000
    assert rate_match(factions, skills, weight) == new


# --- belts, titles, status -----------------------------------------------------------------------------


def test_belts_table_order_and_keys() -> None:
    assert [key for _, key, _ in BELTS] == [
        "white",
        "yellow",
        "orange",
        "green",
        "blue1",
        "blue2",
        "brown1",
        "brown2",
        "brown3",
        "black",
    ]
    rules = [rule for rule, _, _ in BELTS]
    for lower, higher in itertools.pairwise(rules):
        assert higher.min_ree > lower.min_ree
        assert higher.min_matches > lower.min_matches


def test_belt_for_examples() -> None:
    assert belt_for(1720.0, 0) == ("white", "White")
    assert belt_for(1900.0, 5) == ("yellow", "Yellow")
    assert belt_for(2160.0, 30) == ("blue1", "Blue 1")
    assert belt_for(2400.0, 60) == ("brown1", "Brown 1")
    assert belt_for(5000.0, 1000) == ("black", "Black")
    # a high ree is not enough without the matches, nor many matches without the ree
    assert belt_for(5000.0, 3) == ("white", "White")
    assert belt_for(1960.0, 1000) == ("orange", "Orange")


def belt_index(key: str) -> int:
    return [belt_key for _, belt_key, _ in BELTS].index(key)


@settings(max_examples=examples(300), deadline=None)
@given(
    best=st.floats(1000.0, 4000.0),
    more=st.floats(0.0, 1000.0),
    matches_played=st.integers(0, 300),
    more_matches=st.integers(0, 100),
)
def test_belts_are_never_lost(best: float, more: float, matches_played: int, more_matches: int) -> None:
    # the caller passes the best ree ever, which never decreases, and the count never decreases either
    before = belt_index(belt_for(best, matches_played)[0])
    assert belt_index(belt_for(best + more, matches_played)[0]) >= before
    assert belt_index(belt_for(best, matches_played + more_matches)[0]) >= before
    assert belt_index(belt_for(best + more, matches_played + more_matches)[0]) >= before


def test_belt_for_rejects_negative_matches() -> None:
    with pytest.raises(ValueError):
        belt_for(2000.0, -1)


def test_titles_in_a_large_group() -> None:
    assert title_for(1, 20) == ("emperor", "Emperor")
    assert title_for(2, 20) == ("shogun", "Shogun")
    assert title_for(3, 20) == ("daimyo", "Daimyo")
    assert title_for(4, 20) == ("samurai", "Samurai")
    assert title_for(5, 20) == ("samurai", "Samurai")
    assert title_for(6, 20) == ("", "")
    assert title_for(0, 20) == ("", "")


def test_titles_need_enough_ranked_players() -> None:
    assert title_for(1, 3) == ("", "")
    assert title_for(1, 4) == ("emperor", "Emperor")
    assert title_for(2, 4) == ("shogun", "Shogun")
    assert title_for(3, 5) == ("", "")
    assert title_for(3, 6) == ("daimyo", "Daimyo")
    assert title_for(4, 7) == ("", "")
    assert title_for(4, 8) == ("samurai", "Samurai")
    assert title_for(5, 9) == ("", "")
    assert title_for(5, 10) == ("samurai", "Samurai")


@pytest.mark.parametrize(
    ("count", "days", "expected"),
    [
        (0, math.inf, "inactive"),
        (0, 45.0, "inactive"),
        (3, 31.0, "inactive"),
        (1, 29.0, "occasional"),
        (3, 0.5, "occasional"),
        (4, 2.0, "active"),
        (11, 0.0, "active"),
        (15, 10.0, "active"),
        (12, 7.0, "very_active"),
        (30, 0.1, "very_active"),
    ],
)
def test_status_for(count: int, days: float, expected: str) -> None:
    key, label = status_for(count, days)
    assert key == expected
    assert (
        label
        == {
            "inactive": "Inactive",
            "occasional": "Occasional",
            "active": "Active",
            "very_active": "Very active",
        }[expected]
    )


def test_status_for_rejects_negative_inputs() -> None:
    with pytest.raises(ValueError):
        status_for(-1, 2.0)
    with pytest.raises(ValueError):
        status_for(2, -2.0)
