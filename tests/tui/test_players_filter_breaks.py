"""The players filter finds a name stored with a line break in it (shown on one line, "Ni⏎na") by what a
person reads there: "nina", or "ni na" (a break between two words). The break mark itself is never needed."""

from __future__ import annotations

from textual.widgets import DataTable

from rankterm.mirror import Group
from rankterm.tui.screens.players import PlayersScreen, matches_filter
from rankterm.wire.models import Player
from rankterm.wire.text import display_safe

from .pilot import settle


def test_a_break_reads_as_nothing_or_as_a_space_raw_or_marked():
    for stored in ("Ni\nna", "Ni\r\nna", "Ni\u2028na"):
        for shown in (stored, display_safe(stored)):  # the command line's raw name, the app's marked one
            player = Player(id="1", display_name=shown, username="")
            assert matches_filter(player, "nina") and matches_filter(player, "ni na"), repr(shown)
            assert matches_filter(player, "NI") and not matches_filter(player, "nna x"), repr(shown)
    plain = Player(id="2", display_name="Nina", username="")
    assert matches_filter(plain, "nina") and not matches_filter(plain, "ni na")  # no break, no space to skip


async def test_nina_is_found_on_the_players_screen(make_app, demo_client):
    await Group.of(demo_client).create_player("Ni\nna")
    await Group.of(demo_client).create_player("Anna\r\nBerg")
    async with make_app().run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, PlayersScreen)
        for typed, found in (
            ("nina", "*Ni⏎na"),
            ("Ni na", "*Ni⏎na"),
            ("annaberg", "*Anna⏎Berg"),
            ("anna b", "*Anna⏎Berg"),
        ):
            screen.query_one("#players-filter").value = typed
            await settle(pilot, 0.5)
            table = screen.query_one(DataTable)
            names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
            assert names == [found], (typed, names)
