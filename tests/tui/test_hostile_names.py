"""Names full of markup, SQL and terminal escape sequences are shown as text, never interpreted."""

from __future__ import annotations

from textual.widgets import DataTable

from rankterm.mirror import Group
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import settle

NAMES = ["[bold red]Evil[/]", "\x1b[2JWipe\x1b[0m", "Robert'); DROP TABLE players;--"]


def screen_text(pilot) -> str:
    """What the players table shows on screen, line by line, as plain text."""
    table = pilot.app.screen.query_one(DataTable)
    return "\n".join(table.render_line(y).text for y in range(table.size.height))


async def test_players_screen_shows_hostile_names_literally(make_app, demo_client):
    for name in NAMES:
        await Group.of(demo_client).create_player(name)
    async with make_app().run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#players-filter").value = "evil"
        await settle(pilot, 0.5)
        text = screen_text(pilot)
        assert "*[bold red]Evil[/]" in text  # the brackets are shown, not taken as style
        screen.query_one("#players-filter").value = "wipe"
        await settle(pilot, 0.5)
        text = screen_text(pilot)
        assert "*␛[2JWipe␛[0m" in text and "\x1b" not in text  # the escape is shown, never sent
        screen.query_one("#players-filter").value = "robert"
        await settle(pilot, 0.5)
        assert "*Robert'); DROP TABLE players;--" in screen_text(pilot)


async def test_every_text_the_app_reads_is_display_safe(make_app, demo_client):
    await Group.of(demo_client).create_player("\x1b]0;pwned\x07Zed")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        players = await pilot.app.group.players(refresh=True)
        assert "*␛]0;pwned␇Zed" in [p.display_name for p in players]
        assert not any("\x1b" in p.display_name for p in players)


async def test_markup_typed_in_the_players_filter_is_shown_as_typed(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await pilot.press("p")
        await settle(pilot)
        for typed in ("[/]", "[/b]", "[reverse]M"):
            pilot.app.screen.query_one("#players-filter").value = typed  # was: MarkupError in the caption
            await settle(pilot)
            caption = pilot.app.screen.query_one("#players-caption")
            assert str(caption.render()).startswith(f"Filter “{typed}”")


async def test_a_ghost_named_with_markup_is_created_suggested_and_detailed_as_typed(make_app, demo_client):
    from rankterm.tui.screens.stats.player_page import PlayerPageScreen
    from rankterm.tui.widgets.match_form.player_picker import PlayerPicker

    mallory = await Group.of(demo_client).create_player("[b]Markup[/b] Mallory")
    ada = next(p for p in await Group.of(demo_client).players() if p.label == "Ada")
    game = (await Group.of(demo_client).games())[0]
    await demo_client.add_matches(
        NewMatch(
            game=game.id,
            weight="normal",
            factions=[NewFaction(players=[mallory.id], rank=1), NewFaction(players=[ada.id], rank=2)],
        )
    )
    async with make_app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        # the new-ghost dialog, then its toast: was a MarkupError ("closing tag '[/b]' ... nothing to close")
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        app.screen.query_one("#ask-input").value = "Bad [/b] Guy"
        await pilot.press("enter")
        await settle(pilot)
        assert any("*Bad [/b] Guy created" in n.message for n in app._notifications)
        # a seat's suggestions list both names as typed: was a MarkupError on the first letter
        await pilot.press("n")
        await settle(pilot)
        picker = app.screen.query(PlayerPicker).first()
        picker.focus_input()
        await pilot.press("b")
        await settle(pilot)
        options = picker.query_one("SuggestionList")
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert "*Bad [/b] Guy  · ghost" in prompts and "*[b]Markup[/b] Mallory  · ghost" in prompts
        # Enter on the player in the rankings: the detail's border title was a MarkupError (or bold)
        app.screen.set_focus(None)
        await pilot.press("r")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        row = next(i for i in range(table.row_count) if "Mallory" in str(table.get_row_at(i)[2]))
        table.focus()
        table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PlayerPageScreen)  # the player's page: its title and head as typed
        assert app.screen.title == "Player · *[b]Markup[/b] Mallory"
        head = app.screen.query_one("#ps-head").render()
        assert str(head).startswith("*[b]Markup[/b] Mallory · 1 match · 1 won")
        assert [span.style for span in head.spans if span.start == 0] == ["bold"]  # ours, not the name's


