"""A season the host names reaches its guests' seats: `host_desk` tells it with the time zone, `build_seat` makes
it the seat's, and the guest's Rankings screen offers it and shows its standings (the demo group on a socket,
a real desk over a socketpair)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from textual.widgets import DataTable

from rankterm.cli.seat import build_seat
from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.seats.desk import ask
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from rankterm.stats.seasons import Period, season_standings
from rankterm.stats.source import group_matches
from rankterm.tui.screens.rankings import RankingsScreen
from rankterm.wire.localtime import UTC_ZONE
from rankterm.wire.shown import ree
from tests.cli.test_seat_desk import HostSide, served  # noqa: F401  (served: the demo group on a socket)
from tests.tui.pilot import settle


def room_with_a_season(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str) -> Period:
    """The host's profile `room` names "Late league": the last sixty days and tomorrow."""
    since, until = date.today() - timedelta(days=60), date.today() + timedelta(days=2)
    config = tmp_path / "config.toml"
    config.write_text(
        f'[profiles.room]\nbase_url = "{url}"\nkey = "{DEMO_KEY}"\nsecret = "{DEMO_SECRET}"\n'
        f'[[profiles.room.seasons]]\nname = "Late league"\nsince = {since}\nuntil = {until}\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("RANKTERM_CONFIG", str(config))
    monkeypatch.setenv("RANKTERM_LIVE_EVERY", "0")
    start = datetime(since.year, since.month, since.day)
    return Period("Late league", start, datetime(until.year, until.month, until.day))


async def test_a_guest_seat_offers_the_hosts_season_and_its_standings(
    served: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    period = room_with_a_season(tmp_path, monkeypatch, served)
    host = HostSide("room")
    try:
        told = ask(host.theirs.fileno(), {"ask": "seat"})["seasons"]
        assert told == [
            {"name": "Late league", "since": period.start.isoformat(), "until": period.end.isoformat()}
        ]
        monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "none.toml"))  # a seat never reads the config
        app = build_seat(host.theirs.fileno(), board=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("r")
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, RankingsScreen)
            assert screen.period_picker.labels[4] == "Late league"
            picker = screen.period_picker
            picker.value = "Late league"
            await settle(pilot)
            table = screen.query_one("#rank-table", DataTable)
            shown = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
            said = str(screen.query_one("#rank-info").render())
    finally:
        host.close()
    async with Group(RankingClient(served, key=DEMO_KEY, secret=DEMO_SECRET)) as group:
        matches = await group_matches(group)
    season = season_standings(matches, period, UTC_ZONE)
    assert season.rows and [(r[0], r[2], r[3]) for r in shown] == [
        (str(row.position), row.name, ree(row.ree, 1)) for row in season.rows
    ]
    assert said.startswith("Main · Late league, ")
