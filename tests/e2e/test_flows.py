"""Whole flows through the app, as a person at a game night would run them, on the embedded demo service.

The app starts with no service (the profiles screen), the demo group is opened with its key, and everything
after that is typed and pressed through a pilot: a four-player match recorded through the form shows up in
the rankings; a ghost player created on the players screen plays a match; a night of matches with mistakes,
a dry run, a rematch, a queued batch and a rejected match. The demo service runs in-process (httpx on
ASGITransport) with its clock frozen; external ids come from the app's fixed id factory.
"""

from __future__ import annotations

import pytest

from rankterm.config import Config
from rankterm.tui.app import RanktermApp
from rankterm.tui.screens.match_entry import MatchEntryScreen
from rankterm.tui.screens.rankings import RankingsScreen
from rankterm.wire.models import RankingRow
from tests.tui.conftest import _new_demo_service, fixed_ids
from tests.tui.pilot import add_players, fill_row, keys, open_form, pick_game, settle

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def isolated_paths(tmp_path, monkeypatch):
    """Config, token cache, data and user themes live in this test's tmp folder."""
    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "config" / "config.toml"))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def fresh_app() -> RanktermApp:
    """The app as `rankterm` starts it with no profile: on the profiles screen, the demo group one key away."""
    return RanktermApp(
        config=Config(),
        client=None,
        demo=False,
        demo_factory=lambda: _new_demo_service().client(),
        id_factory=fixed_ids(),
    )


async def open_demo(pilot) -> None:
    app = pilot.app
    assert app.client is None and app.current_mode == "login"
    await pilot.press("f2")  # "Open the demo group" on the profiles screen
    await settle(pilot)
    assert app.client is not None and app.demo
    assert app.current_mode == "home"


async def show_rankings(pilot) -> RankingsScreen:
    await pilot.press("escape", "r")  # out of any text field, then the app's key
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RankingsScreen)
    return screen


def by_player(rows: list[RankingRow]) -> dict[str, RankingRow]:
    return {r.player.label: r for r in rows}


async def test_record_a_four_player_match_and_see_the_rankings_move(fresh_app):
    async with fresh_app.run_test(size=SIZE) as pilot:
        await open_demo(pilot)
        rankings = await show_rankings(pilot)
        before = by_player(rankings.page_data.data)
        last_before = rankings.page_data.match.number
        assert before["Elena"].position == 3 and before["Ben"].position == 4

        screen = await open_form(pilot)
        await pick_game(pilot, "cat")
        assert screen.form.game_picker.game.name == "Catan"
        await pilot.press("ctrl+f", "ctrl+f")  # two more factions: four in all
        await settle(pilot)
        rows = screen.form.rows
        assert len(rows) == 4
        # Ben wins; Elena, just above him in the standings, comes last
        for row, name, points in zip(rows, ["be", "fa", "de", "el"], ["10", "8", "7", "5"], strict=True):
            await fill_row(pilot, row, [name], row.position, points)
        await pilot.press("ctrl+s")
        await settle(pilot)
        answer = screen.last_answer
        assert answer is not None and answer.accepted_count == 1 and answer.rejected_count == 0
        assert "accepted" in screen.form.answer.text

        rankings = await show_rankings(pilot)
        page = rankings.page_data
        newest = (await pilot.app.group.matches_page(1)).data[0]
        assert newest.external_id == "rt-test-0001" and newest.number == last_before + 1
        assert page.match.number == newest.number  # the standings are after the new match
        after = by_player(page.data)
        assert after["Ben"].ree > before["Ben"].ree and after["Elena"].ree < before["Elena"].ree
        assert (after["Ben"].position, after["Elena"].position) == (3, 4)  # they swapped places
        assert after["Ben"].delta_position == 1 and after["Elena"].delta_position == -1
        assert after["Ben"].delta_ree > 0 > after["Elena"].delta_ree
        assert after["Ada"].ree == before["Ada"].ree and after["Ada"].delta_ree == 0  # did not play
        shown = str(rankings.query_one("#rank-info").render())
        assert f"after match {newest.number} (latest)" in shown


