"""Head-to-head and streaks recomputed by brute force over random match lists (hypothesis): teams, ties,
bots, matches recorded out of the order played; and the thinning of a ree chart, which never needs again a
point it skipped (so what was read stays enough as matches come)."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.stats import head_to_head, player_figures
from rankterm.stats.history import thin
from rankterm.wire.models import Match
from tests.support.examples import examples

PEOPLE = ["a", "b", "c", "d", "e"]


@st.composite
def a_match(draw: Any, number: int) -> dict:
    seated = draw(st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=5, unique=True))
    cuts = draw(st.lists(st.integers(1, len(seated)), max_size=len(seated)))
    bounds = sorted({0, len(seated), *cuts})
    teams = [seated[lo:hi] for lo, hi in itertools.pairwise(bounds) if hi > lo]
    bot = draw(st.booleans())
    ranks = draw(st.lists(st.integers(1, 4), min_size=len(teams) + bot, max_size=len(teams) + bot))
    factions = [
        {"rank": r, "bot": 0, "players": [{"id": p, "displayName": p.upper()} for p in team]}
        for team, r in zip(teams, ranks, strict=False)
    ]
    if bot:
        factions.insert(draw(st.integers(0, len(factions))), {"rank": ranks[-1], "bot": 1, "players": []})
    day = draw(st.integers(0, 30))  # dates independent of numbers: recorded out of order
    date = (datetime(2026, 1, 1) + timedelta(days=day, minutes=number)).strftime("%Y-%m-%d %H:%M:%S")
    return {
        "number": number,
        "date": date,
        "game": {"id": draw(st.integers(1, 3)), "name": "g"},
        "factions": factions,
    }


@st.composite
def match_lists(draw: Any) -> list[Match]:
    count = draw(st.integers(0, 25))
    return [Match.model_validate(draw(a_match(n))) for n in range(1, count + 1)]


def rank_and_side(m: Match, player: str) -> tuple[int, int] | None:
    """(rank, index of the faction) of the player, by scanning every faction."""
    for i, f in enumerate(m.factions):
        if not f.bot and player in [p.id for p in f.players]:
            return f.rank, i
    return None


def brute_result(m: Match, player: str) -> str | None:
    found = rank_and_side(m, player)
    if found is None:
        return None
    ranks = [f.rank for f in m.factions]
    if found[0] > min(ranks):
        return "L"
    return "W" if ranks.count(found[0]) == 1 else "D"


def brute_h2h(matches: list[Match], a: str, b: str) -> tuple[int, int, int, int, int, int]:
    meetings = a_ahead = b_ahead = ties = together = together_wins = 0
    for m in matches:
        sa, sb = rank_and_side(m, a), rank_and_side(m, b)
        if sa is None or sb is None:
            continue
        if sa[1] == sb[1]:
            together += 1
            together_wins += brute_result(m, a) == "W"
        else:
            meetings += 1
            a_ahead += sa[0] < sb[0]
            b_ahead += sb[0] < sa[0]
            ties += sa[0] == sb[0]
    return meetings, a_ahead, b_ahead, ties, together, together_wins


def counts(h: Any) -> tuple[int, int, int, int, int, int]:
    return h.meetings, h.a_ahead, h.b_ahead, h.ties, h.together, h.together_wins


@settings(max_examples=examples(25), deadline=None)
@given(match_lists(), st.sampled_from(PEOPLE), st.sampled_from(PEOPLE))
def test_head_to_head_is_the_brute_force_count(matches, a, b):
    if a == b:
        return
    h = head_to_head(matches, a, b)
    assert counts(h) == brute_h2h(matches, a, b)
    assert sum(g.meetings for g in h.per_game) == h.meetings
    assert sum(g.together for g in h.per_game) == h.together
    assert len(h.last) == min(10, h.meetings)
    back = head_to_head(matches, b, a)
    assert (back.a_ahead, back.b_ahead, back.ties, back.together) == (
        h.b_ahead,
        h.a_ahead,
        h.ties,
        h.together,
    )


@settings(max_examples=examples(25), deadline=None)
@given(match_lists(), st.sampled_from(PEOPLE))
def test_against_everyone_is_the_sum_over_the_others(matches, a):
    total = counts(head_to_head(matches, a, None))
    parts = [brute_h2h(matches, a, b) for b in PEOPLE if b != a]
    assert total == tuple(sum(p[i] for p in parts) for i in range(6))


@settings(max_examples=examples(25), deadline=None)
@given(match_lists(), st.sampled_from(PEOPLE))
def test_streaks_and_form_are_the_brute_force_ones(matches, player):
    played = sorted((m for m in matches if rank_and_side(m, player)), key=lambda m: (m.date, m.number))
    results = [brute_result(m, player) for m in played]
    longest = max(
        (
            n
            for n in range(len(results) + 1)
            for i in range(len(results) - n + 1)
            if all(r == "W" for r in results[i : i + n])
        ),
        default=0,
    )
    current = max(n for n in range(len(results) + 1) if all(r == "W" for r in results[len(results) - n :]))
    f = player_figures(matches, player)
    assert (f.longest_streak, f.current_streak) == (longest, current)
    assert list(f.form) == results[-10:]
    assert (f.played, f.wins, f.draws, f.losses) == (
        len(results),
        results.count("W"),
        results.count("D"),
        results.count("L"),
    )
    assert sum(g.played for g in f.per_game) == f.played
    for rival in (f.nemesis, f.victim):
        if rival is not None:
            assert (rival.meetings, rival.ahead, rival.behind, rival.ties) == brute_h2h(
                matches, player, rival.player_id
            )[:4]


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 400), st.integers(1, 400), st.integers(2, 80))
def test_a_longer_history_never_needs_a_point_a_shorter_one_skipped(n1, grow, most):
    numbers = list(range(1, n1 + grow + 1))
    short, long = thin(numbers[:n1], most), thin(numbers, most)
    assert len(long) <= most and long[0] == 1 and long[-1] == numbers[-1]
    assert {n for n in long if n < n1} <= set(short)  # read once, never a new old point to read
