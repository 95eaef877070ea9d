"""A long list's cells are made and measured in a thread, not on the event loop: a period's standings on the
Rankings screen and a game's standings on its page have a row per player (500 in a big group: 20-30 ms of
one step of the loop). Only putting the rows in the table runs on the loop; the table shows what it showed."""

from __future__ import annotations

import threading

from textual.widgets import DataTable

from rankterm.tui.screens.rankings import RankingsScreen
from rankterm.tui.screens.stats.game_page import GamePageScreen
from rankterm.tui.widgets import text_table
from rankterm.tui.widgets.stats import game_story
from tests.tui.pilot import settle


def on_loop_calls(monkeypatch, module: object, name: str) -> list[bool]:
    """`module.name` wrapped: each call appends whether it ran on the event loop's thread."""
    real = getattr(module, name)
    seen: list[bool] = []

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


def rows_of(table: DataTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_a_periods_standings_are_made_for_the_table_off_the_loop(make_app, monkeypatch) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, RankingsScreen)
        cut = on_loop_calls(monkeypatch, text_table, "fit_cell")  # each name fitted to its column
        screen.period_picker.value = "2026-Q1"
        await settle(pilot)
        season = screen.season
        assert season is not None and season.rows
        table = screen.query_one("#rank-table", DataTable)
        assert [row[2] for row in rows_of(table)] == [row.name for row in season.rows]
    assert cut and not any(cut)


async def test_a_games_standings_are_made_for_the_table_off_the_loop(make_app, monkeypatch) -> None:
    placed = on_loop_calls(monkeypatch, game_story, "shown_positions")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        table = pilot.app.screen.query_one("#games-table", DataTable)
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        page = pilot.app.screen
        assert isinstance(page, GamePageScreen)
        story = page.query_one(game_story.GameStory)
        shown = rows_of(page.query_one("#gs-standings", DataTable))
        assert story.rows and [row[1] for row in shown] == [row.player.label for row in story.rows]
    assert placed and not any(placed)
