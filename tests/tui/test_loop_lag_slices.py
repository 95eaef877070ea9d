"""A long list's slices are few: each slice added after the first paints the rows shown again (the table's
cached cells are keyed by its update count, which an added row bumps: 40-80 ms of one step of the loop for a
screenful at 100,000 matches), so a list of 500 (a season's standings in a big group) arrives in a handful of
slices, not a dozen, and still every row, in order."""

from __future__ import annotations

from textual.app import App, ComposeResult

from rankterm.tui.widgets.text_table import TextTable, fill_table

ROWS = 500


class OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield TextTable(id="t", cursor_type="row", zebra_stripes=True)


async def test_a_list_of_500_rows_paints_the_rows_shown_at_most_six_times() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(TextTable)
        await pilot.pause()
        painted: list[int] = []
        real = table.render_line

        def render_line(y: int):  # the compositor asks for each line of the table at each paint of it
            if y == 1:  # the first row under the header
                painted.append(table.row_count)
            return real(y)

        table.render_line = render_line  # type: ignore[method-assign]
        body = [[str(i + 1), f"player {i}", str(1000 - i)] for i in range(ROWS)]
        fill_table(table, ["#", "player", "ree"], body, [f"p{i}" for i in range(ROWS)])
        for _ in range(400):
            if not table.filling:
                break
            await pilot.pause(0.01)
        await pilot.pause()
        assert [str(row.key.value) for row in table.ordered_rows] == [f"p{i}" for i in range(ROWS)]
    assert 1 <= len(painted) <= 6  # the first rows, then one paint per slice (13 with slices of 40)
