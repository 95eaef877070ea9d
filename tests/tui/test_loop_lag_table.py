"""A long list goes into its table by slices (`TextTable.fill_rows`, through `fill_table`): the rows a screen
shows at once, the rest a few dozen after each refresh, so that the loop never adds and measures hundreds of
rows in one step. The table ends with every row, in order; a key pressed meanwhile is answered; a fill that
replaces it drops the slices not added yet; the cursor goes back to its row when that row's slice arrives."""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import App, ComposeResult

from rankterm.tui.widgets.text_table import FIRST_ROWS, SLICE_ROWS, TextTable, fill_table

ROWS = 500


class OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield TextTable(id="t", cursor_type="row")


def rows(n: int, tag: str = "p") -> tuple[list[list[str]], list[str]]:
    return [[str(i + 1), f"{tag}{i}", str(1000 - i)] for i in range(n)], [f"{tag}{i}" for i in range(n)]


def keys_of(table: TextTable) -> list[str]:
    return [str(row.key.value) for row in table.ordered_rows]


async def until_filled(pilot, table: TextTable) -> None:
    for _ in range(200):
        if not table.filling:
            break
        await pilot.pause(0.01)
    await pilot.pause()


async def test_a_long_fill_comes_in_slices_and_ends_with_every_row_in_order() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        body, keys = rows(ROWS)
        fill_table(table, ["#", "player", "ree"], body, keys)
        assert table.row_count == FIRST_ROWS  # what a screen shows, at once
        assert table.filling
        seen = []
        for _ in range(100_000):  # the table as the loop sees it between two of its steps
            if not table.filling:
                break
            await asyncio.sleep(0)
            seen.append(table.row_count)
        assert keys_of(table) == keys
        steps = [b - a for a, b in zip([FIRST_ROWS, *seen], seen, strict=False) if b != a]
        assert len(steps) > 1 and max(steps) <= SLICE_ROWS  # never the whole rest in one step
        await pilot.pause()


async def test_a_key_pressed_while_the_rows_come_is_answered() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        table.focus()
        body, keys = rows(ROWS)
        fill_table(table, ["#", "player", "ree"], body, keys)
        for _ in range(2):
            app.post_message(events.Key("down", None))  # as the terminal sends it: through the app's bindings
        for _ in range(2000):
            if table.cursor_row == 2:
                break
            await asyncio.sleep(0)
        assert table.cursor_row == 2
        assert table.filling  # answered before the rest of the rows were in
        await until_filled(pilot, table)
        assert table.cursor_row == 2 and table.row_count == ROWS


async def test_a_new_fill_drops_the_slices_of_the_one_it_replaces() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        fill_table(table, ["#", "player", "ree"], *rows(ROWS))
        body, keys = rows(3, "q")
        fill_table(table, ["#", "player", "ree"], body, keys)
        await until_filled(pilot, table)
        for _ in range(10):
            await pilot.pause(0.01)
        assert keys_of(table) == keys


async def test_the_cursor_goes_back_to_its_row_when_its_slice_arrives() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        body, keys = rows(ROWS)
        fill_table(table, ["#", "player", "ree"], body, keys)
        await until_filled(pilot, table)
        table.move_cursor(row=300, animate=False)
        fill_table(table, ["#", "player", "ree"], body, keys)  # the same page again (revalidated)
        await until_filled(pilot, table)
        assert table.cursor_row == 300
