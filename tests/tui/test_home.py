"""Home, the first screen of every seat, on the demo group at 80x24: the standings from the service, the last
match, the last game night's story from the held matches (what changed included), the outbox line and the keys
(only those the seat may use, wrapped between keys)."""

from __future__ import annotations

from datetime import timedelta

from textual.widgets import Static

from rankterm.mirror import Group
from rankterm.stats.changes import changes
from rankterm.stats.source import group_matches
from rankterm.tui.screens.home import NEXT_KEYS, HomeScreen, keys_lines, tonight_lines
from rankterm.tui.text import styled
from rankterm.wire.localtime import parse_wire_date
from tests.tui.pilot import settle


async def test_home_shows_the_group_standings_last_match_and_story(make_app, demo_service) -> None:
    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
        top = (await group.rankings_page(1)).data[0].player.label
    newest = max(parse_wire_date(m.date) for m in matches)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, HomeScreen)  # the first screen
        title = str(screen.query_one("#home-title", Static).render())
        standings = str(screen.query_one("#home-standings").render())
        story = str(screen.query_one("#home-tonight", Static).render())
        outbox = str(screen.query_one("#home-outbox", Static).render())
    assert top in standings
    expected = tonight_lines(matches, changes(matches), newest + timedelta(hours=1))  # tonight: nothing yet
    assert story == str(styled(*expected))
    assert story.startswith("Last game night") and "most wins" in story
    assert "reached the service" in outbox
    assert title == "Home — built-in demo, not saved · after match 300"  # the group, as other screens' header


def test_the_keys_line_wraps_between_keys_never_inside_one() -> None:
    keys = [(key, word) for key, _mode, word in NEXT_KEYS]
    for width in (20, 38, 60, 200):
        lines = str(styled(*keys_lines(keys, width))).split("\n")
        assert all(len(line) <= width for line in lines), width
        shown = "  ".join(lines)
        assert shown == "  ".join(f"{key} {word}" for key, word in keys), width
    assert str(styled(*keys_lines(keys, 38))).split("\n")[0] == "n new match  r rankings  b board"


async def test_each_key_home_offers_a_guest_opens_its_screen(make_app) -> None:
    """A guest seat (`rankterm host`, `rankterm web`) opens on Home too; every key its keys line offers works
    there, and none it may not use is offered."""
    app = make_app(demo=False, guest=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        line = str(app.screen.query_one("#home-keys", Static).render())
        offered = [(key, mode) for key, mode, word in NEXT_KEYS if f"{key} {word}" in line]
        assert offered and "l " not in line  # no profiles on a guest seat
        for key, mode in offered:
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == mode, key
            pilot.app.screen.set_focus(None)  # out of the form's field: the letters are the screens' again
            await pilot.press("escape", "h")
            await settle(pilot)
            assert app.current_mode == "home"
