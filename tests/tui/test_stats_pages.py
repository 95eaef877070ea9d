"""The stats pages on the demo group: what the screen shows is what the service layer's figures (and the
`rankterm stats` command) say; pages open from wherever a player or a game is listed and Escape returns;
names are shown as typed; the chart draws in every theme and without colour."""

from __future__ import annotations

import argparse
import json
import re

from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.text import Text
from textual.color import Color
from textual.widgets import DataTable, Static

from rankterm.mirror import Group
from rankterm.stats import game_figures, head_to_head, player_figures, source
from rankterm.stats.rules import faction_of
from rankterm.stats.source import group_matches
from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.dialogs.player_matches import PlayerMatchesScreen
from rankterm.tui.screens.stats.game_page import GamePageScreen
from rankterm.tui.screens.stats.mode import StatsScreen
from rankterm.tui.screens.stats.player_page import PlayerPageScreen
from rankterm.tui.widgets.chart import LineChart, even_indices, integer_ticks, nice_ticks
from rankterm.tui.widgets.stats.game_story import GameStory
from rankterm.tui.widgets.stats.head_to_head import HeadToHeadView
from rankterm.tui.widgets.stats.player_story import PlayerStory
from rankterm.tui.widgets.stats.tonight import TonightView
from rankterm.wire.models import NewFaction, NewMatch
from tests.tui.pilot import settle


def standard(rgb: tuple[int, int, int]) -> int | None:
    """The colour a 16-colour terminal shows for `rgb`."""
    return RichColor.from_rgb(*rgb).downgrade(ColorSystem.STANDARD).number


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def table_rows(screen, selector: str) -> list[list[str]]:
    table = screen.query_one(selector, DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def open_stats(pilot, tab: str = "1") -> StatsScreen:
    await settle(pilot)
    await pilot.press("s")
    await settle(pilot)
    if tab != "1":
        await pilot.press(tab)
        await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, StatsScreen)
    return screen


async def open_ada_against_ben(pilot) -> tuple[StatsScreen, HeadToHeadView, dict[str, str]]:
    """Stats, Head-to-head, Ada against Ben drawn: (the screen, the view, player ids by name)."""
    screen = await open_stats(pilot, "2")
    view = screen.query_one(HeadToHeadView)
    players = {name: pid for pid, name in view._players.items()}
    view.pick(players["Ada"], players["Ben"])
    await settle(pilot)
    return screen, view, players


async def open_leaders_page(pilot) -> PlayerPageScreen:
    """The page of the player on top of the rankings: r, then Enter on the table."""
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    pilot.app.screen.query_one("#rank-table", DataTable).focus()
    await pilot.press("enter")
    await settle(pilot)
    page = pilot.app.screen
    assert isinstance(page, PlayerPageScreen)
    return page


# ---------------------------------------------------------------------- the chart's arithmetic


def test_ticks_are_round_and_few():
    assert nice_ticks(1628, 2447, 4) == [1800, 2000, 2200, 2400]
    assert all(len(nice_ticks(lo, lo + span, 5)) <= 5 for lo in (0, 997, 1500) for span in (3, 40, 900))
    assert integer_ticks(1, 5, 3) == [1, 3, 5] and integer_ticks(1, 10, 4) == [1, 4, 7, 10]  # 1st always
    assert even_indices(38, 4) == [0, 12, 25, 37]
    assert even_indices(1, 4) == [0] and even_indices(0, 4) == []


# ---------------------------------------------------------------------- head-to-head: screen = figures = CLI


async def test_head_to_head_counts_are_the_figures_and_the_cli_tonight_and_themes(
    make_app, demo_service, capsys
):
    from rankterm.cli.stats import h2h_command

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen, view, players = await open_ada_against_ben(pilot)
        summary = text_of(screen, "#h2h-summary")
        per_game = table_rows(screen, "#h2h-games")
        last = table_rows(screen, "#h2h-last")
        view.pick(players["Ada"], None)
        await settle(pilot)
        everyone = text_of(screen, "#h2h-summary")
        await tonight_is_12_hours_then_the_last_game_night(pilot, screen)
        await the_chart_draws_in_every_theme(pilot, screen)

    shown = re.match(r"(\d+) meetings · Ada ahead (\d+) · Ben ahead (\d+) · (\d+) ties?", summary)
    assert shown, summary
    meetings, a_ahead, b_ahead, ties = map(int, shown.groups())

    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
        figures = head_to_head(matches, players["Ada"], players["Ben"])
        await h2h_command(group, argparse.Namespace(a="Ada", b="Ben", format="json"))
    printed = json.loads(capsys.readouterr().out)

    assert (meetings, a_ahead, b_ahead, ties) == (
        figures.meetings,
        figures.a_ahead,
        figures.b_ahead,
        figures.ties,
    )
    assert (meetings, a_ahead, b_ahead, ties) == (
        printed["meetings"],
        printed["a_ahead"],
        printed["b_ahead"],
        printed["ties"],
    )
    assert meetings > 10 and meetings == a_ahead + b_ahead + ties
    cli_games = {g["game"]["name"]: g for g in printed["per_game"] if g["meetings"]}
    assert len(per_game) == len(cli_games)
    for row in per_game:
        game = next(g for name, g in cli_games.items() if name.startswith(row[0].rstrip("…")))
        assert [int(c) for c in row[1:4]] == [game["meetings"], game["a_ahead"], game["b_ahead"]]
    assert [int(r[0]) for r in last] == [m["match"] for m in printed["last"]]
    against_all = head_to_head(matches, players["Ada"], None)
    assert everyone.startswith(f"{against_all.meetings} meetings · Ada ahead {against_all.a_ahead} · ")


