"""What `rankterm demo` loads by the time Home shows the demo group's data (standings, last match, tonight's
story): the story's walk and the board's reads, not the figures' types and rules (`rankterm.stats.results`,
`figures`: some 40 ms of imports, benchmarks/bench_startup.py), which load when a stats page opens, nor the
periods' (`stats.seasons`), which load at the first period asked for. A
module-level import in the wrong place brings them back silently, so a fresh process runs the demo until
Home's workers are done and lists what was imported. The same way: the app never builds the whole command
line's parser, the demo's client and service, answered in-process, load neither the socket pool (httpcore,
h11) nor the metrics (prometheus_client), and a page of Matches does not load a match's detail until one is
opened."""

from __future__ import annotations

import pytest

from tests.support.terminal import child_says

NOT_FOR_HOMES_DATA = (
    "rankterm.stats.results",
    "rankterm.stats.figures",
    "rankterm.stats.evening",
    "rankterm.stats.seasons",  # the periods: the board's `t`, the picker, the Seasons screen; Home shows all time
)

CHILD = """
import json, sys
from rankterm.cli import build_app

app = build_app(demo=True, profile=None)  # as `rankterm demo`

async def drive(pilot):
    for _ in range(600):  # the demo group opens in a thread: up to 30 s on a busy machine
        busy = [w for w in app.workers if w.is_running]
        if app.client is not None and not busy and "after match" in str(app.screen.query_one("#home-title").render()):
            break
        if busy:
            await app.workers.wait_for_complete(busy)
        await pilot.pause(0.05)
    home = app.screen
    print(json.dumps({
        "screen": type(home).__name__,
        "title": str(home.query_one("#home-title").render()),
        "tonight": str(home.query_one("#home-tonight").render()),
        "modules": sorted(m for m, v in sys.modules.items() if v is not None),
    }))
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=drive)
"""


NOT_FOR_THE_APP = ("argparse", "gettext", "pkgutil")
"""The whole command line's parser and the walk over the command modules: `rankterm`, `rankterm demo` and
`rankterm --profile NAME` start the app without them (`rankterm.cli.main`)."""


NOT_IN_PROCESS = ("httpcore", "h11", "prometheus_client")
"""The connection pool of a client that opens sockets (`rankterm.client.pool`) and the counters of a service that
is served (`rankterm.server.metrics`): the demo's client answers in-process, and nobody can scrape its service."""


def _homes_data(tmp_path) -> dict:
    """What the CHILD saw: Home's texts and the modules loaded once its data is shown."""
    return child_says(CHILD, tmp_path)


@pytest.fixture(scope="module")
def homes_data(tmp_path_factory) -> dict:
    """One run of the CHILD for the tests that read what it saw."""
    return _homes_data(tmp_path_factory.mktemp("homes-data"))


def test_homes_data_does_not_load_the_figures(homes_data):
    seen = homes_data
    assert seen["screen"] == "HomeScreen" and "after match" in seen["title"], seen["title"]
    assert seen["tonight"].strip()  # tonight's story was told: the walk's modules were loaded
    assert "rankterm.stats.changes" in seen["modules"] and "rankterm.stats.kept" in seen["modules"]
    assert sorted(m for m in NOT_FOR_HOMES_DATA if m in seen["modules"]) == []


def test_the_app_does_not_load_the_command_lines_parser(homes_data):
    seen = homes_data
    assert seen["screen"] == "HomeScreen" and "after match" in seen["title"], seen["title"]
    assert "rankterm.cli.app" in seen["modules"]  # the check below can see what was imported
    assert sorted(m for m in NOT_FOR_THE_APP if m in seen["modules"]) == []


def test_the_in_process_demo_loads_no_socket_pool_and_no_metrics(homes_data):
    seen = homes_data
    assert seen["screen"] == "HomeScreen" and "after match" in seen["title"], seen["title"]
    # The client and the service answered Home's reads: the check below looks at the modules they loaded.
    assert {"httpx", "rankterm.client.transport", "rankterm.server.app"} <= set(seen["modules"])
    assert sorted(m for m in seen["modules"] if m.split(".")[0] in NOT_IN_PROCESS) == []


MATCHES_CHILD = """
import json, sys
from rankterm.cli import build_app

app = build_app(demo=True, profile=None)  # as `rankterm demo`

def loaded():
    return sorted(m for m, v in sys.modules.items() if v is not None)

async def drive(pilot):
    for _ in range(600):  # the demo group opens in a thread: up to 30 s on a busy machine
        if app.client is not None:
            break
        await pilot.pause(0.05)
    await pilot.press("m")
    for _ in range(600):
        busy = [w for w in app.workers if w.is_running]
        if busy:
            await app.workers.wait_for_complete(busy)
        table = app.screen.query("#matches-table")
        if not busy and table and table.first().row_count:
            break
        await pilot.pause(0.05)
    seen = {"matches_screen": type(app.screen).__name__, "rows": app.screen.query_one("#matches-table").row_count}
    seen["on_matches"] = loaded()
    app.screen.query_one("#matches-table").focus()
    await pilot.press("enter")  # the newest match in full
    await pilot.pause(0.2)
    seen["detail_screen"] = type(app.screen).__name__
    seen["after_enter"] = loaded()
    print(json.dumps(seen))
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=drive)
"""

NOT_FOR_A_PAGE_OF_MATCHES = (
    "rankterm.tui.dialogs.match_detail",
    "rankterm.stats.recap",
    "rankterm.stats.results",
)
"""A match's detail (Enter on Matches) and the recap of its figures: loaded when a match is opened, not with the
page (memory for as long as the app lives, on every seat that only looks at the list)."""


def test_a_page_of_matches_does_not_load_a_matchs_detail(tmp_path):
    seen = child_says(MATCHES_CHILD, tmp_path)
    assert seen["matches_screen"] == "MatchesScreen" and seen["rows"] > 0
    assert sorted(m for m in NOT_FOR_A_PAGE_OF_MATCHES if m in seen["on_matches"]) == []
    assert seen["detail_screen"] == "MatchDetailScreen"  # Enter still opens the match, loading what it needs
    assert sorted(m for m in NOT_FOR_A_PAGE_OF_MATCHES if m in seen["after_enter"]) == sorted(
        NOT_FOR_A_PAGE_OF_MATCHES
    )
