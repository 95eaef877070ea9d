"""Home's note says a long sentence whole: it wraps beside the bar's title instead of being cut at its edge
(a guest seat's "The service refused the host's profile: tell the host…" once lost its end)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from rankterm.tui.screens.home import HomeScreen

from .pilot import settle

LONG = "The service refused the host's profile: tell the host. Matches recorded here are kept."


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_a_long_note_on_home_is_shown_whole(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HomeScreen)
        screen.say(LONG, "error")
        await settle(pilot)
        note = screen.query_one("#home-note", Static)
        region = note.region
        shown = " ".join(
            " ".join(strip.text[region.x : region.right].split())
            for strip in screen._compositor.render_strips()[region.y : region.bottom]
        )
        assert shown == LONG
