"""A mode's screen module is imported in a thread the first time its key opens it (`screens.mode_imported`),
not on the event loop: the Stats mode's module with its charts was 50-90 ms of one step of the loop. The
screen still opens on the key, and the keys typed right after it reach that screen. A fresh process runs
the demo, with an import hook that notes which thread began the module's import."""

from __future__ import annotations

from tests.support.terminal import child_says

CHILD = """
import json, sys, threading

WATCHED = ("rankterm.tui.screens.stats", "rankterm.tui.screens.seasons")
first = {}

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in WATCHED and name not in first:
            first[name] = threading.current_thread() is threading.main_thread()
        return None

sys.meta_path.insert(0, Watch())

from rankterm.cli import build_app

app = build_app(demo=True, profile=None)

async def until(pilot, ready):
    for _ in range(1200):  # the demo opens in a thread: up to 60 s on a busy machine
        busy = [w for w in app.workers if w.is_running]
        if busy:
            await app.workers.wait_for_complete(busy)
        if not busy and ready():
            return
        await pilot.pause(0.05)

async def drive(pilot):
    await until(pilot, lambda: "after match" in str(app.screen.query_one("#home-title").render()))
    await pilot.press("s", "2")  # 2: the Stats mode's head-to-head tab
    await until(pilot, lambda: type(app.screen).__name__ == "StatsScreen")
    tab = app.screen.query_one("#stats-tabs").active
    await pilot.press("escape", "e")
    await until(pilot, lambda: type(app.screen).__name__ == "SeasonsScreen")
    print(json.dumps({"on_main_thread": first, "tab": tab, "screen": type(app.screen).__name__}))
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=drive)
"""


def test_a_modes_screen_module_is_imported_beside_the_loop(tmp_path):
    seen = child_says(CHILD, tmp_path, timeout=240)
    assert seen["screen"] == "SeasonsScreen"
    assert seen["tab"] == "h2h"  # the key typed after s reached the Stats screen
    assert seen["on_main_thread"] == {
        "rankterm.tui.screens.stats": False,
        "rankterm.tui.screens.seasons": False,
    }
