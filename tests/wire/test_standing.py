"""Equal ree, equal place (rankterm/wire/standing.py): the one rule every screen and table shows positions
by, standard competition ranking ("1224") over the service's 1..N."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rankterm.wire.models import Player, RankingRow
from rankterm.wire.standing import shared_positions, shown_positions


def test_equal_ree_shares_the_better_position_and_the_next_one_is_skipped():
    rows = [(12, 1800.0), (13, 1793.3), (14, 1793.3), (15, 1700.0), (16, 1700.0), (17, 1700.0), (18, 1)]
    assert shared_positions(rows) == [12, 13, 13, 15, 15, 15, 18]


def test_a_row_without_a_ree_keeps_its_own_and_order_does_not_matter():
    assert shared_positions([(3, None), (2, None), (5, 10.0), (4, 10.0)]) == [3, 2, 4, 4]


def test_by_player():
    def row(pid: str, ree: float, position: int) -> RankingRow:
        return RankingRow(player=Player(id=pid, display_name=pid), ree=ree, position=position)

    rows = [row("tia", 1793.3, 13), row("tom", 1793.3, 14), row("uma", 1700, 15)]
    assert shown_positions(rows) == {"tia": 13, "tom": 13, "uma": 15}


@given(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=30))
def test_competition_ranking_over_a_whole_standings(rees):
    ordered = sorted(rees, reverse=True)
    shown = shared_positions([(i + 1, float(r)) for i, r in enumerate(ordered)])
    for i, r in enumerate(ordered):
        assert shown[i] == 1 + sum(1 for other in ordered if other > r)
