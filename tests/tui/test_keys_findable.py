"""Keys a person can find: at 80x24 every screen's footer shows whole keys only, and always a way to
quit and to see every key; `?` opens the help overlay, built from the bindings; every binding is in the palette
with its key; one Escape leaves a field; Enter in the rankings' match field hands the table the keys; closing a
match's detail leaves the cursor on it; keys typed faster than the lists load reach the row they were meant for.

The screens are walked from the SCREENS table, so a mode added later is held to the same rules.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import Footer, Input, Select, Static
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast

from rankterm.mirror import Group
from rankterm.tui.dialogs.help import DESCRIPTIONS, KeysScreen, key_display, key_sections
from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.screens import SCREENS
from rankterm.tui.screens.matches import MatchesScreen, fit_summary
from rankterm.tui.screens.players import PlayersScreen
from rankterm.tui.screens.rankings import RankingsScreen
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.status_line import StatusLine
from rankterm.tui.widgets.text_table import TextTable

from .pilot import late_client, settle, type_at

MODES = list(SCREENS)


@pytest.fixture(autouse=True)
def quick_idle_waits():
    """Textual's own idle waits here: a footer laid out again after a resize and a focus change was checked
    before its layout had run, once in a few whole-suite runs, with the loop's quicker wait."""


async def open_mode(pilot: Pilot, mode: str) -> None:
    await pilot.app.switch_mode(mode)
    await settle(pilot)


def typing_in_a_field(pilot: Pilot) -> bool:
    return isinstance(pilot.app.screen.focused, Input)


# ---------------------------------------------------------------------------------------------- the footer


def footer_problems(pilot: Pilot, mode: str) -> list[str]:
    """What is wrong with the footer of the screen shown: a key cut or hidden, no quit or help key."""
    screen = pilot.app.screen
    footer = screen.query_one(Footer)
    if not isinstance(footer, KeyFooter):
        return [
            f"{mode}: the footer is a {type(footer).__name__}, not a KeyFooter (keys get cut at 80 columns)"
        ]
    problems = []
    always = footer.query_one("#footer-always")
    for key in footer.query(FooterKey):
        region = key.region
        text = key.render()
        label = f"{mode}: {key.key_display} {key.description}".rstrip()
        if text.cell_len > region.width:
            problems.append(f"{label} is cut ({region.width} cells for {text.cell_len})")
        if region.right > footer.region.right or region.x < footer.region.x:
            problems.append(f"{label} runs past the footer")
        if key.parent is not always and region.right > always.region.x:
            problems.append(f"{label} runs under the always-keys")
    shown = {key.action: key for key in always.query(FooterKey)}
    for action, wanted, in_field in (("quit", "q", "^q"), ("show_keys", "?", "f1")):
        key = shown.get(action)
        if key is None:
            problems.append(f"{mode}: no {action} key in the footer")
            continue
        expected = in_field if typing_in_a_field(pilot) else wanted
        if key.key_display != expected:
            problems.append(f"{mode}: {action} shows {key.key_display!r}, not {expected!r}")
        if key.key not in screen.active_bindings:  # what the footer says works from where the cursor is
            problems.append(f"{mode}: the footer's {key.key_display!r} does nothing here")
    return problems


def help_problems(pilot: Pilot, mode: str, under) -> list[str]:
    """Every key of the screen under the help overlay (its focused widget's, the app's) is listed in it."""
    screen = pilot.app.screen
    if not isinstance(screen, KeysScreen):
        return [f"{mode}: the help key opened {type(screen).__name__}"]
    text = "\n".join(str(static.render()) for static in screen.query(Static))
    problems = []
    for active in under.active_bindings.values():
        binding = active.binding
        if not binding.description or binding.system:
            continue
        what = DESCRIPTIONS.get(binding.action, binding.description)
        if key_display(pilot.app, binding) not in text or what not in text:
            problems.append(f"{mode}: {key_display(pilot.app, binding)} {what} is not in the help overlay")
    if f"Keys · {SCREENS[mode][2]}" not in str(screen.query_one("#keys-box").border_title):
        problems.append(f"{mode}: the overlay is not titled by the screen")
    return problems


