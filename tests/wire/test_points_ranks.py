"""More points but a worse rank (`wire.points_ranks`): found exactly when two factions' points and ranks
disagree, whatever the order of the factions, and never for a result whose points follow its ranks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.wire.new_match import NewFaction
from rankterm.wire.points_ranks import Disagreement, points_against_ranks

POINTS = st.one_of(
    st.just(""), st.integers(-50, 200).map(str), st.sampled_from(["2.5", "0.0", "-1.5", "1e2"])
)
FACTIONS = st.lists(
    st.builds(
        lambda rank, points: NewFaction(players=["p"], rank=rank, points=points), st.integers(1, 6), POINTS
    ),
    max_size=7,
)


def faction(rank: int, points: str = "") -> NewFaction:
    return NewFaction(players=["p"], rank=rank, points=points)


def disagree(a: NewFaction, b: NewFaction) -> bool:
    return bool(a.points and b.points) and float(a.points) > float(b.points) and a.rank > b.rank


def test_a_loser_with_more_points_is_found_with_the_winner():
    assert points_against_ranks([faction(1, "10"), faction(2, "12")]) == Disagreement(higher=1, lower=0)


def test_points_that_follow_the_ranks_ties_and_missing_points_agree():
    assert points_against_ranks([faction(1, "12"), faction(2, "10"), faction(3)]) is None
    assert points_against_ranks([faction(1, "10"), faction(1, "12")]) is None  # a tie on rank
    assert points_against_ranks([faction(1, "10"), faction(2, "10")]) is None  # a tie on points
    assert points_against_ranks([faction(2, "99"), faction(1)]) is None  # the winner has no points


@settings(max_examples=300, deadline=None)
@given(FACTIONS)
def test_found_exactly_when_two_factions_disagree(factions):
    found = points_against_ranks(factions)
    any_pair = any(disagree(a, b) for a in factions for b in factions)
    assert (found is not None) == any_pair
    if found is not None:
        assert disagree(factions[found.higher], factions[found.lower])


@settings(max_examples=200, deadline=None)
@given(FACTIONS, st.randoms(use_true_random=False))
def test_the_order_of_the_factions_does_not_decide_whether(factions, random):
    shuffled = list(factions)
    random.shuffle(shuffled)
    assert (points_against_ranks(factions) is None) == (points_against_ranks(shuffled) is None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-50, 200), min_size=2, max_size=7))
def test_points_sorted_down_the_ranks_never_disagree(points):
    ranked = sorted(points, reverse=True)
    factions = [faction(rank, str(p)) for rank, p in enumerate(ranked, start=1)]
    assert points_against_ranks(factions) is None
