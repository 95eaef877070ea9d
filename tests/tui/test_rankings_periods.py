"""The period picker of the Rankings screen on the demo group (clock frozen on 2026-05-28): a period's table is
`season_standings` over that period's held matches, the line above it names the period, the seasons the
config names are offered, all time stays the service's standings, and `/` with a match number goes back to
all time."""

from __future__ import annotations

from datetime import datetime

from textual.pilot import Pilot
from textual.widgets import DataTable

from rankterm.config import Config, NamedSeason
from rankterm.mirror import Group
from rankterm.stats.seasons import Period, period_of, season_standings
from rankterm.stats.source import group_matches
from rankterm.tui.screens.rankings import RankingsScreen
from rankterm.wire.localtime import UTC_ZONE
from rankterm.wire.shown import ree
from tests.tui.pilot import settle

SPRING = NamedSeason("Spring league", datetime(2026, 3, 1), datetime(2026, 6, 1))


async def open_rankings(pilot: Pilot) -> RankingsScreen:
    await pilot.press("r")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RankingsScreen)
    return screen


def table_rows(screen: RankingsScreen) -> list[list[str]]:
    table = screen.query_one("#rank-table", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def info(screen: RankingsScreen) -> str:
    return str(screen.query_one("#rank-info").render())


async def pick_period(pilot: Pilot, screen: RankingsScreen, name: str) -> None:
    """`t` gives the period picker the keys; the period is chosen as a person would, in its list."""
    await pilot.press("t")
    assert screen.focused is screen.period_picker
    await pilot.press("enter")
    labels = screen.period_picker.labels
    wanted = next(i for i, label in enumerate(labels) if label == name or label.endswith(f"({name})"))
    chosen = list(screen.period_picker._choices).index(screen.period_picker.value)  # the list opens on it
    step = "down" if wanted > chosen else "up"
    await pilot.press(*([step] * abs(wanted - chosen)), "enter")
    await settle(pilot)


async def expected(demo_service, period: Period, game: str | None = None) -> list[tuple[str, str, str]]:
    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
    if game is not None:
        matches = [m for m in matches if m.game is not None and str(m.game.id) == game]
    season = season_standings(matches, period, UTC_ZONE)
    return [(str(row.position), row.name, ree(row.ree, 1)) for row in season.rows]


async def test_a_periods_table_is_its_standings_replayed_from_an_even_start(make_app, demo_service) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_rankings(pilot)
        all_time = table_rows(screen)
        assert screen.period_picker.labels[:4] == [
            "All time",
            "This month (2026-05)",
            "This quarter (2026-Q2)",
            "This year (2026)",
        ]
        assert {"2026-Q1", "2026-04", "2026-01"} <= set(screen.period_picker.labels)
        await pick_period(pilot, screen, "2026-Q1")
        shown = table_rows(screen)
        said = info(screen)
        await pick_period(pilot, screen, "All time")
        back = table_rows(screen)
    want = await expected(demo_service, period_of("2026-Q1"))
    assert [(r[0], r[2], r[3]) for r in shown] == want and want
    assert "Main · 2026-Q1 · from an even start · " in said
    assert back == all_time and [r[2] for r in shown] != [r[2] for r in all_time]


async def test_a_games_period_and_back_to_all_time_with_a_match_number(make_app, demo_service) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_rankings(pilot)
        await pick_period(pilot, screen, "2026")
        catan = next(s for s in screen.picker._subsets.values() if s.name == "Catan")
        screen.picker.value = catan.id
        await settle(pilot)
        shown = table_rows(screen)
        said = info(screen)
        await pilot.press("slash", "5", "0", "enter")
        await settle(pilot)
        after = info(screen)
        period_after = screen.period_picker.period
    want = await expected(demo_service, period_of("2026"), str(catan.game.id))  # type: ignore[union-attr]
    assert [(r[0], r[2], r[3]) for r in shown] == want and said.startswith(
        "Catan · 2026 · from an even start · "
    )
    assert period_after is None and after.startswith("Catan · after match 4")  # Catan's last up to 50


async def test_a_season_the_config_names_is_offered(make_app, demo_service) -> None:
    config = Config(seasons=(SPRING,))
    async with make_app(config=config).run_test(size=(80, 24)) as pilot:
        screen = await open_rankings(pilot)
        assert screen.period_picker.labels[4] == "Spring league"
        await pick_period(pilot, screen, "Spring league")
        shown = table_rows(screen)
        said = info(screen)
        pilot.app.theme = "textual-light"  # painted again in the new colours: still the season's table
        await settle(pilot)
        assert table_rows(screen) == shown
    want = await expected(demo_service, Period("Spring league", SPRING.start, SPRING.end))
    assert [(r[0], r[2], r[3]) for r in shown] == want
    assert "Main · Spring league, 1 Mar to 31 May 2026 · from an even start · " in said
