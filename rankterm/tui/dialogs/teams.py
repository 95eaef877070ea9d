"""`TeamsDialog`: the three fairest ways to split the players on the form into teams, each with its odds.

    self.app.push_screen(TeamsDialog(skills, names), callback)   # callback(split teams of ids, or None)

The splits come from `rankterm.stats.teams` (every split weighed; fairest first), worked out in a thread so
the dialog is up at once. 2, 3 and 4 choose how many teams (sizes differ by at most one); the cursor picks a
split and Enter closes with its teams (player ids), which the form puts in its factions; Escape closes with
None. Names are shown as typed, never as markup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from rankterm.stats.teams import Split, fairest_splits
from rankterm.tui.base import task
from rankterm.tui.text import plain
from rankterm.tui.widgets.text_table import TextTable
from rankterm.wire.rating import Skill
from rankterm.wire.shown import percent

Teams = tuple[tuple[str, ...], ...]


class TeamsDialog(ModalScreen[Teams | None]):
    """Fair teams from the players given: pick a split, Enter fills the form with it."""

    DEFAULT_CSS = """
    TeamsDialog { align: center middle; background: $background 60%; }
    TeamsDialog #teams-box {
        width: 100%; max-width: 100; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    TeamsDialog #teams-info { height: auto; color: $text-muted; }
    TeamsDialog DataTable { height: auto; max-height: 12; }
    """

    BINDINGS = [
        Binding("2", "teams(2)", "2 teams"),
        Binding("3", "teams(3)", "3 teams"),
        Binding("4", "teams(4)", "4 teams"),
        Binding("escape", "close", "Back"),
    ]

    def __init__(
        self,
        skills: Mapping[str, Skill],
        names: Mapping[str, str],
        teams: int = 2,
        *,
        pairings: Mapping[frozenset[str], int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.pairings = dict(pairings or {})
        """How often pairs were teammates last evening: of equally fair splits, fewer repeats first."""
        self.skills = dict(skills)
        self.names = dict(names)
        self.teams = teams
        self.splits: list[Split] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="teams-box") as box:
            box.border_title = "Fair teams"
            yield Static("", id="teams-info")
            yield TextTable(id="teams-table", cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one("#teams-table", DataTable)
        table.add_columns("#", "teams", "chances")
        self.action_teams(self.teams)

    def action_teams(self, teams: int) -> None:
        info = self.query_one("#teams-info", Static)
        if len(self.skills) < teams:
            info.update(
                plain(f"{len(self.skills)} players cannot make {teams} teams: put more players on the form.")
            )
            self.query_one("#teams-table", DataTable).clear()
            return
        self.teams = teams
        info.update(
            plain(f"The fairest splits into {teams} teams… (2 3 4: how many teams · Enter fills the form)")
        )
        self.weigh(teams)

    @task(group="teams")
    async def weigh(self, teams: int) -> None:
        splits = await asyncio.to_thread(lambda: fairest_splits(self.skills, teams, pairings=self.pairings))
        if teams != self.teams:
            return
        self.splits = splits
        table = self.query_one("#teams-table", DataTable)
        table.clear()
        for place, split in enumerate(splits, start=1):
            shown = "  vs  ".join(" + ".join(self.names.get(p, p) for p in team) for team in split.teams)
            table.add_row(str(place), shown, " · ".join(percent(c) for c in split.chances))
        self.query_one("#teams-info", Static).update(
            plain(f"The fairest splits into {teams} teams (2 3 4: how many teams · Enter fills the form)")
        )
        table.focus()

    @on(DataTable.RowSelected, "#teams-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self.splits):
            self.dismiss(self.splits[event.cursor_row].teams)

    def action_close(self) -> None:
        self.dismiss(None)
