"""The Stats mode's Odds tab on the demo group: the figures it shows are `rankterm.stats.predictions`' over
the held matches (the same as `rankterm stats predictions`), for every match and for the last 50."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from rankterm.mirror import Group
from rankterm.stats.predictions import score_predictions
from rankterm.stats.source import group_matches
from rankterm.tui.screens.stats.mode import StatsScreen
from rankterm.tui.widgets.stats.odds import RECENT, score_rows
from tests.tui.pilot import settle


async def test_the_odds_tab_shows_how_often_the_odds_came_true(make_app, demo_service) -> None:
    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
    whole, recent = score_predictions(matches), score_predictions(matches, RECENT)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("5")
        for _ in range(20):
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, StatsScreen)
            table = screen.query_one("#od-table", DataTable)
            if table.row_count:
                break
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        summary = str(screen.query_one("#od-summary", Static).render())
    assert f"{whole.matches:,} matches" in summary and "rankterm's estimate" in summary
    assert rows == [
        [f"all {whole.matches:,} matches", "", "", ""],
        *score_rows(whole),
        [f"the last {recent.matches}", "", "", ""],
        *score_rows(recent),
    ]
    assert whole.winner_picked > whole.baseline
