"""`y` copies what is shown (a match, a player's page, a head-to-head, Tonight) as plain text to the clipboard
of the terminal the seat is drawn on: with OSC 52, which an SSH guest's own terminal receives, so a pty sees
the escape sequence carrying the text."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from textual.widgets import DataTable

from rankterm.stats.recap import h2h_summary, match_summary, player_summary
from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.widgets.stats.player_story import PlayerStory
from rankterm.tui.widgets.stats.tonight import TonightView
from tests.support.terminal import PtySeat, home_env
from tests.tui.pilot import settle
from tests.tui.test_stats_pages import open_ada_against_ben, open_stats

ROOT = Path(__file__).resolve().parents[2]
OSC52 = re.compile(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")


async def test_y_copies_a_match_a_players_page_and_a_head_to_head_as_their_summaries(make_app) -> None:
    async with make_app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MatchDetailScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == match_summary(app.screen.match)
        assert app.clipboard.startswith(f"Match {app.screen.match.number} · ")
        await pilot.press("escape")
        await settle(pilot)
        await app.switch_mode("service")

        screen = await open_stats(pilot)
        figures = screen.query_one(PlayerStory).figures
        assert figures is not None
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == player_summary(figures) and figures.name in app.clipboard

        screen, view, _ = await open_ada_against_ben(pilot)
        assert view.figures is not None
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == h2h_summary(view.figures) and "Ada against Ben" in app.clipboard


async def test_y_on_tonight_copies_the_recap_with_what_changed(make_app) -> None:
    async with make_app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        screen = await open_stats(pilot, "4")
        view = screen.query_one(TonightView)
        view.choose("night")  # the demo's last game night: 12 hours ago holds none
        await settle(pilot)
        assert view.evening is not None and view.evening.matches
        await pilot.press("y")
        await settle(pilot)
        copied = app.clipboard
    assert copied.startswith(f"## Tonight: {len(view.evening.matches)} matches since ")
    assert all(f"- {m.number} " in copied for m in view.evening.matches)
    assert "- **What changed**: " in copied


def test_a_terminal_receives_the_copy_as_osc_52(tmp_path: Path) -> None:
    env = home_env(tmp_path, PYTHONPATH=str(ROOT))
    seat = PtySeat(["demo"], env)
    try:
        assert seat.wait_for("Home", 60), seat.seen[-400:]
        for _ in range(30):  # until the demo group is open: a key before it opens is refused
            seat.settle()
            seat.press(b"s")
            if seat.wait_for("(newest last)", 2):
                break
        assert "(newest last)" in seat.seen, seat.seen[-400:]
        seat.settle()
        seat.press(b"y")
        out = seat.settle(quiet=1.0)
    finally:
        seat.close()
    found = OSC52.search(out)
    assert found is not None, out[-400:]
    text = base64.b64decode(found.group(1)).decode()
    assert re.match(r"\S.* · \d+ matches", text) or " matches" in text.splitlines()[0], text
