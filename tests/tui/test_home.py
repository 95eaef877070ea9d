"""Home on the demo group at 80x24: the standings from the service, the last match, the last game night's
story from the held matches (what changed included), the outbox line and the keys."""

from __future__ import annotations

from datetime import timedelta

from textual.widgets import Static

from rankterm.mirror import Group
from rankterm.stats.changes import changes
from rankterm.stats.source import group_matches
from rankterm.tui.screens.home import HomeScreen, tonight_lines
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
        await pilot.app.switch_mode("home")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, HomeScreen)
        standings = str(screen.query_one("#home-standings").render())
        story = str(screen.query_one("#home-tonight", Static).render())
        outbox = str(screen.query_one("#home-outbox", Static).render())
    assert top in standings
    expected = tonight_lines(matches, changes(matches), newest + timedelta(hours=1))  # tonight: nothing yet
    assert story == str(styled(*expected))
    assert story.startswith("Last game night") and "most wins" in story
    assert "reached the service" in outbox
