"""A walk through every screen and dialog with hostile names: markup, escapes, RTL, emoji, 200 characters.

Against (a) the embedded service whose players and games bear those names (and have played), and (b) a service
answering in the public, lenient shapes (tests/tui/public_service.py), at 80x24 and 120x40: every screen is
visited, the same strings are typed into every text field, nothing crashes, and the names are shown as typed
(an ESC as "␛"), never read as markup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.widgets import DataTable, Input

from rankterm.mirror import Group
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.dialogs.match_exists import MatchExistsDialog
from rankterm.tui.screens.stats.player_page import PlayerPageScreen
from rankterm.tui.text import NONE
from rankterm.tui.widgets.match_form.game_picker import GamePicker
from rankterm.tui.widgets.match_form.player_picker import PlayerPicker
from rankterm.wire.models import NewFaction, NewMatch
from rankterm.wire.text import display_safe

from .pilot import drain, settle, workers_done
from .public_service import public_client

ESC = "\x1b[2J\x1b]0;pwned\x07"
HOSTILE = [
    "[/]",
    "[/b]",
    "Evil [/b] Eve",
    "[b]Bold[/b]",
    "[link=http://x]L[/link]",
    "[reverse]R",
    ESC,
    "שלום עולם",
    "🎲 Dice 🎲",
    "Long " + "x" * 195,
]
SIZES = [(80, 24), (120, 40)]
TYPED_ON_EMBEDDED = [HOSTILE[i] for i in (0, 1, 2, 6, 9)]
TYPED_ON_PUBLIC = [HOSTILE[i] for i in (1, 3, 4, 5, 7, 8)]
"""Every string is typed into every field, half of them against each service (typing is the slow part of
the walk: all of them against both would take twice as long and test the same display path twice)."""


def shown(text: str, width: int = 10) -> str:
    """The start of `text` as it must appear on screen: control characters as symbols, nothing taken away."""
    return display_safe(text)[:width]


def screen_text(app: Any) -> str:
    """Everything the current screen (with its toasts) shows, as plain text."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def table_text(app: Any) -> str:
    """Every cell of the current screen's table, as plain text (rows out of view included)."""
    table = app.screen.query_one(DataTable)
    return "\n".join(" | ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count))


def assert_clean(app: Any) -> str:
    """The screen's text, checked for control characters; the toasts shown so far are then cleared (each
    toast left up would be restyled on every later change, the slow part of a long walk)."""
    text = screen_text(app)
    assert "\x1b" not in text and "\x07" not in text
    app.clear_notifications()
    return text


async def type_into(pilot: Any, field: Input, text: str, *, key: bool = False) -> None:
    """Put `text` in `field` as a person would end up with it (with `key`, its first letter typed)."""
    field.focus()
    if key:
        field.value = ""
        await pilot.press(text[0])  # one letter typed is enough to open the player suggestions
    field.value = text
    await pilot.pause(0)


async def seed_embedded(group: Any) -> None:
    """Hostile players (ghosts; the service keeps at most 50 characters) and games, each with a match."""
    group = Group.of(group)  # a client: read through its group
    players = [await group.create_player(name) for name in HOSTILE if len(name) <= 50]
    games = [await group.create_game(name=name) for name in HOSTILE if len(name) <= 100]
    matches = [
        NewMatch(
            game=game.id,
            weight="normal",
            notes=HOSTILE[n],
            factions=[
                NewFaction(players=[players[n % len(players)].id], rank=1, points="3"),
                NewFaction(players=[players[(n + 1) % len(players)].id], rank=2, points="1"),
            ],
        )
        for n, game in enumerate(games)
    ]
    answer = await group.add_matches(matches)
    assert answer.accepted_count == len(games)


async def quick(pilot: Any) -> None:
    """Let the workers started by the last key finish, and repaint."""
    await workers_done(pilot.app)
    await pilot.pause(0)


async def go(pilot: Any, key: str) -> None:
    """Open a screen by its app-wide key (with no text field focused, which would take the letter)."""
    pilot.app.screen.set_focus(None)
    await pilot.press(key)
    await drain(pilot)


async def ask_new(app: Any, pilot: Any, text: str) -> AskDialog:
    """The screen's new-thing dialog (ctrl+n) with `text` typed and Enter pressed; the dialog, shown or not."""
    await pilot.press("ctrl+n")
    await quick(pilot)
    dialog = app.screen
    assert isinstance(dialog, AskDialog)
    await type_into(pilot, dialog.query_one(Input), text)
    await pilot.press("enter")
    await quick(pilot)
    return dialog


Visit = Callable[[Any, Any, list[str], list[str], list[str]], Awaitable[None]]
"""A screen's part of the walk: (app, pilot, game names, player names, texts to type)."""


async def walk_games(
    app: Any, pilot: Any, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """The list, a search for each string, the new-game dialog with each string."""
    await go(pilot, "g")
    cells = table_text(app)
    for name in game_names:
        assert shown(name) in cells
    search = app.screen.query_one("#games-search", Input)
    for text in texts:
        await type_into(pilot, search, text)
        await pilot.press("enter")
        await quick(pilot)
        assert shown(text) in assert_clean(app)  # the caption says what was searched
    await pilot.press("escape")
    for text in texts or HOSTILE[:1]:
        dialog = await ask_new(app, pilot, text)
        if app.screen is dialog:  # refused: the reason is said in the dialog
            assert dialog.error_text
            await pilot.press("escape")
            await quick(pilot)
        else:  # created: the toast names it
            assert shown(text, 6) in assert_clean(app)


async def walk_players(
    app: Any, pilot: Any, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """The filter with each string, the new-ghost dialog with each string."""
    await go(pilot, "p")
    cells = table_text(app)
    for name in player_names:
        assert shown(name) in cells
    field = app.screen.query_one("#players-filter", Input)
    for text in texts:
        await type_into(pilot, field, text)
        await quick(pilot)
        assert shown(text) in assert_clean(app)  # the caption: Filter “…”
    await pilot.press("escape")
    for text in texts or HOSTILE[1:2]:
        dialog = await ask_new(app, pilot, text)
        if app.screen is dialog and "anyway" in dialog.error_text:  # taken: warned, by name
            assert shown(text, 6) in assert_clean(app)
            await pilot.press("enter")
            await quick(pilot)
        if app.screen is dialog:
            await pilot.press("escape")
            await quick(pilot)


async def walk_new_match(
    app: Any, pilot: Any, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """The game and player suggestions for each string."""
    await go(pilot, "n")
    games = app.screen.query_one(GamePicker)
    players = app.screen.query(PlayerPicker).first()
    for text in texts:
        await type_into(pilot, games.input, text)
        assert_clean(app)
        await type_into(pilot, players.input, text)
        assert_clean(app)
    await type_into(pilot, games.input, "[/b]")
    await settle(pilot, 0.35)  # the catalogue is searched too
    assert_clean(app)
    for name in player_names[:3]:
        await type_into(pilot, players.input, name[1:4], key=True)
        assert shown(name, 4) in assert_clean(app)  # the suggestion list shows it as typed
    players.input.value = ""
    await pilot.press("escape")


async def walk_rankings(
    app: Any, pilot: Any, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """Every hostile player's row, and Enter on one opens their matches (its border title)."""
    await go(pilot, "r")
    cells = table_text(app)
    for name in player_names:
        assert shown(name) in cells
    table = app.screen.query_one(DataTable)
    table.focus()
    for row in range(min(2, table.row_count)):
        table.move_cursor(row=row)
        await pilot.press("enter")
        await drain(pilot)
        assert isinstance(app.screen, PlayerPageScreen)
        assert shown(app.screen.player.label) in assert_clean(app)
        await pilot.press("escape")
        await drain(pilot)


async def walk_matches(
    app: Any, pilot: Any, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """The newest match in full, and the exists dialog with each string."""
    await go(pilot, "m")
    assert_clean(app)
    table = app.screen.query_one(DataTable)
    table.focus()
    table.move_cursor(row=0)
    await pilot.press("enter")
    await drain(pilot)
    assert isinstance(app.screen, MatchDetailScreen)
    game = app.screen.match.game
    assert game is not None and shown(game.name, 6) in assert_clean(app)
    await pilot.press("escape")
    await drain(pilot)
    await pilot.press("x")
    await drain(pilot)
    assert isinstance(app.screen, MatchExistsDialog)
    for text in texts or HOSTILE[2:3]:
        await type_into(pilot, app.screen.query_one(Input), text)
        await pilot.press("enter")
        await quick(pilot)
        assert_clean(app)
    await pilot.press("escape")
    await drain(pilot)


async def walk_outbox_and_profiles(
    app: Any, pilot: Any, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """The outbox, then profiles: a profile named with each string is listed as typed."""
    await go(pilot, "o")
    assert_clean(app)
    await go(pilot, "l")
    for text in texts[:4] or HOSTILE[3:4]:
        app.screen.query_one("#f-name", Input).value = text
        app.screen.query_one("#f-url", Input).value = "http://x.example/"
        await pilot.press("ctrl+s")
        await quick(pilot)
        assert_clean(app)
        assert shown(text) in assert_clean(app)  # the profiles list


async def walk_palette(
    app: Any, pilot: Any, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """The command palette on the Service screen: every key of the screen as a command, searched with markup."""
    await pilot.press("ctrl+p")
    await drain(pilot)
    search = app.screen.query_one(Input)
    for text in texts[:2] or ["[/b]"]:
        search.value = text
        await quick(pilot)
        assert_clean(app)
    search.value = "ref"
    await quick(pilot)
    assert "Refresh" in assert_clean(app)
    await pilot.press("escape")
    await drain(pilot)


SCREENS: dict[str, Visit] = {
    "games": walk_games,
    "players": walk_players,
    "new_match": walk_new_match,
    "rankings": walk_rankings,
    "matches": walk_matches,
    "outbox_and_profiles": walk_outbox_and_profiles,
    "palette": walk_palette,
}
"""Each screen with its dialogs, walked by a test of its own (on a fresh app), so xdist's workers share the walk."""


async def walk(
    app: Any, pilot: Any, screen: str, game_names: list[str], player_names: list[str], texts: list[str]
) -> None:
    """Home, the Service screen, then `screen` and its dialogs showing the service's hostile names, `texts` typed
    into every text field, then Home again."""
    await drain(pilot)
    assert_clean(app)  # Home: the standings' names, the last match's, tonight's
    await go(pilot, "d")
    assert_clean(app)  # the Service screen: status values and quota keys of the service's own
    await SCREENS[screen](app, pilot, game_names, player_names, texts)
    await go(pilot, "h")
    assert_clean(app)


# One app per service and screen: its strings typed into every field at one size, then the screen again at the
# other.
@pytest.mark.slow
@pytest.mark.parametrize("screen", SCREENS)
async def test_hostile_names_on_the_embedded_service(make_app, demo_client, screen):
    await seed_embedded(demo_client)
    app = make_app()
    async with app.run_test(size=SIZES[0]) as pilot:
        game_names = [n for n in HOSTILE if len(n) <= 100]
        player_names = ["*" + n for n in HOSTILE if len(n) <= 50]
        await walk(app, pilot, screen, game_names, player_names, TYPED_ON_EMBEDDED)
        await pilot.resize_terminal(*SIZES[1])
        await walk(app, pilot, screen, game_names, player_names, [])


@pytest.mark.slow
@pytest.mark.parametrize("screen", SCREENS)
async def test_hostile_names_from_a_public_service(make_app, screen):
    group = public_client(HOSTILE)
    app = make_app(client=group, demo=False)
    async with app.run_test(size=SIZES[1]) as pilot:
        player_names = [("*" + n) if i % 2 else n for i, n in enumerate(HOSTILE)]
        await walk(app, pilot, screen, HOSTILE, player_names, TYPED_ON_PUBLIC)
        await pilot.resize_terminal(*SIZES[0])
        await walk(app, pilot, screen, HOSTILE, player_names, [])


async def test_codes_from_a_public_service_read_as_words(make_app):
    app = make_app(client=public_client(HOSTILE), demo=False)
    async with app.run_test(size=SIZES[1]) as pilot:
        # belts, titles and statuses as their labels, a code without a label as a dash
        await go(pilot, "r")
        cells = table_text(app)
        assert "White belt" in cells and "Emperor" in cells and "Very active" in cells
        first = app.screen.query_one(DataTable).get_row_at(0)
        assert [str(c) for c in first[5:7]] == [NONE, "Emperor"]  # belt "2" came without a label
        # a match's type as a word, its weight as a word
        await go(pilot, "m")
        table = app.screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("enter")
        await drain(pilot)
        assert isinstance(app.screen, MatchDetailScreen)
        text = screen_text(app)
        assert "one against one" in text and "player_vs_player" not in text
        assert "weight Heavy" in text
