"""Keys that arrive in one burst land where they were meant, in every form, whatever the key.

An SSH connection, `tmux send-keys` or a paste delivers what was typed as one write: the terminal driver puts
every key of it in the app's queue before the app handles the first. Textual then handed them all to the field
that had the focus, before Tab (whose focus move runs when the key has bubbled up to the app), Enter (a pick,
then a faction row mounted and focused) or Backspace had done anything: `E l Tab Tab 1 0` typed "10" into the
rank and the service accepted Ada beating Elena. Here each sequence is handed over in one go (`burst`: no
turn of the event loop between keys) and 10 ms apart (`type_at`), and what the service recorded is read
back through the client.
"""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input

from rankterm.tui.screens.home import HomeScreen
from rankterm.tui.screens.login import LoginScreen
from rankterm.tui.screens.service import ServiceScreen
from rankterm.wire.models import Match

from .pilot import GAPS, keys, open_form, pick_game, send_keys, settle


def sides(match: Match) -> list[tuple[int, list[str], float | None]]:
    """(rank, players, points) of each faction, in rank order."""
    return [
        (f.rank, [p.display_name for p in f.players], f.points)
        for f in sorted(match.factions, key=lambda f: f.rank)
    ]


async def newest(pilot: Pilot) -> Match:
    return (await pilot.app.group.matches_page(1)).data[0]


@GAPS
async def test_the_catan_results_typed_in_bursts_are_the_ones_recorded(make_app, gap):
    """The game night's: from the Catan form, `E l Tab Tab 1 0 ⏎` then `A d Tab Tab 8 ⏎`, each arriving
    at once, then ctrl+s: Elena 1st with 10 points, Ada 2nd with 8."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await pick_game(pilot, "Catan")
        await settle(pilot)
        before = (await newest(pilot)).number
        await send_keys(pilot, ["E", "l", "tab", "tab", "1", "0", "enter"], gap)
        await send_keys(pilot, ["A", "d", "tab", "tab", "8", "enter"], gap)
        await send_keys(pilot, ["ctrl+s"], gap)
        answer = screen.last_answer
        assert answer is not None and answer.accepted_count == 1, screen.form.answer.text
        match = await newest(pilot)
        assert match.number == before + 1
        assert sides(match) == [(1, ["Elena"], 10), (2, ["Ada"], 8)]


EVERY_KIND = [
    *["n", *keys("Cat"), "enter"],  # an app key that opens a screen, then its game field
    *["E", "l", "tab", "tab", "9", "backspace", "1", "0", "enter"],  # Tab onto a pick, Backspace, Enter on
    *["A", "d", "tab", "tab", "8", "shift+tab", "2", "tab", "7", "enter"],  # shift+Tab back to the rank
    *["ctrl+f", "ctrl+d", "B", "e", "n", "enter"],  # a faction added (mounted) and removed, then typed on
    *["ctrl+s", "escape", "d"],  # sent; Escape leaves the field, and d is the Service screen's key again
]


@GAPS
async def test_every_kind_of_key_in_one_burst_from_home(make_app, gap):
    """Letters, digits, Tab, shift+Tab, Enter, Backspace, ctrl keys and Escape, with a screen opened, a
    faction mounted and one removed on the way: all in one burst from Home."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, HomeScreen)
        before = (await newest(pilot)).number
        await send_keys(pilot, EVERY_KIND, gap)
        match = await newest(pilot)
        assert match.number == before + 1
        assert match.game is not None and match.game.name == "Catan"
        assert sides(match) == [(1, ["Elena"], 10), (2, ["Ada"], 7), (3, ["Ben"], None)]
        assert isinstance(pilot.app.screen, ServiceScreen)


PROFILE = {"f-name": "club", "f-url": "http://127.0.0.1:8801/", "f-key": "demo", "f-secret": "demo-secret"}


@GAPS
async def test_a_profile_typed_in_one_burst_fills_each_field(make_app, gap):
    """The profiles form: ctrl+n, then `club Tab http://127.0.0.1:8801/ Tab demo Tab demo-secret` typed
    fast went all into the base URL."""
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LoginScreen)
        typed = ["ctrl+n"]
        for field in PROFILE.values():
            typed += [*keys(field), "tab"]
        await send_keys(pilot, typed[:-1], gap)
        assert {f: screen.query_one(f"#{f}", Input).value for f in PROFILE} == PROFILE


@GAPS
async def test_a_dialog_opened_by_a_key_gets_the_name_typed_behind_that_key(make_app, gap):
    """The players list's ctrl+n opens the one "ask for a line" dialog: the name typed right behind it, and
    its Enter, reach the dialog's field."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.switch_mode("players")
        await settle(pilot)
        await send_keys(pilot, ["ctrl+n", *keys("Zoe Quick"), "enter"], gap)
        names = [p.display_name for p in await app.group.players(refresh=True)]
        assert "*Zoe Quick" in names  # a ghost