# ---------------------------------------------------------------------- a player's page


async def test_enter_on_a_player_anywhere_opens_their_page_with_chart_and_figures(make_app, demo_service):
    async with make_app().run_test(size=(80, 24)) as pilot:
        page = await open_leaders_page(pilot)
        rankings = pilot.app.screen_stack[-2]  # the screen it was opened from
        story = page.query_one(PlayerStory)
        facts = text_of(page, "#ps-facts")
        form = text_of(page, "#ps-form")
        chart = page.query_one("#ps-ree", LineChart)
        title = text_of(page, "#ps-ree-title")
        drawn = chart.render().plain
        games = table_rows(page, "#ps-games")
        assert page.query_one("#ps-ree").display and not page.query_one("#ps-pos").display
        await pilot.press("v")  # 24 lines: one chart at a time
        await settle(pilot)
        assert page.query_one("#ps-pos").display and not page.query_one("#ps-ree").display
        assert page.query_one("#ps-pos", LineChart).ys == [p.position for p in story.history.points]
        await pilot.press("h")  # the recent matches, from the matches the page holds
        await settle(pilot)
        recent = pilot.app.screen
        assert isinstance(recent, PlayerMatchesScreen)
        recent_numbers = [m.number for m, _ in recent.found]
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is page
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is rankings

        await pilot.press("p")  # the players list
        await settle(pilot)
        players = pilot.app.screen
        table = players.query_one("#players-table", DataTable)
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PlayerPageScreen)
        assert pilot.app.screen.player_id == str(table.coordinate_to_cell_key((0, 0)).row_key.value)
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is players

        match = (await pilot.app.group.matches_page(1)).data[0]  # a match in full, its winner's faction
        detail = MatchDetailScreen(match)
        pilot.app.push_screen(detail)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PlayerPageScreen)
        winner = sorted(match.factions, key=lambda f: f.rank)[0]
        assert pilot.app.screen.player_id == str(winner.players[0].id)
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is detail

    async with Group(demo_service.client()) as group:
        expected = player_figures(await group_matches(group), page.player_id)
    assert story.figures == expected
    assert recent_numbers == list(reversed(expected.match_numbers))[:10]
    assert f"Played     {expected.played}" in facts
    assert f"Won        {expected.wins} · " in facts
    assert f"{expected.current_streak} now · {expected.longest_streak} best" in facts
    assert expected.best_game is not None and expected.best_game.game_name in facts
    assert expected.nemesis is not None and expected.nemesis.name in facts
    assert form.split()[1:11] == list(expected.form)
    assert [r[0] for r in games] == [g.game_name for g in expected.per_game]
    history = story.history
    assert history is not None and history.loaded > 1
    assert f"{history.loaded} points" in title or f"{history.loaded} of {history.wanted}" in title
    assert chart.xs == [p.match_number for p in history.points]
    assert any("\u2800" < ch <= "\u28ff" for ch in drawn)  # braille dots
    assert re.search(r"[A-Z][a-z]{2} 20\d\d", drawn)  # the x axis names dates


