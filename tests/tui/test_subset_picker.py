"""The subset picker: its labels count in words that agree ("1 match"), and its open list is as wide as its
longest label, so the table under it does not show through beside a long game's name."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets._select import SelectOverlay

from rankterm.tui.screens.matches import MatchesScreen
from rankterm.tui.widgets.pager import Pager
from rankterm.tui.widgets.subset_picker import subset_label
from rankterm.wire.models import Subset

from .pilot import settle


def test_one_match_is_one_match():
    def game(count: int) -> Subset:
        return Subset(id="g9", name="Hive", type="game", count_matches=count)

    assert [subset_label(game(n)) for n in (0, 1, 2)] == ["Hive", "Hive · 1 match", "Hive · 2 matches"]


async def test_the_open_list_is_as_wide_as_its_longest_label(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MatchesScreen)
        await pilot.press("s", "enter")
        await settle(pilot)
        overlay = screen.query_one(SelectOverlay)
        widest = max(cell_len(label) for label in screen.picker.labels)
        assert "Brass: Birmingham · 15 matches" in screen.picker.labels
        assert overlay.display and overlay.region.width >= widest + 2 > screen.picker.region.width


def test_the_pager_counts_one_match_as_one():
    pager = Pager("matches", one="match")
    pager.show(1, 1, 1)
    assert str(pager.render()).startswith("page 1 of 1 · 1 match ·")
    pager.show(1, 1, 2)
    assert str(pager.render()).startswith("page 1 of 1 · 2 matches ·")
