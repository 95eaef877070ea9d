"""A player's page at 80x24 whose chart is not whole yet (the quota's share spent): the chart's title says how
many points of how many and why, whole, in the room it has ("45 of 53 points (quota)"), rather than a
sentence cut after "the rest"."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import DataTable, Static

from rankterm.stats.history import History
from rankterm.tui.widgets.stats.player_story import PlayerStory

from .pilot import settle


async def open_leader(pilot) -> PlayerStory:
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    pilot.app.screen.query_one("#rank-table", DataTable).focus()
    await pilot.press("enter")
    await settle(pilot)
    return pilot.app.screen.query_one(PlayerStory)


async def test_a_chart_read_in_part_says_so_whole_at_80_columns(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        story = await open_leader(pilot)
        read = story.history
        assert read is not None and read.points
        story._show_history(History(read.points, loaded=45, wanted=53, stopped="quota"), story.player_id)
        await pilot.pause()
        title = story.query_one("#ps-ree-title", Static)
        text = str(title.render())
        assert "45 of 53 points (quota)" in text
        assert cell_len(text) <= title.size.width and "…" not in text
        await pilot.resize_terminal(140, 24)
        await settle(pilot)
        text = str(title.render())
        assert "45 of 53 points · the rest when the quota allows · v: position" in text