async def test_a_ghost_player_made_on_the_players_screen_plays_a_match(fresh_app):
    async with fresh_app.run_test(size=SIZE) as pilot:
        await open_demo(pilot)
        screen = await open_form(pilot)  # opened before the ghost exists: it must see them later
        await pilot.press("escape", "p")
        await settle(pilot)
        await pilot.press("ctrl+n")  # new ghost player
        await pilot.pause()
        await pilot.press(*keys("Zoe"), "enter")
        await settle(pilot)
        group = pilot.app.group
        ghost = next(p for p in await group.players() if p.display_name == "*Zoe")
        assert ghost.ghost

        await pilot.press("escape", "n")
        await settle(pilot)
        assert pilot.app.screen is screen
        await pick_game(pilot, "patch")
        rows = screen.form.rows
        await fill_row(pilot, rows[0], ["zo"], 1, "24")
        await fill_row(pilot, rows[1], ["fa"], 2, "-3")
        assert [p.id for p in rows[0].picker.chosen] == [ghost.id]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer.accepted_count == 1
        newest = (await group.matches_page(1)).data[0]
        winner = next(f for f in newest.factions if f.winner)
        assert [p.id for p in winner.players] == [ghost.id]


@pytest.mark.slow
async def test_a_game_night_mistakes_dry_run_rematch_batch_and_a_rejection(fresh_app):
    async with fresh_app.run_test(size=SIZE) as pilot:
        await open_demo(pilot)
        group = pilot.app.group
        count = (await group.matches_page(1)).total
        screen = await open_form(pilot)
        assert isinstance(screen, MatchEntryScreen)

        # 1. a slip: Ben in both factions and no rank for the second: nothing is sent
        await pick_game(pilot, "tick")
        rows = screen.form.rows
        await fill_row(pilot, rows[0], ["be"], 1, "101")
        await add_players(pilot, rows[1], ["be"])
        rows[1].rank_input.value = ""
        calls = group.client.calls
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert group.client.calls == calls and (await group.matches_page(1)).total == count
        assert rows[1].picker.has_class("-invalid") and rows[1].rank_input.has_class("-invalid")

        # 2. fixed (Backspace drops Ben, Dev instead, rank 2); a dry run first: checked, not saved
        await add_players(pilot, rows[1], [])
        await pilot.press("backspace", *keys("de"), "tab", *keys("2"), "tab", *keys("87"))
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert "would be accepted" in screen.form.answer.text
        assert (await group.matches_page(1)).total == count

        # 3. sent for real; then a rematch keeps game and players
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer.accepted_count == 1
        first_id = screen.form.field("external-id").value
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.form.game_picker.game.name == "Ticket to Ride"
        assert [[p.label for p in r.picker.chosen] for r in screen.form.rows] == [["Ben"], ["Dev"]]
        assert screen.form.field("external-id").value != first_id

        # 4. two matches queued, sent as one batch: both accepted
        rows = screen.form.rows
        rows[0].points_input.focus()
        await pilot.press(*keys("90"), "tab", "tab", "tab", "tab", "ctrl+u", *keys("1"), "tab", *keys("95"))
        await pilot.press("ctrl+l")
        await settle(pilot)
        rows[0].points_input.focus()
        await pilot.press(*keys("120"), "tab", "tab", "tab", "tab", "tab", *keys("99"))
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert len(screen.queue) == 2
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer.total == 2 and screen.last_answer.accepted_count == 2
        assert screen.queue == []
        assert (await group.matches_page(1)).total == count + 3

        # 5. an external id the service already has (a demo match's): rejected, the form keeps everything
        await pilot.press("ctrl+r")
        await settle(pilot)
        rows = screen.form.rows
        rows[0].points_input.focus()
        await pilot.press(*keys("77"))
        ext = screen.form.field("external-id")
        ext.focus()
        await pilot.press("ctrl+u", *keys("demo-0001"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer.rejected_count == 1
        assert "M003" in screen.form.answer.text
        assert (await group.matches_page(1)).total == count + 3
        assert ext.value == "demo-0001" and ext.has_class("-invalid")
        assert rows[0].points_input.value == "77"
        assert screen.form.game_picker.game.name == "Ticket to Ride"
        assert [[p.label for p in r.picker.chosen] for r in rows] == [["Ben"], ["Dev"]]
