"""Players: pages with page keys, a filter over all players, new ghost players."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static

from rankterm.mirror import Group
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.players import PlayersScreen, fold


def names(app) -> list[str]:
    table = app.screen.query_one("#players-table", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def caption(app) -> str:
    return str(app.screen.query_one("#players-caption", Static).render())


async def add_guests(demo_service, count: int) -> None:
    async with Group(demo_service.client()) as group:
        for n in range(count):
            await group.create_player(f"Guest {n:02d}")


async def open_players(app, pilot, wait):
    await wait(pilot)
    await pilot.press("p")
    await wait(pilot)
    assert isinstance(app.screen, PlayersScreen)


def test_fold_ignores_case_and_accents():
    assert fold("Zoë") == fold("ZOE") == "zoe"


async def test_one_page_of_the_demo_group(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_players(app, pilot, wait)
        assert len(names(app)) == 10
        assert caption(app) == "Page 1 of 1 · 10 players"
        assert "*Hugo" in names(app) and "Ada" in names(app)


async def test_page_keys_turn_pages(make_app, demo_service, wait):
    await add_guests(demo_service, 20)  # 30 players: two pages of 25
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_players(app, pilot, wait)
        assert caption(app).startswith("Page 1 of 2 · 30 players")
        assert len(names(app)) == 25
        await pilot.press("right_square_bracket")
        await wait(pilot)
        assert caption(app).startswith("Page 2 of 2")
        assert len(names(app)) == 5
        await pilot.press("right_square_bracket")  # no page 3
        await wait(pilot)
        assert caption(app).startswith("Page 2 of 2")
        await pilot.press("pageup")
        await wait(pilot)
        assert caption(app).startswith("Page 1 of 2")


async def test_the_filter_searches_all_pages(make_app, demo_service, wait):
    await add_guests(demo_service, 20)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_players(app, pilot, wait)
        await pilot.press("slash", *"GRE")
        await wait(pilot)
        assert names(app) == ["Greta"]  # on page 2, found from page 1
        assert caption(app) == "Filter “GRE”: 1 of all 30 players (esc: clear)."
        await pilot.press("escape")
        await wait(pilot)
        assert caption(app).startswith("Page 1 of 2")


async def test_a_new_ghost_player_appears_in_the_list(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_players(app, pilot, wait)
        await pilot.press("ctrl+n")
        await wait(pilot)
        assert isinstance(app.screen, AskDialog)
        await pilot.press(*"Zoë", "enter")
        await wait(pilot)
        assert isinstance(app.screen, PlayersScreen)
        assert "*Zoë" in names(app)
        assert caption(app) == "Page 1 of 1 · 11 players"
        table = app.screen.query_one("#players-table", DataTable)
        assert str(table.get_row_at(table.cursor_row)[0]) == "*Zoë"


async def test_a_ghost_with_a_long_name_made_on_another_seat_shows_whole(make_app, demo_service, wait):
    """Found at the table: the Name column kept the width of the first page's names, so a ghost made on
    another seat showed as "*[/]Zo" once the page was read again."""
    long = "*[/]Zoë 🎲 [b]x and friends"  # 27 cells: the die is 2 wide
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_players(app, pilot, wait)
        async with Group(demo_service.client()) as other_seat:
            await Group.of(other_seat).create_player(long[1:])
        await pilot.press("f5")
        await wait(pilot)
        assert long in names(app)
        await pilot.press("ctrl+n")  # and one made here, longer still
        await wait(pilot)
        app.screen.query_one(Input).value = long[1:] + " too"
        await pilot.press("enter")
        await wait(pilot)
        assert long + " too" in names(app)
        table = app.screen.query_one("#players-table", DataTable)
        name_column = next(iter(table.columns.values()))
        assert name_column.get_render_width(table) >= 31 + 2 * table.cell_padding


async def test_an_empty_name_is_refused_inline(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_players(app, pilot, wait)
        await pilot.press("ctrl+n")
        await wait(pilot)
        await pilot.press("enter")
        await wait(pilot)
        assert isinstance(app.screen, AskDialog)
        assert app.screen.error_text == "Type the ghost player's name."
        app.screen.query_one("#ask-input", Input).value = "y" * 60
        await pilot.press("enter")
        await wait(pilot)
        assert isinstance(app.screen, AskDialog)
        # Too long for the service: one sentence, said before anything is queued or sent.
        assert app.screen.error_text == "A player's name has at most 50 characters."
        assert app.outbox_runner.queue() == []


async def test_a_taken_name_is_warned_about_and_the_user_may_go_on_or_change_it(make_app, demo_client, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_players(app, pilot, wait)
        await pilot.press("ctrl+n")
        await wait(pilot)
        dialog = app.screen
        assert isinstance(dialog, AskDialog)
        field = dialog.query_one("#ask-input", Input)
        for taken, who in (("ADA", "Ada (member)"), ("hugo", "*Hugo (ghost)")):
            field.value = taken
            await pilot.press("enter")
            await wait(pilot)
            assert app.screen is dialog  # warned, nothing created
            assert who in dialog.error_text and "anyway" in dialog.error_text
        field.value = "Quentin"  # changed to a free name: created at once
        await pilot.press("enter")
        await wait(pilot)
        assert isinstance(app.screen, PlayersScreen) and "*Quentin" in names(app)
        await pilot.press("ctrl+n")
        await wait(pilot)
        await pilot.press(*"Ada", "enter")
        await wait(pilot)
        assert isinstance(app.screen, AskDialog)  # warned first
        await pilot.press("enter")  # the same name again: go on
        await wait(pilot)
        assert isinstance(app.screen, PlayersScreen)
        everyone = await Group.of(demo_client).players(refresh=True)
        assert sorted(p.label for p in everyone if p.label.lstrip("*") == "Ada") == ["*Ada", "Ada"]
