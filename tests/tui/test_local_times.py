"""Times on screens in the seat's time zone: the service's dates are UTC; the matches list, a match in full, the
standings' line and the Service screen show them as the `timezone` setting (else this machine's zone, `TZ`) reads
them, and say which zone; the board, the stats pages' days and the offline "as of" are the seat's too."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from textual.widgets import DataTable, Static

from rankterm.config import Config
from rankterm.mirror import Group
from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.screens.matches import MatchesScreen
from rankterm.tui.widgets.board.view import when as board_when
from rankterm.tui.widgets.stats.words import axis_labels, day, short_day
from rankterm.tui.widgets.status_line import StatusLine
from rankterm.wire.localtime import seat_zone
from rankterm.wire.models import Match
from tests.tui.pilot import settle

AUCKLAND = ZoneInfo("Pacific/Auckland")


def in_auckland(wire_date: str, layout: str = "%Y-%m-%d %H:%M") -> str:
    """A wire date (naive UTC) as the wall clock in Auckland reads it."""
    moment = datetime.strptime(wire_date, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    return moment.astimezone(AUCKLAND).strftime(layout)


def shown_dates(screen: MatchesScreen) -> tuple[str, list[tuple[str, str]]]:
    """The date column's header, and each row's number and date as shown."""
    table = screen.query_one("#matches-table", DataTable)
    header = str(table.ordered_columns[1].label)
    rows = [table.get_row_at(i) for i in range(table.row_count)]
    return header, [(str(row[0]), str(row[1])) for row in rows]


async def matches_in_auckland(pilot) -> MatchesScreen:
    await pilot.press("m")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MatchesScreen)
    header, rows = shown_dates(screen)
    wire = [(str(m.number), m.date) for m in screen.page_data.data]
    assert header == "Date (Auckland)"
    assert rows == [(number, in_auckland(date)) for number, date in wire]
    assert any(date[:16] != in_auckland(date) for _, date in wire)  # not the UTC dates under a new name
    return screen


async def test_the_matches_list_shows_the_configured_zone(make_app):
    async with make_app(config=Config(timezone="Pacific/Auckland")).run_test(size=(80, 24)) as pilot:
        await matches_in_auckland(pilot)


@pytest.fixture
def auckland_machine(monkeypatch):
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    time.tzset()
    yield
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


async def test_without_a_setting_the_machines_zone_is_shown(make_app, auckland_machine):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await matches_in_auckland(pilot)


async def test_utc_is_named_too(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await pilot.press("m")
        await settle(pilot)
        header, rows = shown_dates(pilot.app.screen)
        assert header == "Date (UTC)"
        assert rows[0] == (
            str(pilot.app.screen.page_data.data[0].number),
            pilot.app.screen.page_data.data[0].date[:16],
        )


async def test_a_match_in_full_says_its_time_and_zone(make_app):
    async with make_app(config=Config(timezone="Pacific/Auckland")).run_test(size=(120, 40)) as pilot:
        screen = await matches_in_auckland(pilot)
        await pilot.press("enter")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, MatchDetailScreen)
        facts = str(modal.query_one("#md-facts", Static).render())
        assert facts.startswith(f"{in_auckland(screen.page_data.data[0].date)} (Auckland) · ")


async def test_the_standings_line_and_the_service_screen_say_the_zone(make_app):
    async with make_app(config=Config(timezone="Pacific/Auckland")).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        status = str(pilot.app.screen.query_one("#service-status-text", Static).render())
        served = await pilot.app.client.status()
        server_time = dict(served.items())["serverTime"]
        assert f"server time  {in_auckland(server_time, '%d %b %H:%M')} Auckland" in status
        await pilot.press("r")
        await settle(pilot)
        page = pilot.app.screen.page_data
        line = str(pilot.app.screen.query_one("#rank-info", Static).render())
        assert f"· {in_auckland(page.match.date)} (Auckland) ·" in line


def test_the_boards_and_the_stats_pages_dates_are_the_seats():
    zone = seat_zone("Pacific/Auckland")
    late = "2026-05-28 20:26:40"  # 08:26 the next morning in Auckland (NZST, UTC+12)
    assert board_when(Match(date=late), zone) == "29 May 08:26"
    assert board_when(Match(date=late), zone, wide=True) == "Fri 29 May 08:26"
    assert short_day(late, zone) == "29 May" and day(late, zone) == "29 May 2026"
    assert axis_labels(["2026-05-01 11:00:00", late], zone) == ["1 May", "29 May"]
    assert board_when(Match(date="soon"), zone) == "soon"  # not a wire date: shown as it came


async def test_the_offline_as_of_is_the_seats_time(make_app, demo_service):
    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it
    async with make_app(client=group, config=Config(timezone="Pacific/Auckland")).run_test(
        size=(100, 30)
    ) as pilot:
        await pilot.press("r")
        await settle(pilot)
        transport.down = True
        await pilot.press("m", "r")  # read again: the mirror's copy, marked "as of"
        await settle(pilot)
        assert group.as_of is not None
        local, utc = group.as_of.astimezone(AUCKLAND), group.as_of.astimezone(UTC)
        assert f"{local:%H:%M}" != f"{utc:%H:%M}"
        line = pilot.app.screen.query_one(StatusLine)
        assert line.display and f"as of {local:%H:%M}" in str(line.render())
