"""A name holding a bidi control (an override, embedding, isolate or mark) is shown with the control made
visible, never sent to the terminal: a terminal that follows "\u202e" would turn the rest of a table row around."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app
from rankterm.tui.screens.match_entry import MatchEntryScreen
from rankterm.tui.screens.matches import MatchesScreen
from rankterm.tui.screens.players import PlayersScreen
from rankterm.tui.screens.rankings import RankingsScreen
from rankterm.tui.text import plain, plain_str
from rankterm.tui.widgets.match_form.player_chip import PlayerChip
from rankterm.wire.models import NewFaction, NewMatch
from rankterm.wire.text import display_safe
from tests.support.live import serve_in_thread
from tests.support.terminal import PtySeat, room_env

from .pilot import open_form, settle

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

REVERSER = "\u202eadA"
"""A ghost whose name turns what follows it around ("Ada" written backwards after a right-to-left override)."""
SHOWN = "*\ufffdadA"


def rendered_lines(app) -> list[str]:
    """Every line the current screen shows, as the text sent to the terminal."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def assert_shown_safely(lines: list[str]) -> None:
    assert any(SHOWN in line for line in lines), "the name is not shown with its control made visible"
    for line in lines:
        assert not any(control in line for control in BIDI_CONTROLS), (
            f"a bidi control reaches the screen: {line!r}"
        )


def test_every_bidi_control_is_shown_as_a_visible_mark() -> None:
    for control in BIDI_CONTROLS:
        assert display_safe(f"a{control}b") == "a\ufffdb", f"U+{ord(control):04X}"
        assert plain_str(f"a{control}b\nc") == "a\ufffdb\nc"
        assert str(plain(control)) == "\ufffd"
    assert (
        display_safe("\u05e9\u05dc\u05d5\u05dd abc") == "\u05e9\u05dc\u05d5\u05dd abc"
    )  # right-to-left letters stay


async def test_a_name_with_a_bidi_control_is_shown_safely_on_every_screen(make_app, demo_client):
    ghost = await Group.of(demo_client).create_player(REVERSER)
    ada = next(p for p in await Group.of(demo_client).players() if p.display_name == "Ada")
    game = await Group.of(demo_client).create_game(name="Mirror")
    answer = await demo_client.add_matches(
        NewMatch(
            game=game.id,
            weight="normal",
            factions=[NewFaction(players=[ghost.id], rank=1), NewFaction(players=[ada.id], rank=2)],
        )
    )
    assert answer.accepted_count == 1
    async with make_app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, PlayersScreen)
        app.screen.query_one("#players-filter").value = "*"
        await settle(pilot, 0.5)
        assert_shown_safely(rendered_lines(app))

        app.screen.set_focus(None)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, RankingsScreen)
        app.screen.picker.value = f"g{game.id}"
        await settle(pilot)
        assert_shown_safely(rendered_lines(app))

        app.screen.set_focus(None)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MatchesScreen)
        assert str(app.screen.query_one(DataTable).get_row_at(0)[4]).startswith(SHOWN)
        assert_shown_safely(rendered_lines(app))
        await pilot.press("enter")
        await settle(pilot)
        assert_shown_safely(rendered_lines(app))  # the match in full

        await pilot.press("escape", "escape")
        await settle(pilot)
        screen = await open_form(pilot)
        assert isinstance(screen, MatchEntryScreen)
        row = screen.form.rows[0]
        row.fill(players=[p for p in screen.form.players if p.id == ghost.id], rank=1)
        await settle(pilot)
        assert [str(chip.render()) for chip in row.query(PlayerChip)] == [SHOWN]
        assert_shown_safely(rendered_lines(app))


async def test_a_seat_at_a_real_terminal_writes_no_bidi_control(tmp_path):
    """The `rankterm` process on a pty, its players list showing the ghost: of the bytes it wrote to the
    terminal, none is a bidi control, and the name is there with its mark."""
    asgi, _, _ = demo_app()
    with serve_in_thread(asgi) as base_url:
        async with Group(RankingClient(base_url, key=DEMO_KEY, secret=DEMO_SECRET)) as group:
            await group.create_player(REVERSER)
        root = Path(__file__).resolve().parents[2]
        env = room_env(
            tmp_path, base_url, DEMO_KEY, DEMO_SECRET, RANKTERM_LIVE_EVERY="0", PYTHONPATH=str(root)
        )
        seat = PtySeat(["--profile", "room"], env, size=(100, 30))
        try:
            assert await asyncio.to_thread(seat.wait_for, "Home", 30), seat.seen[-500:]
            seat.press(b"p")
            assert await asyncio.to_thread(seat.wait_for, "New ghost", 30), seat.seen[-500:]
            seat.press(b"/adA")  # the filter: the ghost's row
            await asyncio.to_thread(seat.settle)
        finally:
            seat.close()
        # all the seat wrote, escape sequences left out
        assert [c for c in BIDI_CONTROLS if c in seat.seen] == []
        assert SHOWN in seat.seen, seat.seen[-500:]
