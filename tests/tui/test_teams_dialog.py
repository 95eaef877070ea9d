"""The fair-teams dialog: it lists the fairest splits `rankterm.stats.teams` finds, 2 3 4 change how many
teams, Enter closes with the split under the cursor, Escape with nothing; names are shown as typed."""

from __future__ import annotations

from textual.app import App
from textual.widgets import DataTable

from rankterm.stats.teams import fairest_splits
from rankterm.tui.dialogs.teams import TeamsDialog
from rankterm.wire.rating import Skill
from tests.tui.pilot import workers_done

SKILLS = {f"p{i}": Skill(20 + 2.5 * i, 3 + i % 3) for i in range(6)}
NAMES = {pid: f"[b]P{pid}[/b]" for pid in SKILLS}


async def settle(pilot) -> None:
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.chosen: object = "not yet"

    def on_mount(self) -> None:
        self.push_screen(TeamsDialog(SKILLS, NAMES), self._done)

    def _done(self, teams: object) -> None:
        self.chosen = teams


async def rows(pilot) -> list[list[str]]:
    for _ in range(30):
        await settle(pilot)
        table = pilot.app.screen.query_one("#teams-table", DataTable)
        if table.row_count:
            break
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_enter_gives_the_split_under_the_cursor_and_3_weighs_three_teams() -> None:
    app = Host()
    async with app.run_test(size=(100, 24)) as pilot:
        shown = await rows(pilot)
        two = fairest_splits(SKILLS, 2)
        assert len(shown) == 3 and "[b]Pp0[/b]" in "".join(r[1] for r in shown)  # as typed
        await pilot.press("3")
        three = fairest_splits(SKILLS, 3)
        for _ in range(30):
            shown = await rows(pilot)
            if shown and shown[0][1].count("vs") == 2:
                break
        assert [r[0] for r in shown] == ["1", "2", "3"] and all(r[1].count("vs") == 2 for r in shown)
        await pilot.press("down", "enter")
        await settle(pilot)
    assert app.chosen == three[1].teams and app.chosen != two[1].teams


async def test_escape_gives_nothing() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await rows(pilot)
        await pilot.press("escape")
        await settle(pilot)
    assert app.chosen is None