def palette_problems(pilot: Pilot, mode: str) -> list[str]:
    """Every key a rankterm class declares (with a description, enabled) is a palette command with its keys."""
    screen = pilot.app.screen
    titles = [str(c.title) for c in pilot.app.get_system_commands(screen)]
    problems = []
    for section in key_sections(screen):
        for entry in section.entries:
            if not entry.ours or not entry.enabled or entry.action == "command_palette":
                continue
            found = [t for t in titles if t.startswith(f"{entry.description} (")]
            if not found or not all(k in found[0] for k in entry.keys):
                problems.append(
                    f"{mode}: {entry.description} ({' or '.join(entry.keys)}) is not in the palette"
                )
    return problems


# ---------------------------------------------------------------------------------------------- on one screen


FIELDS = {"rankings": ["slash", "1"], "matches": ["s"], "login": ["#f-name", "x"]}
"""Keys that put the cursor in a screen's text field or picker: one Escape must take it out again (the
players' filter and the games' search: test_players and test_games)."""


async def escape_problems(pilot: Pilot, mode: str) -> list[str]:
    """Into the field, one Escape, and the app's letters are keys again (README's "Escape, then the letter")."""
    screen = pilot.app.screen
    keys = FIELDS[mode]
    if keys[0].startswith("#"):  # no key puts the cursor there: a click, say
        screen.set_focus(screen.query_one(keys[0]))
        keys = keys[1:]
    await pilot.press(*keys)
    if not isinstance(screen.focused, Input | Select):
        return [f"{mode}: {FIELDS[mode]} put the cursor in no field"]
    await pilot.press("escape")
    letters = {k for k, a in screen.active_bindings.items() if a.node is pilot.app and len(k) == 1}
    if not {"d", "r", "m", "q"} <= letters or isinstance(screen.focused, Input | Select):
        return [f"{mode}: one Escape left the cursor in {type(screen.focused).__name__}"]
    return []


