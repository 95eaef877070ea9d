"""The import screen when a file can record nothing: its info line says why (every play's date
unreadable), as `rankterm import` does, instead of "nothing new"; the dry run's summary says it too.
"""

from __future__ import annotations

from pathlib import Path

from rankterm.tui.screens.import_plays import ImportScreen

from .pilot import settle

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"


async def test_a_file_whose_dates_cannot_be_read_says_so_not_nothing_new(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await app.action_open_mode("import")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ImportScreen)
        screen.query_one("#import-path").value = str(FIXTURES / "dates_day_first.csv")
        screen.query_one("#import-path").focus()
        await pilot.press("enter")
        await settle(pilot)
        info = screen.query_one("#import-info")
        said = str(info.render())
        assert said.startswith("Nothing can be recorded: 2 plays left out: dates that cannot be read")
        assert "19/02/2025" in said and info.has_class("-error")
        assert "Nothing can be recorded" in str(screen.query_one("#import-summary").render())
