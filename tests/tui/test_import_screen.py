"""The import screen: opened from the command palette, a file's dry run shown before anything is
sent, then sent through the app's outbox; the same file again has nothing new; names from the file are shown
as text, never as markup.
"""

from __future__ import annotations

from pathlib import Path

from rankterm.mirror import Group
from rankterm.tui.screens.import_plays import ImportScreen
from rankterm.tui.widgets.text_table import TextTable

from .pilot import settle

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"


def table_text(screen: ImportScreen, n: int) -> str:
    table = screen.query_one(f"#import-table-{n}", TextTable)
    return "\n".join(" | ".join(str(c) for c in table.get_row_at(r)) for r in range(table.row_count))


async def check(pilot, path: Path) -> ImportScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ImportScreen)
    screen.query_one("#import-path").value = str(path)
    screen.query_one("#import-path").focus()
    await pilot.press("enter")
    await settle(pilot)
    return screen


async def test_palette_opens_it_dry_run_first_then_send_and_again_nothing_new(make_app, demo_client):
    before = len(await Group.of(demo_client).all_matches())
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        (command,) = [c for c in app.get_system_commands(app.screen) if str(c.title) == "Import plays…"]
        await command.callback()  # what the palette runs when it is picked
        await settle(pilot)
        screen = await check(pilot, FIXTURES / "plays.xml")
        summary = str(screen.query_one("#import-summary").render())
        assert "To record: 6 matches" in summary and "new games: 1" in summary
        assert "marked incomplete on BGG" in table_text(screen, 2)
        assert "Our Kitchen Table Game" in table_text(screen, 1)
        assert "1. Ada · 1. Bob · 3. Carla" in table_text(screen, 3)
        assert app.outbox_counts.get("sent", 0) == 0  # a dry run sends nothing

        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.outbox_counts.get("sent") == 9  # 6 matches and 3 ghost players, through the outbox
        assert "Recorded 6 matches" in str(screen.query_one("#import-info").render())

        await check(pilot, FIXTURES / "plays.xml")
        assert "Nothing new to record" in str(screen.query_one("#import-info").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert len(await Group.of(demo_client).all_matches()) == before + 6


async def test_names_from_the_file_are_text_and_a_bad_file_is_one_sentence(make_app, tmp_path: Path):
    hostile = tmp_path / "plays.csv"
    hostile.write_text(
        "date,game,player,team,rank,score\n"
        "2026-05-01,[reverse]M,Evil [/b] Eve,,,10\n"
        "2026-05-01,[reverse]M,\x1b[2JWipe,,,3\n"
    )
    junk = tmp_path / "notes.txt"
    junk.write_text("milk, eggs\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.action_open_mode("import")
        await settle(pilot)
        screen = await check(pilot, hostile)
        players, games = table_text(screen, 0), table_text(screen, 1)
        assert "Evil [/b] Eve" in players and "␛[2JWipe" in players and "\x1b" not in players
        assert "[reverse]M" in games
        screen = await check(pilot, junk)
        assert "not a file rankterm can import" in str(screen.query_one("#import-info").render())
        assert screen.query_one("#import-table-0", TextTable).row_count == 0
