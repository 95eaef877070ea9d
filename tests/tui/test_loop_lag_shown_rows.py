"""A screen that fills two tables in one step (Seasons: the roll of honour and a period's standings) puts in
each only the rows it shows (`TextTable.shown_rows`) at once, the rest by slices after the first paint: the
first step adds and measures ~25 rows a table, not 100 each. The tables still end with every row, in order,
and the Seasons screen's roll still opens on the latest period's standings."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal

from rankterm.tui.screens.seasons import SeasonsScreen
from rankterm.tui.widgets.text_table import FIRST_ROWS, TextTable
from tests.tui.pilot import settle

ROWS = 300


class TwoTables(App[None]):
    def compose(self) -> ComposeResult:
        with Horizontal():
            yield TextTable(id="a", cursor_type="row")
            yield TextTable(id="b", cursor_type="row")


def body(n: int) -> tuple[list[list[str]], list[str]]:
    return [[str(i + 1), f"p{i}", str(1000 - i)] for i in range(n)], [f"p{i}" for i in range(n)]


async def test_each_table_gets_what_it_shows_at_once_and_every_row_in_the_end() -> None:
    app = TwoTables()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        tables = list(app.query(TextTable))
        rows, keys = body(ROWS)
        for table in tables:
            table.add_columns("#", "player", "ree")
            table.fill_rows(rows, keys, first=table.shown_rows)
            assert 24 < table.row_count < FIRST_ROWS  # a screenful (and a few), not a hundred
            assert table.filling
        for _ in range(500):
            if not any(table.filling for table in tables):
                break
            await pilot.pause(0.01)
        for table in tables:
            assert [str(row.key.value) for row in table.ordered_rows] == keys


async def test_a_table_not_laid_out_yet_takes_the_usual_first_rows() -> None:
    table = TextTable()
    assert table.shown_rows == FIRST_ROWS


async def test_seasons_still_opens_on_the_latest_periods_standings(make_app) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SeasonsScreen) and screen.roll
        roll = screen.query_one("#seasons-table", TextTable)
        standings = screen.query_one("#seasons-rows", TextTable)
        assert roll.row_count == len(screen.roll)
        assert standings.row_count == len(screen.roll[-1].rows)
