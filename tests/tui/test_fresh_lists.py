"""Fresh lists: what another seat records shows up when a screen is shown again or on F5, a match recorded here
updates the subset counts, and with the network down the lists open from the mirror and say how old they are.

"Another seat" is a second client on the same demo service.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.tui.screens.games import GamesScreen
from rankterm.tui.screens.matches import MatchesScreen
from rankterm.tui.screens.rankings import RankingsScreen
from rankterm.tui.widgets.status_line import StatusLine
from rankterm.tui.widgets.subset_picker import SubsetPicker
from rankterm.wire.models import NewFaction, NewMatch, Weight

from .pilot import catan_duel, settle


async def ghost_match(group: RankingClient | Group, name: str, external_id: str) -> None:
    """A new ghost called `name` wins a Catan match against Ada (on `client`'s seat)."""
    group = Group.of(group)  # a client: read through its group
    ghost = await group.create_player(name)
    ada = next(p for p in await group.players() if p.display_name == "Ada")
    catan = next(g for g in await group.games() if g.name == "Catan")
    match = NewMatch(
        game=catan.id,
        weight=Weight.NORMAL,
        external_id=external_id,
        factions=[NewFaction(players=[ghost.id], rank=1), NewFaction(players=[ada.id], rank=2)],
    )
    assert (await group.add_matches(match)).accepted_count == 1


def main_label(screen: RankingsScreen | MatchesScreen) -> str:
    return next(label for label in screen.query_one(SubsetPicker).labels if label.startswith("Main"))


def table_text(screen: RankingsScreen | MatchesScreen) -> str:
    table = screen.table
    return " ".join(str(cell) for row in range(table.row_count) for cell in table.get_row_at(row))


async def go(pilot: Pilot, key: str) -> None:
    await pilot.press(key)
    await settle(pilot)


async def test_another_seats_ghost_and_match_appear_after_switching_screens(make_app, demo_service):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await go(pilot, "r")
        rankings = pilot.app.screen
        assert isinstance(rankings, RankingsScreen)
        before = main_label(rankings)
        other = demo_service.client()
        await ghost_match(other, "Zora Newcomer", "other-seat-1")
        await other.aclose()
        await go(pilot, "m")
        matches = pilot.app.screen
        assert isinstance(matches, MatchesScreen)
        assert "Zora Newcomer" in table_text(matches)
        after = main_label(matches)
        assert after != before
        await go(pilot, "r")
        assert "Zora Newcomer" in table_text(rankings)
        assert main_label(rankings) == after  # the picker's count follows the service


async def test_f5_shows_what_another_seat_recorded(make_app, demo_service):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await go(pilot, "m")
        screen = pilot.app.screen
        assert isinstance(screen, MatchesScreen)
        before = main_label(screen)
        other = demo_service.client()
        await ghost_match(other, "Yann Late", "other-seat-2")
        await other.aclose()
        await go(pilot, "f5")
        assert "Yann Late" in table_text(screen)
        assert main_label(screen) != before


async def test_a_game_first_played_on_another_seat_joins_the_games_when_shown_again(make_app, demo_service):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await go(pilot, "g")
        games = pilot.app.screen
        assert isinstance(games, GamesScreen)
        other = demo_service.client()
        game = await Group.of(other).create_game(name="Kitchen Rush")
        players = {p.display_name: p.id for p in await Group.of(other).players()}
        match = NewMatch(
            game=game.id,
            weight=Weight.NORMAL,
            external_id="other-seat-3",
            factions=[
                NewFaction(players=[players["Ada"]], rank=1),
                NewFaction(players=[players["Ben"]], rank=2),
            ],
        )
        assert (await other.add_matches(match)).accepted_count == 1
        await other.aclose()
        assert all(g.name != "Kitchen Rush" for g in games.shown)
        await go(pilot, "d")
        await go(pilot, "g")
        assert any(g.name == "Kitchen Rush" for g in games.shown)


async def test_subset_count_follows_a_match_recorded_on_this_seat(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await go(pilot, "r")
        screen = app.screen
        assert isinstance(screen, RankingsScreen)
        before = main_label(screen)
        match = await catan_duel(app.group, app.new_external_id())
        await app.record_matches([match])
        await settle(pilot)
        assert main_label(screen) != before  # redrawn at once: the screen is shown
        count = int(before.split("·")[1].split()[0])
        assert main_label(screen) == f"Main · {count + 1} matches"


def status_text(pilot: Pilot) -> str:
    line = pilot.app.screen.query_one(StatusLine)
    return str(line.render()) if line.display else ""


async def test_network_down_rankings_and_matches_open_from_the_mirror(make_app, demo_service):
    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it
    async with make_app(client=group).run_test(size=(100, 30)) as pilot:
        await go(pilot, "r")
        rankings = pilot.app.screen
        assert isinstance(rankings, RankingsScreen)
        shown_rankings = table_text(rankings)
        await go(pilot, "m")
        matches = pilot.app.screen
        assert isinstance(matches, MatchesScreen)
        shown_matches = table_text(matches)
        assert shown_rankings and shown_matches
        assert "as of" not in status_text(pilot)

        transport.down = True
        await go(pilot, "r")
        assert table_text(rankings) == shown_rankings
        assert group.as_of is not None
        assert f"as of {group.as_of:%H:%M}" in status_text(pilot)
        await go(pilot, "m")
        assert "-error" not in matches.query_one("#matches-info").classes
        assert table_text(matches) == shown_matches
        assert f"as of {group.as_of:%H:%M}" in status_text(pilot)

        transport.down = False
        await go(pilot, "f5")
        assert "as of" not in status_text(pilot)
        assert "Offline" not in status_text(pilot)


@pytest.mark.parametrize(
    ("first", "key"),
    [
        (None, "m"),
        (None, "r"),
    ],  # nothing read but what Home reads (it holds the matches once the subsets are)
)
async def test_lists_never_read_on_this_seat_offline_say_so_and_come_with_the_service(
    make_app, demo_service, first, key
):
    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it
    async with make_app(client=group).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        if first is not None:
            await go(pilot, first)
        transport.down = True
        screen_class = {"m": MatchesScreen, "r": RankingsScreen}[key]
        await go(pilot, key)
        screen = pilot.app.screen
        assert isinstance(screen, screen_class)
        info = screen.query_one(screen.INFO)
        assert str(info.render()) == screen_class.NO_COPY
        assert "-warning" in info.classes and "-error" not in info.classes
        assert table_text(screen) == ""

        transport.down = False
        await go(pilot, "f5")
        assert "-warning" not in info.classes
        assert table_text(screen).strip()