async def rankings_checks(pilot: Pilot) -> None:
    """Enter in the match-number field applies it and gives the table the keys; a toast stays off the
    status line (toasts are shown in this test: `notifications=True`)."""
    await pilot.press("slash", "2", "0", "0", "enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RankingsScreen)
    assert screen.match_number == 200
    assert screen.page_data is not None and screen.page_data.match.number == 200
    assert screen.focused is screen.table
    await pilot.press("down")
    assert screen.table.cursor_row == 1
    pilot.app.outbox_counts = {"pending": 2, "sent": 1, "rejected": 0}  # the status line has something to say
    pilot.app.notify(
        "A long toast that says something for a while, over two lines at 80 columns.", timeout=60
    )
    await pilot.pause()
    line = screen.query_one(StatusLine)
    toasts = list(screen.query(Toast))
    assert line.display and line.region.height == 1 and toasts
    assert not any(t.region.overlaps(line.region) for t in toasts), [t.region for t in toasts]
    pilot.app.clear_notifications()
    pilot.app.outbox_counts = {}


async def matches_checks(pilot: Pilot) -> None:
    """Closing a match's detail leaves the cursor on that match, also after the page is revalidated."""
    screen = pilot.app.screen
    assert isinstance(screen, MatchesScreen) and screen.page_data is not None
    await pilot.press("down", "down", "down", "enter")
    await settle(pilot)
    detail = pilot.app.screen
    assert isinstance(detail, MatchDetailScreen)
    assert detail.match.number == screen.page_data.data[3].number
    await pilot.press("escape")
    await settle(pilot)
    assert pilot.app.screen is screen and screen.focused is screen.table
    assert screen.selected_match().number == detail.match.number


@pytest.mark.slow
async def test_every_screen_at_80x24_footer_help_palette_and_fields(make_app):
    """Walks SCREENS: the footer keeps whole keys and shows quit and help; ? (F1 in a field) opens the
    overlay listing every key, Escape or ? closes it; every key is in the palette with its keys (as a title that
    test_app runs); one Escape leaves a field.
    Then at 60 columns the footer drops whole keys, never cuts one."""
    async with make_app().run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        problems = []
        for n, mode in enumerate(MODES):
            await open_mode(pilot, mode)
            under = pilot.app.screen
            problems += footer_problems(pilot, mode)
            problems += palette_problems(pilot, mode)
            await pilot.press("f1" if typing_in_a_field(pilot) else "question_mark")
            problems += help_problems(pilot, mode, under)
            await pilot.press("escape" if n % 2 else "question_mark")  # both close it
            if pilot.app.screen is not under:
                problems.append(f"{mode}: the overlay did not close")
            if mode in FIELDS:
                problems += await escape_problems(pilot, mode)
            if mode == "rankings":
                await rankings_checks(pilot)
            if mode == "matches":
                await matches_checks(pilot)
        assert not problems
        sections = key_sections(pilot.app.screen)  # the last mode's: the screen's keys first, the app's last
        assert sections[0].node is pilot.app.screen and sections[-1].title == "Everywhere"
        everywhere = {e.description: e.keys for e in sections[-1].entries}
        assert {"Service", "Games", "Players", "New match", "Rankings", "Matches", "Outbox"} <= set(
            everywhere
        )
        assert everywhere["Quit"][0] == "q" and everywhere["Keys"] == ("?", "f1")  # ours first, then ^q

        await pilot.resize_terminal(60, 24)
        await open_mode(pilot, "rankings")
        assert not footer_problems(pilot, "rankings at 60 columns")
        footer = pilot.app.screen.query_one(KeyFooter)
        always = footer.query_one("#footer-always")
        left = [k for k in footer.query(FooterKey) if k.parent is not always]
        assert left and len(left) < len(footer.screen_items())  # some keys left out whole, none cut
        await pilot.press("slash")  # the match-number field: q and ? would be typed there
        assert typing_in_a_field(pilot)
        assert not footer_problems(pilot, "rankings in its field at 60 columns")


# ---------------------------------------------------------------------------------------------- fast keys


async def test_keys_typed_faster_than_the_lists_load_reach_the_row_meant(make_app, demo_service):
    """On a late service: `r down down enter` (40 ms apart) opens the third player, `p down enter` (80 ms)
    the second player; then on the players screen, while the page is read again (F5), `/ e l e enter enter`
    (40 ms) filters and opens Elena."""
    async with Group(demo_service.client()) as reader:
        standings = (await Group.of(reader).rankings_page(1)).data
        players = (await Group.of(reader).players_page(1)).data
    app = make_app(client=late_client(demo_service, 0.1)[0])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_at(pilot, ["r", "down", "down", "enter"], 0.04)
        await settle(pilot)
        assert getattr(app.screen, "player", None) is not None, type(app.screen).__name__
        assert app.screen.player.id == standings[2].player.id
        await pilot.press("escape")

        await type_at(pilot, ["p", "down", "enter"], 0.08)
        await settle(pilot)
        assert getattr(app.screen, "player", None) is not None, type(app.screen).__name__
        assert app.screen.player.id == players[1].id
        await pilot.press("escape")
        await settle(pilot)

        screen = app.screen
        assert isinstance(screen, PlayersScreen)
        await type_at(pilot, ["f5"], 0.04)
        assert screen.query_one("#players-table", TextTable).loading  # the premise: the page is on its way
        await type_at(pilot, ["slash", "e", "l", "e", "enter", "enter"], 0.04)
        await settle(pilot)
        assert screen.filter_text == "ele"
        assert [p.display_name for p in screen.shown] == ["Elena"]
        assert getattr(app.screen, "player", None) is not None  # Enter in the table opened her
        assert app.screen.player.display_name == "Elena"


def test_a_summary_keeps_whole_names_and_counts_the_rest():
    parts = ["Elena", "Chiara", "Dev", "Ben"]
    assert fit_summary(parts, 40) == "Elena \u203a Chiara \u203a Dev \u203a Ben"
    assert fit_summary(parts, 24) == "Elena \u203a Chiara \u203a Dev +1"
    assert fit_summary(parts, 10) == "Elena +3"
    assert fit_summary(["Bartholomew the Great"], 8) == "Barthol…"


async def test_the_form_help_names_the_bot_key_and_every_screen_key_escape_frees(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(pilot.app.focused, Input)  # the game field: no faction row holds the cursor
        entries = {(e.key_text, e.description) for s in key_sections(pilot.app.screen) for e in s.entries}
        assert any(keys.startswith("^g") and "Bot" in text for keys, text in entries), entries
        leave = next(text for keys, text in entries if keys.startswith("esc"))
        words = leave.rstrip(")").split()
        assert all(k in words for k in ["d", "g", "n", "p", "r", "m", "o", "s", "b", "l"]), leave
