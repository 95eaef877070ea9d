"""A mode's screen module is imported in a thread the first time its key opens it (`screens.mode_imported`),
not on the event loop: the Stats mode's module with its charts was 50-90 ms of one step of the loop. The
screen still opens on the key, and the keys typed right after it reach that screen. A fresh process runs
the demo, with an import hook that notes which thread began the module's import."""

from __future__ import annotations

from tests.support.import_watch import import_watch_child
from tests.support.terminal import child_says

CHILD = import_watch_child(
    ("rankterm.tui.screens.stats", "rankterm.tui.screens.seasons"),
    """
async def drive(pilot):
    await until(pilot, lambda: "after match" in str(app.screen.query_one("#home-title").render()))
    await pilot.press("s", "2")  # 2: the Stats mode's head-to-head tab
    await until(pilot, lambda: type(app.screen).__name__ == "StatsScreen")
    tab = app.screen.query_one("#stats-tabs").active
    await pilot.press("escape", "e")
    await until(pilot, lambda: type(app.screen).__name__ == "SeasonsScreen")
    print(json.dumps({"on_main_thread": first, "tab": tab, "screen": type(app.screen).__name__}))
    app.exit()
""",
)


def test_a_modes_screen_module_is_imported_beside_the_loop(tmp_path):
    seen = child_says(CHILD, tmp_path, timeout=240)
    assert seen["screen"] == "SeasonsScreen"
    assert seen["tab"] == "h2h"  # the key typed after s reached the Stats screen
    assert seen["on_main_thread"] == {
        "rankterm.tui.screens.stats": False,
        "rankterm.tui.screens.seasons": False,
    }
