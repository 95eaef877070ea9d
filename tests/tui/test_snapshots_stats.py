"""Snapshots of the stats pages at 80x24 and 120x40: a player's page with its chart (opened from the rankings),
head-to-head (Ada against Ben), a game's page (Pandemic, a co-op game: the bot's wins show) and tonight (the
last game night of the demo).

The demo group runs in-process with its clock frozen; each shot waits for timers and workers first.
Update with `pytest tests/tui/test_snapshots_stats.py --snapshot-update`, then LOOK at every SVG.
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from rankterm.tui.widgets.stats.head_to_head import HeadToHeadView
from rankterm.tui.widgets.stats.tonight import TonightView
from tests.tui.pilot import settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.mark.parametrize("size", SIZES)
def test_player_page(snap_compare, make_app, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        pilot.app.screen.query_one("#rank-table", DataTable).focus()
        await pilot.press("enter")  # the leader's page
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_head_to_head(snap_compare, make_app, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("s", "2")  # before the matches arrive: the Player tab is never drawn
        await settle(pilot)
        view = pilot.app.screen.query_one(HeadToHeadView)
        ids = {name: pid for pid, name in view._players.items()}
        view.pick(ids["Ada"], ids["Ben"])
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_game_page(snap_compare, make_app, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        table = pilot.app.screen.query_one("#games-table", DataTable)
        table.focus()
        table.move_cursor(
            row=next(i for i in range(table.row_count) if str(table.get_row_at(i)[0]) == "Pandemic")
        )
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_tonight(snap_compare, make_app, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("s", "4")  # before the matches arrive: the Player tab is never drawn
        await settle(pilot)
        pilot.app.screen.query_one(TonightView).choose("night")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
