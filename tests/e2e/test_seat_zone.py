"""The end-to-end seats show times in UTC, as the TUI's and the command line's tests do, whatever this machine's
zone (tests/e2e/conftest.py puts every test under `utc_seat`): what a test reads on a screen is the same
everywhere."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from rankterm.tui.screens.matches import MatchesScreen
from tests.e2e.conftest import club_seat, demo_on_socket
from tests.support.terminal import PtySeat, room_env
from tests.tui.pilot import settle

ROOT = Path(__file__).resolve().parents[2]


async def test_a_seat_shows_the_services_dates_in_utc(seat_home, clock):
    with demo_on_socket(clock) as service:
        async with club_seat(service.base_url, clock).run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("m")
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, MatchesScreen)
            table = screen.query_one("#matches-table", DataTable)
            assert str(table.ordered_columns[1].label) == "Date (UTC)"
            newest = screen.page_data.data[0]
            assert [str(cell) for cell in table.get_row_at(0)[:2]] == [str(newest.number), newest.date[:16]]


def test_a_seat_on_a_terminal_keeps_the_zone_of_the_test(tmp_path, clock, monkeypatch):
    """A `rankterm` process on a pty reads times in the test's zone (`room_env` passes TZ on), not in the one
    this machine's /etc/localtime names: under `utc_seat` in UTC, here in the zone the test sets."""
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    with demo_on_socket(clock) as service:
        seat = PtySeat([], room_env(tmp_path, service.base_url, DEMO_KEY, DEMO_SECRET, PYTHONPATH=str(ROOT)))
        try:
            seat.settle(limit=20)
            seat.press(b"m")
            assert seat.wait_for("Date (Auckland)", 20), seat.seen[-2000:]
        finally:
            seat.close()
