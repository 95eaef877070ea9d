"""The one way a ree, a change of ree and a win rate are written: each caller's figures as it shows them."""

from rankterm.stats.effect import signed as effect_signed
from rankterm.tui.screens.rankings import delta_cells, format_ree
from rankterm.tui.text import NONE
from rankterm.tui.widgets.stats.words import percent as words_percent
from rankterm.wire.models import RankingRow
from rankterm.wire.shown import MINUS, percent, ree, signed


def test_a_change_is_whole_with_a_true_minus_and_rounds_to_plus_minus_zero():
    assert [signed(v) for v in (58.4, -87.2, 0.3, -0.4, 0.5, 1.5, -2.5)] == [
        "+58",
        f"{MINUS}87",
        "\u00b10",
        "\u00b10",
        "\u00b10",  # half to even, as Python rounds
        "+2",
        f"{MINUS}2",
    ]
    assert effect_signed is signed


def test_the_standings_show_tenths_a_typed_minus_and_the_sign_of_the_value_itself():
    assert signed(12.34, 1, minus="-", exact_sign=True) == "+12.3"
    assert signed(-4.0, 1, minus="-", exact_sign=True) == "-4.0"
    assert signed(0.04, 1, minus="-", exact_sign=True) == "+0.0"
    assert signed(0.04, 1) == "\u00b10"


def _row(delta_ree: float | None) -> RankingRow:
    return RankingRow.model_validate(
        {
            "position": 1,
            "player": {"id": "p1", "name": "Ada", "label": "Ada"},
            "ree": 1500.0,
            "delta_ree": delta_ree,
        }
    )


def test_the_rankings_cells_keep_what_they_showed():
    assert [str(delta_cells(_row(v))[1]) for v in (12.34, -4.0, 0.04, -0.04, 0.0, None)] == [
        "+12.3",
        "-4.0",
        "+0.0",
        "-0.0",
        NONE,
        NONE,
    ]
    assert format_ree(1523.46) == "1523.5" == ree(1523.46, 1)
    assert format_ree(None) == NONE


def test_a_rate_is_a_whole_percent_rounded_half_to_even():
    assert [percent(r) for r in (0.4836, 0.625, 0.635, 1.0, 0.0)] == ["48%", "62%", "64%", "100%", "0%"]
    assert percent(None) == "" and words_percent(None) == NONE and words_percent(0.4836) == "48%"
    assert [percent(r) for r in (0.005, 0.015, 0.125)] == [
        f"{round(100 * r)}%" for r in (0.005, 0.015, 0.125)
    ]
