"""The matches screen on the demo group: pages, subsets, one match in full, "does external id X exist?"."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable

from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.dialogs.match_exists import MatchExistsDialog
from rankterm.tui.screens.matches import MatchesScreen, fit_summary, one_line_summary, summary_parts
from rankterm.wire.models import Faction, Match, Player
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
