"""A match in full at 80x24: each line of facts above the factions fits the dialog, the date whole with its zone,
whatever the zone's name, the game or the match type."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import Static

from rankterm.config import Config
from rankterm.tui.dialogs.match_detail import MatchDetailScreen, match_facts
from rankterm.wire.localtime import seat_zone

from .pilot import settle


@pytest.mark.parametrize("zone", ["UTC", "America/Los_Angeles"])
async def test_the_widest_facts_of_a_page_fit_80_columns(make_app, zone):
    async with make_app(config=Config(timezone=zone)).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        group = pilot.app.group
        pandemic = next(g for g in await group.games() if g.name == "Pandemic")
        newest = (await group.matches_page(1)).data
        against_a_bot = (await group.matches_page(1, subset=f"g{pandemic.id}")).data  # "team against a bot"

        def widest(match) -> int:
            return max(len(line) for line in match_facts(match, seat_zone(zone))[:2])

        # The widest fact lines of the page (and of the matches against a bot) are the ones that would wrap.
        for match in sorted([*newest, *against_a_bot], key=widest, reverse=True)[:6]:
            pilot.app.push_screen(MatchDetailScreen(match))
            await settle(pilot)
            facts = pilot.app.screen.query_one("#md-facts", Static)
            expected = match_facts(match, seat_zone(zone))
            lines = [strip.text.rstrip() for strip in facts.render_lines(Region(0, 0, *facts.size))]
            assert lines[:2] == expected[:2], f"match {match.number}: a line of facts wraps"  # notes may wrap
            assert expected[0].startswith(f"{seat_zone(zone).show(match.date)} ({seat_zone(zone).label}) · ")
            await pilot.press("escape")
            await settle(pilot)