LINE_BROKEN = {"Ni\nna": "*Ni⏎na", "Zed\u2028Two": "*Zed⏎Two", "Kai\r\nLee": "*Kai⏎Lee"}
"""Ghosts whose names break their line (possible through the service and an import), as they must be shown:
whole, on one line, the break marked."""


def rendered_lines(app) -> list[str]:
    """Every line the current screen (with its dialogs and toasts) shows, as plain text."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def assert_whole_on_one_line(lines: list[str], *names: str) -> None:
    """Each name is shown whole on a line, and no line shows the start of one cut at its break."""
    for name in names:
        assert any(name in line for line in lines), f"{name!r} is not shown whole on one line"
        start = name.split("⏎")[0]
        assert all(line.count(start) == line.count(name) for line in lines), f"{start!r} cut at its break"


async def line_broken_match(group) -> tuple[int, str]:
    """Ni/na and Zed/Two tie first, Kai/Lee third, in a game of their own: its number and its subset's id."""
    group = Group.of(group)  # a client: read through its group
    ghosts = [await group.create_player(name) for name in LINE_BROKEN]
    game = await group.create_game(name="Line Breaker")
    answer = await group.add_matches(
        NewMatch(
            game=game.id,
            weight="normal",
            factions=[
                NewFaction(players=[ghosts[0].id], rank=1, points="5"),
                NewFaction(players=[ghosts[1].id], rank=1, points="5"),
                NewFaction(players=[ghosts[2].id], rank=3, points="2"),
            ],
        )
    )
    assert answer.accepted_count == 1
    return (await group.matches_page(1)).data[0].number, f"g{game.id}"


async def test_a_name_with_a_line_break_is_whole_on_one_line_on_every_screen(make_app, demo_client):
    from rankterm.tui.screens.matches import MatchesScreen
    from rankterm.tui.screens.players import PlayersScreen
    from rankterm.tui.screens.rankings import RankingsScreen

    number, subset = await line_broken_match(demo_client)
    shown = list(LINE_BROKEN.values())
    async with make_app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, PlayersScreen)
        app.screen.query_one("#players-filter").value = "*"  # the ghosts only: the three fit on one page
        await settle(pilot, 0.5)
        assert_whole_on_one_line(rendered_lines(app), *shown)

        app.screen.set_focus(None)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, RankingsScreen)
        app.screen.picker.value = subset
        await settle(pilot)
        assert_whole_on_one_line(rendered_lines(app), *shown)

        app.screen.set_focus(None)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MatchesScreen)
        first = app.screen.query_one(DataTable).get_row_at(0)
        assert str(first[0]) == str(number)
        assert str(first[4]) == "*Ni⏎na = *Zed⏎Two \u203a *Kai⏎Lee"  # the tie is one place, each name whole
        await pilot.press("enter")
        await settle(pilot)
        assert_whole_on_one_line(rendered_lines(app), *shown)  # the match in full


async def test_the_scoreboard_keeps_a_name_with_a_line_break_on_its_row(make_app, demo_client):
    from rankterm.tui.screens.board import BoardScreen
    from rankterm.tui.widgets.board.panels import LastMatchPanel, RecentPanel

    await line_broken_match(demo_client)
    async with make_app(home="board", kiosk=True).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, BoardScreen)
        lines = rendered_lines(pilot.app)
        assert_whole_on_one_line(lines, *LINE_BROKEN.values())
        recent = str(screen.query_one(RecentPanel).render()).splitlines()
        assert "*Ni⏎na = *Zed⏎Two" in recent[1]  # who won: both, tied, on the match's one row
        last = str(screen.query_one(LastMatchPanel).render()).splitlines()
        assert len(last) == 4  # the head and a row each


def test_every_line_break_is_one_mark_and_only_our_newlines_are_kept():
    from rankterm.wire.text import display_safe, display_safe_lines

    for text in ("a\nb", "a\r\nb", "a\rb", "a\x85b", "a\u2028b", "a\u2029b"):
        assert display_safe(text) == "a⏎b", repr(text)
    assert display_safe("a\x0bb\x1bc") == "a␋b␛c"  # other control characters keep their own symbols
    assert display_safe_lines("Ada\nNi\u2028na\rx") == "Ada\nNi⏎na⏎x"
