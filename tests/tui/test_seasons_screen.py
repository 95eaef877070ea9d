"""The Seasons screen on the demo group: the roll of honour is `roll_of_honour` over the held matches, newest
first, 1 2 3 choose the period, and the standings shown are those of the period under the cursor."""

from __future__ import annotations

from datetime import UTC, datetime

from textual.widgets import DataTable

from rankterm.mirror import Group
from rankterm.stats.seasons import roll_of_honour
from rankterm.stats.source import group_matches
from rankterm.tui.screens.seasons import SeasonsScreen
from rankterm.wire.localtime import UTC_ZONE
from tests.tui.conftest import frozen_clock
from tests.tui.pilot import settle


def rows(screen, selector: str) -> list[list[str]]:
    table = screen.query_one(selector, DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_the_roll_of_honour_and_a_periods_standings(make_app, demo_service) -> None:
    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
    now = datetime.fromtimestamp(frozen_clock(), UTC).replace(tzinfo=None)
    by_quarter = roll_of_honour(matches, "quarter", UTC_ZONE, now)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.app.switch_mode("seasons")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SeasonsScreen)
        await pilot.press("2")
        await settle(pilot)
        roll = rows(screen, "#seasons-table")
        standings = rows(screen, "#seasons-rows")
    assert [r[0] for r in roll] == [s.period.name for s in reversed(by_quarter)]
    newest = by_quarter[-1]
    assert roll[0][1].startswith(newest.champion.name)  # type: ignore[union-attr]
    assert [r[1] for r in standings] == [row.name for row in newest.rows]
