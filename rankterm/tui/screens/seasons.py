"""Seasons (mode "seasons"): the roll of honour, and any past period's standings.

The left table lists each past month, quarter or year (`1` `2` `3` choose) with its champion, runner-up and
how many matches were played; the right one shows the standings of the period under the cursor: those of a
group that played only its matches (rankterm/stats/seasons.py, everyone starting even; the all-time standings
never change). Periods follow the seat's clock. Everything is worked out from the held matches, in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Header, Static

from rankterm.stats.kept import kept_roll
from rankterm.stats.seasons import Season
from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.text import plain
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.text_table import TextTable
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.shown import ree

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.wire.localtime import SeatZone

KINDS = {"month": "1", "quarter": "2", "year": "3"}


class SeasonsScreen(RanktermScreen):
    """The roll of honour by month, quarter or year, and the standings of the period under the cursor."""

    INFO = "#seasons-info"

    DEFAULT_CSS = """
    SeasonsScreen #seasons-info { height: auto; padding: 0 1; color: $text-muted; }
    SeasonsScreen #seasons-body { height: 1fr; }
    SeasonsScreen #seasons-roll { width: 3fr; }
    SeasonsScreen #seasons-standings { width: 2fr; }
    SeasonsScreen .seasons-title { height: 1; padding: 0 1; color: $text-muted; }
    SeasonsScreen DataTable { height: 1fr; }
    """

    BINDINGS = [
        Binding("1", "by('month')", "By month"),
        Binding("2", "by('quarter')", "By quarter"),
        Binding("3", "by('year')", "By year"),
        Binding("f5", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.kind = "month"
        self.roll: list[Season] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Reading the group's matches…", id="seasons-info")
        with Horizontal(id="seasons-body"):
            with Vertical(id="seasons-roll"):
                yield Static("Roll of honour", classes="seasons-title")
                yield TextTable(id="seasons-table", cursor_type="row", zebra_stripes=True)
            with Vertical(id="seasons-standings"):
                yield Static("", id="seasons-period", classes="seasons-title")
                yield TextTable(id="seasons-rows", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#seasons-table", DataTable).add_columns("period", "champion", "runner-up", "matches")
        self.query_one("#seasons-rows", DataTable).add_columns("#", "player", "ree", "played")

    def on_screen_resume(self) -> None:
        self.reload_data()

    def reload_data(self) -> None:
        self.load()

    def action_reload(self) -> None:
        self.reload_data()

    def action_by(self, kind: str) -> None:
        self.kind = kind
        self.reload_data()

    @task(group="seasons")
    async def load(self) -> None:
        if not self.has_client:
            return
        group, kind, zone = self.group, self.kind, shown_zone(self)
        with contextlib.suppress(RanktermError):  # offline: the matches held still make the roll
            await group.sync_matches()
        self.roll = await asyncio.to_thread(_roll, group, kind, zone)
        table = self.query_one("#seasons-table", TextTable)
        table.clear()
        seasons = list(reversed(self.roll))
        table.fill_rows(
            [
                (
                    season.period.name,
                    "" if season.champion is None else f"{season.champion.name} {ree(season.champion.ree)}",
                    ""
                    if season.runner_up is None
                    else f"{season.runner_up.name} {ree(season.runner_up.ree)}",
                    str(season.matches),
                )
                for season in seasons
            ],
            [season.period.name for season in seasons],
        )
        done = (
            f"{len(self.roll)} past {kind}s with matches"
            if self.roll
            else f"No past {kind} with matches yet."
        )
        self.say(f"{done} · 1 by month · 2 by quarter · 3 by year ({zone.label} time)")
        if self.roll:
            self._show(self.roll[-1])

    @on(DataTable.RowHighlighted, "#seasons-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        name = event.row_key.value if event.row_key is not None else None
        season = next((s for s in self.roll if s.period.name == name), None)
        if season is not None:
            self._show(season)

    def _show(self, season: Season) -> None:
        self.query_one("#seasons-period", Static).update(
            plain(f"{season.period.name} · {season.matches} matches")
        )
        rows = self.query_one("#seasons-rows", TextTable)
        rows.clear()
        rows.fill_rows([(str(row.position), row.name, ree(row.ree), str(row.played)) for row in season.rows])


def _roll(group: Group, kind: str, zone: SeatZone) -> list[Season]:
    """The roll of honour as the mirror keeps it (`stats.kept`): each past period worked out once while its
    matches stay the same, not every period of a big group's history rated again at each open."""
    now = zone.local(datetime.fromtimestamp(group.client.clock(), UTC)).replace(tzinfo=None)
    return kept_roll(group, kind, zone, now)
