"""The scoreboard of a period (`rankterm board --season`, `t` on the board) and its line of what changed
tonight, on the demo group (clock frozen on 2026-05-28 20:26:40 UTC)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rankterm.cli import main
from rankterm.cli.board import build_board
from rankterm.config import Config, NamedSeason
from rankterm.mirror import Group
from rankterm.stats.changes import changes
from rankterm.stats.seasons import period_of, season_standings
from rankterm.stats.source import group_matches
from rankterm.tui.screens.board import BoardScreen
from rankterm.tui.widgets.board.panels import RecentPanel, StandingsPanel, TonightLine
from rankterm.wire.localtime import UTC_ZONE, parse_wire_date
from tests.tui.conftest import FROZEN_NOW
from tests.tui.test_board import podium_titles, record_duel, text_of

from .pilot import settle

SPRING = NamedSeason("Spring league", datetime(2026, 3, 1), datetime(2026, 6, 1))


def bar(screen: BoardScreen) -> str:
    return str(screen.query_one("#board-title").render())


async def open_board(pilot) -> BoardScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, BoardScreen)
    return screen


async def test_a_periods_board_is_its_standings_from_an_even_start(make_app, demo_service) -> None:
    app = make_app(home="board", kiosk=True)
    app.board_period = period_of("2026-Q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_board(pilot)
        title = bar(screen)
        podium = podium_titles(screen)
        standings = text_of(screen, StandingsPanel).splitlines()[1:]
        recent = text_of(screen, RecentPanel).splitlines()[1:]
    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
    season = season_standings(matches, period_of("2026-Q1"), UTC_ZONE)
    assert title.startswith("SCOREBOARD  Main · 2026-Q1 · after match ")
    assert podium == [f"{r.position}  {r.name}" for r in season.rows[:3]]
    assert [line.split()[:3] for line in standings] == [
        [str(r.position), r.name, str(round(r.ree))] for r in season.rows[3:]
    ]
    in_q1 = [m for m in matches if m.date.startswith(("2026-01", "2026-02", "2026-03"))]
    assert [line.split()[0] for line in recent] == [f"#{m.number}" for m in reversed(in_q1[-5:])]
    assert title.endswith(f"after match {in_q1[-1].number}")


async def test_t_steps_through_the_periods_and_back_to_all_time(make_app) -> None:
    app = make_app(home="board", kiosk=True, config=Config(seasons=(SPRING,)))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_board(pilot)
        seen = [bar(screen)]
        for _ in range(5):
            await pilot.press("t")
            await settle(pilot)
            seen.append(bar(screen))
    heads = [line.split(" · after")[0] for line in seen]
    assert heads == [
        "SCOREBOARD  Main",
        "SCOREBOARD  Main · 2026-05",
        "SCOREBOARD  Main · 2026-Q2",
        "SCOREBOARD  Main · 2026",
        "SCOREBOARD  Main · Spring league",
        "SCOREBOARD  Main",
    ]


async def test_tonight_says_what_the_last_twelve_hours_changed(make_app, demo_service) -> None:
    other = demo_service.client()
    app = make_app(home="board", kiosk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_board(pilot)
        assert not screen.query_one(TonightLine).display  # the demo's last match is a day old
        for n in range(3):
            await record_duel(other, "Farid", "Ada", f"tonight-{n}")
        app.group_changed()
        await settle(pilot)
        line = text_of(screen, TonightLine)
        shown = screen.query_one(TonightLine).display
    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
    since = datetime.fromtimestamp(FROZEN_NOW, UTC).replace(tzinfo=None) - timedelta(hours=12)
    events = [e.text for e in reversed(changes(matches)) if parse_wire_date(e.date) >= since]  # type: ignore[operator]
    assert "Farid: 3 wins in a row" in events
    assert shown and line.startswith(f"TONIGHT {events[0]}")
    await other.aclose()


def test_rankterm_board_season(capsys: pytest.CaptureFixture[str]) -> None:
    app = build_board(demo=True, profile=None, season="2026-q3")
    assert app.board_period == period_of("2026-Q3")  # type: ignore[attr-defined]
    assert main(["board", "--demo", "--season", "Autumn"]) == 2
    err = capsys.readouterr().err
    assert err == "rankterm: 'Autumn' is not a season: write YYYY, YYYY-Qn (n 1-4) or YYYY-MM.\n"
