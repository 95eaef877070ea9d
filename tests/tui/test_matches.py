"""The matches screen on the demo group: pages, subsets, one match in full, "does external id X exist?"."""

from __future__ import annotations

from pathlib import Path

import httpx
from textual.pilot import Pilot
from textual.widgets import DataTable

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror
from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.dialogs.match_exists import MatchExistsDialog
from rankterm.tui.screens.matches import MatchesScreen, fit_summary, one_line_summary, summary_parts
from rankterm.wire.models import Faction, Match, NewFaction, NewMatch, Player
from tests.support.faults import FaultyTransport
from tests.support.transports import LateTransport
from tests.tui.conftest import DEMO_URL, frozen_clock
from tests.tui.pilot import keys, settle


async def open_matches(pilot: Pilot) -> MatchesScreen:
    await pilot.press("m")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MatchesScreen)
    return screen


def test_summary_on_one_line():
    match = Match(summary="Elena\nChiara\nDev")
    assert one_line_summary(match) == "Elena \u203a Chiara \u203a Dev"


def test_a_tie_is_one_place_read_from_the_factions_not_the_summary():
    def side(rank: int, name: str) -> Faction:
        return Faction(rank=rank, players=[Player(id=name[:2], display_name=name)])

    # the summary the service sends: the sides joined by newlines, the first name holding one of its own
    match = Match(
        summary="*Ni\nna\nBen\nChiara", factions=[side(1, "*Ni\nna"), side(1, "Ben"), side(3, "Chiara")]
    )
    assert summary_parts(match) == [["*Ni\nna", "Ben"], ["Chiara"]]
    assert one_line_summary(match) == "*Ni\nna = Ben \u203a Chiara"  # (the app's client marks the break: ⏎)
    assert fit_summary(summary_parts(match), 16) == "*Ni\nna = Ben +1"


async def test_pages_of_the_group_newest_first(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_matches(pilot)
        table = screen.query_one("#matches-table", DataTable)
        assert table.row_count == 25
        assert str(table.get_row_at(0)[0]) == "300"
        assert str(screen.pager.render()).startswith("page 1 of 12 · 300 matches")
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.page_data.page == 2
        assert str(table.get_row_at(0)[0]) == "275"
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert str(table.get_row_at(0)[0]) == "300"


async def test_a_game_subset_starts_again_at_page_one(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_matches(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settle(pilot)
        assert screen.page_data.page == 3
        screen.picker.value = "g1"
        await settle(pilot)
        assert screen.page_data.page == 1
        assert str(screen.pager.render()).startswith("page 1 of 2 · 42 matches")
        assert all(m.game.name == "Catan" for m in screen.page_data.data)


async def test_enter_opens_the_match_in_full(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_matches(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, MatchDetailScreen)
        assert modal.match.number == 299
        table = modal.query_one(DataTable)
        ranks = [int(str(table.get_row_at(i)[0])) for i in range(table.row_count)]
        assert ranks == sorted(ranks) and table.row_count == len(modal.match.factions)
        marks = [str(table.get_row_at(i)[-1]) for i in range(table.row_count)]
        assert "winner" in marks[0]
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is screen


async def test_a_bot_faction_is_marked_in_the_detail(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_matches(pilot)
        screen.picker.value = "g150"  # Pandemic, played against a bot faction
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, MatchDetailScreen)
        table = modal.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert any("bot" in row[-1] and "(bot)" in row for row in rows)


async def test_does_external_id_exist(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_matches(pilot)
        await pilot.press("x")
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, MatchExistsDialog)
        await pilot.press(*keys("demo-0007"), "enter")
        await settle(pilot)
        answer = dialog.query_one("#ask-error")
        assert dialog.answer is True and answer.has_class("-ok")
        assert str(answer.render()).startswith("Yes")
        await pilot.press("ctrl+u", *keys("nope"), "enter")
        await settle(pilot)
        assert dialog.answer is False and str(answer.render()).startswith("No")
        assert answer.has_class("-warning") and isinstance(pilot.app.screen, MatchExistsDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, MatchesScreen)


async def test_after_a_backdated_match_the_cursor_stays_on_the_same_match(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_matches(pilot)
        table = screen.query_one("#matches-table", DataTable)
        await pilot.press("down", "down", "down")
        await settle(pilot)
        chosen = screen.selected_match()
        assert chosen is not None and chosen.number == 297
        group = app.group
        ids = {p.label: p.id for p in await group.players()}
        catan = next(g for g in await group.games() if g.name == "Catan")
        await group.add_matches(  # played a day before the demo's first match: every number moves up
            NewMatch(
                game=catan.id,
                weight="normal",
                date="2025-01-01 20:00:00",
                factions=[NewFaction(players=[ids["Ada"]], rank=1), NewFaction(players=[ids["Ben"]], rank=2)],
            )
        )
        await pilot.press("f5")
        await settle(pilot)
        assert screen.page_data.data[0].number == 301
        now = screen.selected_match()
        assert now is not None and now.id == chosen.id and now.number == 298
        assert str(table.get_row_at(table.cursor_row)[0]) == "298"


def mirrored_client(demo_service, path: Path) -> tuple[RankingClient, FaultyTransport, LateTransport]:
    """A client whose mirror is a file (a seat's, kept between runs), its network cuttable and slowable."""
    faults = FaultyTransport(httpx.ASGITransport(app=demo_service.asgi))
    late = LateTransport(faults)
    http = httpx.AsyncClient(transport=late, base_url=DEMO_URL)
    group = Group(
        RankingClient(
            DEMO_URL,
            key=demo_service.key,
            secret=demo_service.secret,
            http=http,
            clock=frozen_clock,
            retries=0,
            backoff=0,
        ),
        mirror=Mirror(path),
    )
    return group, faults, late


async def test_while_an_unreachable_service_is_waited_for_the_pages_are_those_held(
    make_app, demo_service, tmp_path
):
    group, _, _ = mirrored_client(demo_service, tmp_path / "mirror.db")
    async with make_app(client=group).run_test(size=(80, 24)) as pilot:
        await open_matches(pilot)  # the seat reads the matches once: the mirror holds them
    group, faults, late = mirrored_client(demo_service, tmp_path / "mirror.db")
    faults.down = True
    async with make_app(client=group).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        late.delay = 0.5  # the service is out of reach, and it takes a while to tell
        await pilot.press("m")
        await pilot.pause(0.2)
        screen = pilot.app.screen
        assert isinstance(screen, MatchesScreen)
        assert screen.table.row_count == 25
        assert str(screen.pager.render()).startswith("page 1 of 12 · 300 matches")
        await settle(pilot)
        assert pilot.app.offline
        assert str(screen.pager.render()).startswith("page 1 of 12 · 300 matches")
