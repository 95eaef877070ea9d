"""The keys that go to a table's last row, or past the rows added so far, while a long fill is still coming in
by slices (`TextTable.fill_rows`): they land where they would on the whole table. ctrl+end (the outbox's End
too: `to_last_row`) ends on the true last row, followed as the slices arrive; down and page down add the rows
they reach at once; another key after ctrl+end stops the following."""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import App, ComposeResult

from rankterm.tui.widgets.text_table import FIRST_ROWS, TextTable, fill_table

ROWS = 500


class OneTable(App[None]):
    CSS = "TextTable { height: 1fr; }"  # as the screens lay out their tables: a page is the screen's height

    def compose(self) -> ComposeResult:
        yield TextTable(id="t", cursor_type="row")


def fill(table: TextTable) -> None:
    body = [[str(i + 1), f"p{i}", str(1000 - i)] for i in range(ROWS)]
    fill_table(table, ["#", "player", "ree"], body, [f"p{i}" for i in range(ROWS)])


async def press_during_fill(app: App[None], table: TextTable, key: str) -> None:
    """`key` as the terminal sends it (through the app's bindings), answered while rows are still to come."""
    app.post_message(events.Key(key, None))
    await until(lambda: table.cursor_row != 0)
    assert table.filling


async def until(condition, seconds: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("never came")


async def filled(pilot, table: TextTable) -> None:
    await until(lambda: not table.filling)
    await pilot.pause()
    await pilot.pause()


async def test_ctrl_end_while_the_rows_come_ends_on_the_true_last_row() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        table.focus()
        fill(table)
        await press_during_fill(app, table, "ctrl+end")
        assert table.cursor_row < ROWS - 1  # the last row so far, not the last
        await filled(pilot, table)
        assert table.row_count == ROWS
        assert table.cursor_row == ROWS - 1
        assert table.cursor_key() == f"p{ROWS - 1}"


async def test_a_key_after_end_stops_the_following() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        table.focus()
        fill(table)
        await press_during_fill(app, table, "ctrl+end")
        at = table.cursor_row
        app.post_message(events.Key("up", None))
        # A slice adds its rows and moves the cursor to the last in one step: the cursor leaves the last row
        # only for the key, one above the last row of the moment it is handled (a slice may come before it).
        await until(lambda: table.cursor_row != table.row_count - 1)
        put = table.cursor_row
        assert at - 1 <= put < table.row_count - 1
        assert table.filling
        await filled(pilot, table)
        assert table.cursor_row == put  # where the person put it, not dragged to the end


async def test_page_down_past_the_rows_so_far_goes_a_whole_page() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        table.focus()
        await pilot.pause()
        fill(table)
        table.move_cursor(row=FIRST_ROWS - 5, animate=False)
        assert table.row_count == FIRST_ROWS
        table.action_page_down()  # what pagedown does, before the next slice came
        assert table.cursor_row > FIRST_ROWS + 5  # a page on, past the rows the fill had added
        await filled(pilot, table)
        assert table.row_count == ROWS


async def test_down_on_the_last_row_so_far_goes_to_the_next() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        table.focus()
        await pilot.pause()
        fill(table)
        table.move_cursor(row=FIRST_ROWS - 1, animate=False)
        assert table.row_count == FIRST_ROWS
        table.action_cursor_down()  # what down does, before the next slice came
        assert table.cursor_row == FIRST_ROWS
        await filled(pilot, table)
        assert table.cursor_row == FIRST_ROWS and table.row_count == ROWS
