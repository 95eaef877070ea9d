"""Making a ghost player online whose name the group has already: the players screen warns, Escape goes to
the player there is, Enter makes a second one on purpose; a Zed another seat made meanwhile (one this seat's
list did not hold yet) is taken, and the toast says so."""

from __future__ import annotations

from rankterm.mirror import Group
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.players import PlayersScreen
from rankterm.tui.widgets.text_table import TextTable

from .pilot import keys, settle


def toasts(pilot) -> str:
    return " ".join(str(n.message) for n in pilot.app._notifications)


async def players_screen(pilot) -> PlayersScreen:
    await pilot.press("p")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, PlayersScreen)
    return screen


async def new_ghost(pilot, name: str):
    """ctrl+n, the name typed, Enter: the screen shown then (the dialog, when it warned)."""
    await pilot.press("ctrl+n")
    await settle(pilot)
    await pilot.press(*keys(name), "enter")
    await settle(pilot)
    return pilot.app.screen


async def ask_for(pilot, name: str) -> AskDialog:
    dialog = await new_ghost(pilot, name)
    assert isinstance(dialog, AskDialog)
    return dialog


async def ghosts_called(group, display_name: str) -> list:
    group = Group.of(group)  # a client: read through its group
    return [p for p in await group.players(refresh=True) if p.display_name == display_name]


async def test_a_name_the_group_has_warns_and_escape_goes_to_that_player(make_app, demo_service):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await players_screen(pilot)
        dialog = await ask_for(pilot, "  ADA")  # case and spaces aside, Ada is a member of the group
        assert dialog.error_text == (
            "Already in the group: Ada (member). Enter makes another one anyway; Escape goes to Ada."
        )
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is screen
        table = screen.query_one("#players-table", TextTable)
        assert [p.label for p in screen.shown if p.id == table.cursor_key()] == ["Ada"]
        assert not [
            p
            for p in await Group(demo_service.client()).players()
            if p.label.lstrip("*").lower() == "ada" and p.ghost
        ]


async def test_enter_after_the_warning_makes_a_second_zed_on_purpose(make_app, demo_service):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await players_screen(pilot)
        assert isinstance(await new_ghost(pilot, "Zed"), PlayersScreen)  # nobody called so: made at once
        [first] = await ghosts_called(demo_service.client(), "*Zed")

        dialog = await ask_for(pilot, "Zed")
        assert dialog.error_text.startswith(
            "Already in the group: *Zed (ghost). Enter makes another one anyway"
        )
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PlayersScreen)
        zeds = await ghosts_called(demo_service.client(), "*Zed")
        assert len(zeds) == 2  # the user saw the first and went on: a second Zed, not the first taken
        [second] = [g for g in pilot.app.outbox_runner.ghosts() if g.player_id != first.id]
        assert not second.taken and "Ghost player *Zed created." in toasts(pilot)


async def test_a_zed_another_seat_made_since_this_seats_list_is_taken_and_said(make_app, demo_service):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await players_screen(pilot)
        await app.group.players()  # this seat's list, fresh: no Zed in it
        other_seat = demo_service.client()
        made_there = await Group.of(other_seat).create_player("Zed")

        # the list this seat holds knows no Zed: no warning
        assert isinstance(await new_ghost(pilot, "Zed"), PlayersScreen)

        assert [p.id for p in await ghosts_called(other_seat, "*Zed")] == [made_there.id]
        [entry] = app.outbox_runner.ghosts()
        assert entry.taken and entry.player_id == made_there.id
        assert "*Zed was already made by another seat: their matches go to that one." in toasts(pilot)
