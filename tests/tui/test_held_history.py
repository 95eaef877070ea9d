"""A history held in part (a first sync within a share of a small hourly call quota): the Stats screens say
over how many matches their figures are, and the matches screen's line how many are held; with the whole
history held, neither says anything of it. Against the embedded service (60 calls an hour)."""

from __future__ import annotations

import re

from textual.widgets import Static

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.tui.screens.matches import MatchesScreen
from rankterm.tui.screens.stats.mode import StatsScreen
from tests.tui.conftest import DEMO_URL, frozen_clock
from tests.tui.pilot import settle

GROUP = 300
PARTIAL = re.compile(r"(\d+) of 300 matches · the rest within \d+ hours?$")


def quota_group(calls_per_hour: int) -> Group:
    app = create_app(
        demo_store(clock=frozen_clock), clock=frozen_clock, limits=QuotaLimits(calls_per_hour=calls_per_hour)
    )
    return Group(
        RankingClient.in_process(app, key=DEMO_KEY, secret=DEMO_SECRET, base_url=DEMO_URL, clock=frozen_clock)
    )


def info(screen, selector: str) -> str:
    line = screen.query_one(selector, Static)
    return str(line.render()) if line.display else ""


async def test_stats_and_matches_say_how_much_of_a_partial_history_is_held(make_app):
    group = quota_group(60)
    async with make_app(client=group).run_test(size=(100, 30)) as pilot:
        await pilot.press("m")
        await settle(pilot)
        matches = pilot.app.screen
        assert isinstance(matches, MatchesScreen)
        held = group.held_history()
        assert 0 < held.held < GROUP
        said = info(matches, "#matches-info")
        assert said.startswith("Main · matches 300 to 276, newest first · Enter shows one · ")
        assert said.endswith(f" · {held.held} of 300 matches held · " + str(held).split(" · ", 1)[1])

        await pilot.app.run_action("open_mode('stats')")  # s is the matches screen's subset key
        await settle(pilot)
        stats = pilot.app.screen
        assert isinstance(stats, StatsScreen)
        said = info(stats, "#stats-info")
        assert PARTIAL.search(said) and said == f"Figures over {group.held_history()}"


async def test_a_whole_history_says_nothing_of_it(make_app, demo_client):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StatsScreen)
        assert Group.of(demo_client).held_history().whole
        assert info(pilot.app.screen, "#stats-info") == ""
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MatchesScreen)
        said = info(pilot.app.screen, "#matches-info")
        assert said == "Main · matches 300 to 276, newest first · Enter shows one"