async def test_pages_read_only_their_matches_and_a_second_open_asks_nothing(
    make_app, demo_client, demo_service
):
    """A player's page holds the player's matches only, the Stats tabs never parse the whole group, a second
    open of a page answers from the mirror (no request) and F5 asks the service again. (Home, the first
    screen, walks the whole history once for what changed tonight: what it parsed is forgotten first.)"""
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pilot.app.group.memo.put("stats.parsed", None)
        page = await open_leaders_page(pilot)
        first = page.query_one(PlayerStory).figures
        assert first is not None and len(page.matches) == first.played
        assert all(faction_of(m, page.player_id) is not None for m in page.matches)
        seat = pilot.app.group
        assert first.played < seat.mirror.held.match_numbers()[0]
        await pilot.press("escape")
        await settle(pilot)
        calls = demo_client.calls
        await pilot.press("enter")
        await settle(pilot)
        again = pilot.app.screen
        assert isinstance(again, PlayerPageScreen) and again is not page
        assert again.query_one(PlayerStory).figures == first
        assert demo_client.calls == calls  # the matches, the figures and the chart: all from the mirror
        await pilot.press("f5")
        await settle(pilot)
        assert demo_client.calls > calls  # F5 never trusts a fresh sync
        await pilot.press("escape")
        await settle(pilot)
        await pilot.app.switch_mode("stats")  # s picks the subset on the rankings
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, StatsScreen)
        for tab in "234":
            await pilot.press(tab)
            await settle(pilot)
        assert screen.query_one(HeadToHeadView).figures is not None
        assert screen.query_one(TonightView).evening is not None
        assert screen.query_one(GameStory).figures is not None
    assert seat.memo.get("stats.parsed") is None  # no page parsed every match of the group

    async with Group(demo_service.client()) as group:  # the pickers' roster says what the parsed matches say
        group.client.display_safe = True
        matches = await group_matches(group)
        roster = source.held_roster(group)
    names: dict[str, str] = {}
    played: dict[str, int] = {}
    for m in sorted(matches, key=lambda m: -m.number):
        for q, label in {str(p.id): p.label for f in m.factions if not f.bot for p in f.players}.items():
            names.setdefault(q, label)
            played[q] = played.get(q, 0) + 1
    assert roster.players == names and roster.played == played
    games: dict[int, str] = {}
    for m in sorted(matches, key=lambda m: -m.number):
        if m.game is not None:
            games.setdefault(m.game.id, m.game.name)
    assert roster.games == games
    assert roster.newest == max((m.date, m.number) for m in matches)


# ---------------------------------------------------------------------- a game's page, tonight


async def test_names_as_typed_a_game_s_page_and_offline_a_player_s_page_from_the_mirror(
    make_app, demo_service
):
    async with Group(demo_service.client()) as setup:
        eve = await Group.of(setup).create_player("Evil [/b] Eve")
        ada = next(p for p in await Group.of(setup).players() if p.label == "Ada")
        patchwork = next(g for g in await Group.of(setup).games() if g.name == "Patchwork")
        for n in range(3):
            await setup.add_matches(
                NewMatch(
                    game=patchwork.id,
                    weight="normal",
                    factions=[
                        NewFaction(players=[eve.id], rank=1 + n % 2),
                        NewFaction(players=[ada.id], rank=2 - n % 2),
                    ],
                )
            )
    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it
    async with make_app(client=group).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.push_screen(PlayerPageScreen(eve))
        await settle(pilot)
        page = pilot.app.screen
        head = page.query_one("#ps-head", Static).render()
        assert str(head).startswith("*Evil [/b] Eve · 3 matches · 2 won")
        assert "*Evil [/b] Eve" in page.title
        assert page.query_one("#ps-ree").display and page.query_one("#ps-pos").display  # 40 lines: both
        assert len(page.query_one("#ps-pos", LineChart).xs) == 3
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_stats(pilot, "2")
        screen.query_one(HeadToHeadView).pick(eve.id, ada.id)
        await settle(pilot)
        assert text_of(screen, "#h2h-summary").startswith("3 meetings · *Evil [/b] Eve ahead 2 · Ada ahead 1")

        await pilot.press("g")
        await settle(pilot)
        games = pilot.app.screen
        table = games.query_one("#games-table", DataTable)
        pandemic = next(i for i in range(table.row_count) if str(table.get_row_at(i)[0]) == "Pandemic")
        table.focus()
        table.move_cursor(row=pandemic)
        await pilot.press("enter")
        await settle(pilot)
        page = pilot.app.screen
        assert isinstance(page, GamePageScreen)
        facts = text_of(page, "#gs-facts")
        standings = table_rows(page, "#gs-standings")
        page.query_one("#gs-standings", DataTable).focus()
        transport.down = True  # the Wi-Fi goes: the player's page comes from the mirror
        await pilot.press("enter")
        await settle(pilot)
        player_page = pilot.app.screen
        assert isinstance(player_page, PlayerPageScreen)
        assert player_page.player_id == page.query_one(GameStory).rows[0].player.id
        offline_figures = player_page.query_one(PlayerStory).figures
        assert offline_figures is not None and offline_figures.played > 10
        assert "offline" in text_of(player_page, "#ps-ree-title")  # no standings could be read
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is games

    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
        expected = game_figures(matches, page.game_id)
        ranked = await group.all_rankings(subset=f"g{page.game_id}")
    assert offline_figures == player_figures(matches, player_page.player_id)
    assert f"Matches   {expected.played} · " in facts
    assert f"Players   {expected.players}" in facts
    assert (
        expected.bot_matches
        and f"Bot won   {expected.bot_wins} of {expected.bot_matches} with a bot" in facts
    )
    assert expected.top_winner is not None and f"Most wins {expected.top_winner.name} · " in facts
    assert [r[1] for r in standings] == [r.player.label for r in ranked]


