"""The rankings screen on the demo group: subsets, match number, pages, a player's recent matches.

`crowd_catan` (in pilot.py, shared with the snapshot tests) adds twenty ghost players and one big Catan match,
so that the Catan standings have a second page (the service shows 25 rows a page; the demo group has ten
players).
"""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from rankterm.tui.dialogs.player_matches import PlayerMatchesScreen
from rankterm.tui.screens.rankings import RankingsScreen, parse_match_number
from rankterm.tui.screens.stats.player_page import PlayerPageScreen
from rankterm.tui.text import NONE
from rankterm.tui.widgets.subset_picker import order_subsets
from rankterm.wire.errors import ServiceError
from rankterm.wire.models import NewFaction, NewMatch, Subset, Weight
from tests.tui.pilot import crowd_catan, keys, settle


async def open_rankings(pilot: Pilot) -> RankingsScreen:
    await pilot.press("r")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RankingsScreen)
    return screen


def info(screen: RankingsScreen) -> str:
    return str(screen.query_one("#rank-info").render())


def test_parse_match_number():
    assert parse_match_number("last") is None
    assert parse_match_number(" LAST ") is None
    assert parse_match_number("") is None
    assert parse_match_number("42") == 42
    for bad in ("0", "4x", "-3", "last1"):
        try:
            parse_match_number(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} accepted")


def test_subsets_are_ordered_main_first_then_games_by_name():
    subsets = [
        Subset(id="g5", name="Ticket to Ride", type="game"),
        Subset(id="c1", name="Friday league", type="custom", is_custom=True),
        Subset(id="g1", name="Catan", type="game"),
        Subset(id="main", name="Main", type="main", is_main=True),
    ]
    assert [s.id for s in order_subsets(subsets)] == ["main", "g1", "g5", "c1"]


async def test_rankings_show_the_latest_standings_of_the_group(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_rankings(pilot)
        table = screen.query_one("#rank-table", DataTable)
        assert table.row_count == 10
        assert screen.picker.value == "main"
        assert screen.page_data is not None and screen.page_data.match.number == 300
        assert "after match 300 (latest)" in info(screen)
        assert info(screen).endswith(" · 300 matches")  # the page has no count: the subset's (not "0")
        assert str(screen.pager.render()).startswith("page 1 of 1")
        first = table.get_row_at(0)
        assert str(first[0]) == "1" and str(first[2]) == "Ada"


async def test_match_number_field_digits_only_with_an_inline_error(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_rankings(pilot)
        field = screen.query_one("#rank-match", Input)
        field.focus()
        calls = pilot.app.client.calls
        await pilot.press("ctrl+u", *keys("12x"), "enter")
        await settle(pilot)
        assert field.has_class("-invalid")
        assert "digits only" in info(screen)
        assert pilot.app.client.calls == calls  # nothing asked
        await pilot.press("ctrl+u", *keys("150"), "enter")
        await settle(pilot)
        assert not field.has_class("-invalid")
        assert screen.page_data.match.number == 150
        assert "after match 150 ·" in info(screen)


async def test_a_game_subset_and_its_second_page(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        number = await crowd_catan(app.group)
        screen = await open_rankings(pilot)
        screen.picker.value = "g1"  # Catan
        await settle(pilot)
        assert screen.page_data.subset.name == "Catan"
        assert screen.page_data.match.number == number
        assert str(screen.pager.render()).startswith("page 1 of 2")
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.page_data.page == 2
        assert str(screen.pager.render()).startswith("page 2 of 2")
        table = screen.query_one("#rank-table", DataTable)
        assert table.row_count == 30 - 25
        assert str(table.get_row_at(0)[0]) == "26"
        await pilot.press("right_square_bracket")  # no page 3: nothing happens
        await settle(pilot)
        assert screen.page_data.page == 2
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert screen.page_data.page == 1


async def test_enter_on_a_player_opens_their_page_and_h_their_recent_matches(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_rankings(pilot)
        screen.picker.value = "g1"
        await settle(pilot)
        screen.query_one("#rank-table", DataTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        page = pilot.app.screen
        assert isinstance(page, PlayerPageScreen)
        assert page.player.label == "Ada"
        await pilot.press("h")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, PlayerMatchesScreen)
        assert 0 < len(modal.found) <= 10
        assert all(
            any(p.id == modal.player.id for f in m.factions for p in f.players) for m, _ in modal.found
        )
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is page
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is screen


async def test_the_standings_follow_a_new_match_when_the_screen_comes_back(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_rankings(pilot)
        assert screen.page_data.match.number == 300
        await pilot.press("n")
        await settle(pilot)
        group = app.group
        players = {p.label: p.id for p in await group.players()}
        catan = next(g for g in await group.games() if g.name == "Catan")
        await group.add_matches(
            NewMatch(
                game=catan.id,
                weight=Weight.HEAVY,
                factions=[
                    NewFaction(players=[players["*Jonas"]], rank=1),
                    NewFaction(players=[players["Ada"]], rank=2),
                ],
            )
        )
        await pilot.press("escape", "r")  # out of the form's field, then the app's key
        await settle(pilot)
        assert pilot.app.screen is screen
        assert screen.page_data.match.number == 301
        assert "after match 301" in info(screen)


async def test_an_error_is_one_sentence_on_the_info_line(make_app):
    app = make_app()

    async def failing(*args, **kwargs):
        raise ServiceError("rankings", 500)

    async with app.run_test(size=(80, 24)) as pilot:
        app.group.rankings_page = failing
        screen = await open_rankings(pilot)
        text = info(screen)
        assert text == "rankings: the service failed (HTTP 500)."
        assert screen.query_one("#rank-info").has_class("-error")
        assert not screen.query_one("#rank-table").loading  # no spinner left behind


async def test_two_newcomers_who_tie_share_a_position_and_are_new(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        group = app.group
        tia, tom = await group.create_player("Tia"), await group.create_player("Tom")
        catan = next(g for g in await group.games() if g.name == "Catan")
        await group.add_matches(
            NewMatch(
                game=catan.id,
                weight=Weight.NORMAL,
                factions=[NewFaction(players=[tia.id], rank=1), NewFaction(players=[tom.id], rank=1)],
            )
        )
        screen = await open_rankings(pilot)
        table = screen.query_one("#rank-table", DataTable)
        rows = {
            str(table.get_row_at(i)[2]): [str(c) for c in table.get_row_at(i)] for i in range(table.row_count)
        }
        sent = {r.player.id: r for r in screen.page_data.data}
        assert sent[tia.id].ree == sent[tom.id].ree and sent[tia.id].position != sent[tom.id].position
        shared = str(min(sent[tia.id].position, sent[tom.id].position))
        assert rows["*Tia"][:2] == rows["*Tom"][:2] == [shared, "new"]
        assert rows["*Tia"][4] == rows["*Tom"][4] == NONE  # not the change from a newcomer's starting ree
        assert rows["Ada"][1] != "new"  # did not play: her row is as the service says
