"""Properties of the rating over random matches: from equal ratings, placements and ties are kept in order.

Every participant starts a match at the same skill (fresh, or another common value). Matches have 2-8
factions, ranks drawn so that ties happen at every rank (all factions tied included), teams, an optional
single-key bot faction (rated as copies as large as the largest human faction) and every weight.

With unequal team sizes a team is rated on the sum of its members' mu, so the larger faction is the
stronger side and a smaller one that beats or ties it has done better than expected; there the order
properties hold between factions of the same size only, and that is what is checked.
"""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.wire.rating import WEIGHT_FACTORS, FactionResult, Skill, initial_skill, rate_match, ree
from tests.support.examples import examples

Match = tuple[list[FactionResult], dict[str, Skill], str]

common_skills = st.one_of(
    st.just(None),  # fresh: nobody in `skills`
    st.builds(Skill, mu=st.floats(-20.0, 60.0), sigma=st.floats(0.5, 25.0 / 3.0)),
)
weights = st.sampled_from(list(WEIGHT_FACTORS))


@st.composite
def equal_rating_matches(draw: st.DrawFn, *, equal_sizes: bool = True) -> Match:
    """A match whose participants all start at one skill."""
    count = draw(st.integers(2, 8))
    ranks = draw(st.lists(st.integers(1, count), min_size=count, max_size=count))
    team_size = draw(st.integers(1, 4))
    bot_index = draw(st.one_of(st.none(), st.integers(0, count - 1)))
    factions = []
    for index, rank in enumerate(ranks):
        if index == bot_index:
            factions.append(FactionResult(rank, (f"bot:{index}",), bot=True))
        else:
            size = team_size if equal_sizes else draw(st.integers(1, 4))
            factions.append(FactionResult(rank, tuple(f"f{index}m{member}" for member in range(size))))
    common = draw(common_skills)
    keys = [key for faction in factions for key in faction.participants]
    skills = {} if common is None else dict.fromkeys(keys, common)
    return factions, skills, draw(weights)


def rated_size(faction: FactionResult, factions: list[FactionResult]) -> int:
    """How many equal members the faction is rated as: a single-key bot counts as the largest human team."""
    if faction.bot and len(faction.participants) == 1:
        return max((len(f.participants) for f in factions if not f.bot), default=1)
    return len(faction.participants)


def same_skill(a: Skill, b: Skill) -> bool:
    return math.isclose(a.mu, b.mu, rel_tol=1e-12, abs_tol=1e-12) and math.isclose(
        a.sigma, b.sigma, rel_tol=1e-12, abs_tol=1e-12
    )


def assert_placements_kept(
    factions: list[FactionResult], new: dict[str, Skill], *, same_size_only: bool
) -> None:
    for better, worse in itertools.permutations(factions, 2):
        if same_size_only and rated_size(better, factions) != rated_size(worse, factions):
            continue
        for winner, loser in itertools.product(better.participants, worse.participants):
            if better.rank < worse.rank:
                assert new[winner].mu > new[loser].mu, (winner, new[winner], loser, new[loser])
                assert ree(new[winner]) >= ree(new[loser]), (winner, new[winner], loser, new[loser])
            elif better.rank == worse.rank:
                assert same_skill(new[winner], new[loser]), (winner, new[winner], loser, new[loser])


@settings(max_examples=examples(400), deadline=None)
@given(match=equal_rating_matches())
def test_from_equal_ratings_a_better_placement_never_ends_lower_and_ties_end_together(match: Match) -> None:
    factions, skills, weight = match
    new = rate_match(factions, skills, weight)
    assert_placements_kept(factions, new, same_size_only=False)
    # every member of a faction started equal, so every member ends equal
    for faction in factions:
        first = new[faction.participants[0]]
        assert all(same_skill(new[key], first) for key in faction.participants)


@settings(max_examples=examples(300), deadline=None)
@given(match=equal_rating_matches(equal_sizes=False))
def test_with_unequal_team_sizes_factions_of_one_size_keep_their_order(match: Match) -> None:
    factions, skills, weight = match
    assert_placements_kept(factions, rate_match(factions, skills, weight), same_size_only=True)


@settings(max_examples=examples(200), deadline=None)
@given(common=common_skills, rank=st.integers(1, 8), weight=weights)
def test_two_equal_players_who_tie_keep_their_mu(common: Skill | None, rank: int, weight: str) -> None:
    skills = {} if common is None else {"ann": common, "bob": common}
    before = common or initial_skill()
    tie = rate_match([FactionResult(rank, ("ann",)), FactionResult(rank, ("bob",))], skills, weight)
    assert tie["ann"].mu == before.mu and tie["bob"].mu == before.mu
    # sigma moves as after a decided match between them: a tie tells as much about both as a win would
    win = rate_match([FactionResult(1, ("ann",)), FactionResult(2, ("bob",))], skills, weight)
    assert tie["ann"].sigma == tie["bob"].sigma == win["ann"].sigma == win["bob"].sigma


@st.composite
def any_matches(draw: st.DrawFn) -> Match:
    """A match of any ranks, team sizes and skills (not equal ones)."""
    factions, _, weight = draw(equal_rating_matches(equal_sizes=draw(st.booleans())))
    skills = {
        key: draw(st.builds(Skill, mu=st.floats(-20.0, 60.0), sigma=st.floats(0.5, 25.0 / 3.0)))
        for faction in factions
        for key in faction.participants
        if draw(st.booleans())
    }
    return factions, skills, weight


@settings(max_examples=examples(300), deadline=None)
@given(match=any_matches(), data=st.data())
def test_the_result_does_not_depend_on_the_order_factions_are_listed_in(
    match: Match, data: st.DataObject
) -> None:
    factions, skills, weight = match
    listed_otherwise = data.draw(st.permutations(factions))
    new = rate_match(factions, skills, weight)
    again = rate_match(listed_otherwise, skills, weight)
    assert set(again) == set(new)
    for key, skill in new.items():
        assert same_skill(again[key], skill), (key, skill, again[key])