# ---------------------------------------------------------------------- parts of the first session


async def tonight_is_12_hours_then_the_last_game_night(pilot, screen: StatsScreen) -> None:
    await pilot.press("4")
    await settle(pilot)
    view = screen.query_one(TonightView)
    assert view.choice == "12h"
    assert "0 matches" in text_of(screen, "#tn-summary")  # the demo's last night ended yesterday
    assert "pick “the last game night”" in text_of(screen, "#tn-highlights")
    view.choose("night")
    await settle(pilot)
    evening = view.evening
    assert evening is not None and len(evening.matches) >= 2
    shown = [int(r[0]) for r in table_rows(screen, "#tn-matches")]
    assert shown == [m.number for m in reversed(evening.matches)]
    highlights = text_of(screen, "#tn-highlights")
    assert evening.biggest_gain is not None and evening.biggest_upset is not None
    assert f"{evening.biggest_gain.name} +{evening.biggest_gain.gain:.1f}" in highlights
    assert f"{evening.biggest_upset.name} won match {evening.biggest_upset.match_number}" in highlights


async def the_chart_draws_in_every_theme(pilot, screen: StatsScreen) -> None:
    """The line is braille (it reads without colour: NO_COLOR) in the theme's accent, which a 16-colour
    terminal still tells from the background; the form line's letters carry the results."""
    await pilot.press("1")
    await settle(pilot)
    chart = screen.query_one("#ps-ree", LineChart)
    drawn = chart.render().plain
    assert sum("\u2800" < ch <= "\u28ff" for ch in drawn) > 20
    assert chart._line_colour() == Color.parse(pilot.app.theme_variables["accent"]).rgb
    themes = {name: t for name, t in pilot.app.available_themes.items() if name.startswith("rankterm")}
    assert len(themes) >= 3
    for name, theme in themes.items():
        colours = theme.to_color_system().generate()
        line, background = Color.parse(colours["accent"]).rgb, Color.parse(colours["background"]).rgb
        assert standard(line) != standard(background), name
    assert set(text_of(screen, "#ps-form").split()[1:11]) <= {"W", "D", "L"}


async def test_a_player_s_games_are_as_wide_as_their_names_at_once(make_app):
    """Not when the table is next idle: a screen drawn before that cut every game to "Game"'s 4 columns."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        page = await open_leaders_page(pilot)
        name = "Ticket to Ride: Märklin [/b]"
        cells = [name, "3", "1", "0", "2", "33%"]
        page.query_one(PlayerStory)._fill_games([[Text(c) for c in cells]], ["7"])
        table = page.query_one("#ps-games", DataTable)
        assert [c.width for c in table.ordered_columns] == [len(name), 6, 3, 5, 4, 4]


async def test_a_pick_or_escape_leaves_the_picker_so_tab_and_screen_keys_work(make_app):
    """A focused picker searches what is typed: after a pick by hand, or Escape, the digits and letters are
    the screen's again (they were swallowed: 4 after picking in head-to-head stayed on head-to-head)."""
    from textual.widgets import Select, TabbedContent

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_stats(pilot, "2")
        view = screen.query_one(HeadToHeadView)
        screen.set_focus(view.a_select)
        before = view.a_select.value
        await pilot.press("enter", "down", "enter")
        await settle(pilot)
        assert view.a_select.value != before
        assert not isinstance(pilot.app.focused, Select)
        await pilot.press("4")
        await settle(pilot)
        assert screen.query_one(TabbedContent).active == "tonight"
        await pilot.press("1")
        await settle(pilot)
        screen.set_focus(screen.query_one("#stats-player", Select))
        await pilot.press("escape", "3")
        await settle(pilot)
        assert screen.query_one(TabbedContent).active == "game"
        assert isinstance(pilot.app.screen, StatsScreen)  # Escape left the picker, not the screen


async def test_the_same_player_twice_clears_the_pair_drawn_before(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen, view, players = await open_ada_against_ben(pilot)
        assert table_rows(screen, "#h2h-games") and text_of(screen, "#h2h-bar").strip()
        view.pick(players["Ada"], players["Ada"])
        await settle(pilot)
        assert text_of(screen, "#h2h-summary") == "Pick two different players (or everyone)."
        assert table_rows(screen, "#h2h-games") == table_rows(screen, "#h2h-last") == []
        assert not text_of(screen, "#h2h-bar").strip()
