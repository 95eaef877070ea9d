"""One rule for equal points (`rankterm.wire.ties`): the match form's rows, said in finishing order with no
rank typed, and the importer's plays ranked by score give the same ranks, ties included."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from rankterm.importing.plays import Seat, SourceGame, SourcePlay
from rankterm.importing.ranks import sides
from rankterm.wire.ties import listed_ranks, read_points, score_ranks

POINTS = st.lists(st.integers(-20, 20), min_size=2, max_size=8)


def importer_ranks(points: list[int], *, lowest_wins: bool = False) -> list[int]:
    """The ranks `rankterm import` gives one play whose seats scored `points`, seat by seat."""
    seats = tuple(Seat(key=str(i), name=f"P{i}", score=str(p)) for i, p in enumerate(points))
    play = SourcePlay("x", "here", SourceGame("G", lowest_wins=lowest_wins), "2026-01-01 12:00:00", seats)
    out, why = sides(play)
    assert why == ""
    ranks = [0] * len(points)
    for side in out:
        ranks[side.seats[0]] = side.rank
    return ranks


@given(POINTS)
def test_the_forms_rows_in_finishing_order_rank_as_the_importer_does(points: list[int]) -> None:
    said = sorted(points, reverse=True)  # the rows as the result is said aloud: the winner first
    assert listed_ranks([str(p) for p in said]) == importer_ranks(said)


@given(POINTS, st.booleans())
def test_score_ranks_are_competition_ranks(points: list[int], lowest: bool) -> None:
    ranks = score_ranks([Decimal(p) for p in points], lowest_wins=lowest)
    for mine, rank in zip(points, ranks, strict=True):
        better = sum(1 for p in points if (p < mine if lowest else p > mine))
        assert rank == better + 1
    assert ranks == importer_ranks(points, lowest_wins=lowest)


def test_equal_points_tie_and_no_points_never_do() -> None:
    assert listed_ranks(["10", "10", "7"]) == [1, 1, 3]
    assert listed_ranks(["", "", ""]) == [1, 2, 3]
    assert listed_ranks(["9", "x", "x"]) == [1, 2, 3]
    assert listed_ranks(["10", "7", "10"]) == [1, 2, 3]  # not in order: the form asks about it
    assert read_points("nan") is None and read_points(" 7.5 ") == Decimal("7.5")
