"""A module a screen needs the first time is imported in a thread, not on the event loop (`rankterm.tui.warm`):
Home's board (100-150 ms of module code at the first open). A player's page and its charts are not imported
before Enter on a Rankings row asks for them (a seat that only reads the standings never loads plotext). A
fresh process runs the demo, with an import hook that notes which thread began each of those imports."""

from __future__ import annotations

from tests.support.import_watch import import_watch_child
from tests.support.terminal import child_says

CHILD = import_watch_child(
    ("rankterm.tui.screens.board", "rankterm.tui.screens.stats.player_page", "textual_plotext"),
    """
async def drive(pilot):
    await until(pilot, lambda: "after match" in str(app.screen.query_one("#home-title").render()))
    await pilot.press("r")
    await until(pilot, lambda: app.screen.query("#rank-table") and app.screen.query_one("#rank-table").row_count)
    first["charts before Enter"] = "textual_plotext" in sys.modules
    app.screen.query_one("#rank-table").focus()
    await pilot.press("enter")
    await until(pilot, lambda: type(app.screen).__name__ == "PlayerPageScreen")
    print(json.dumps({"on_main_thread": first, "screen": type(app.screen).__name__}))
    app.exit()
""",
)


def test_home_board_is_imported_beside_the_loop_and_the_charts_only_for_a_players_page(tmp_path):
    seen = child_says(CHILD, tmp_path, timeout=240)
    assert seen["screen"] == "PlayerPageScreen"  # Enter on a row still opens the player's page
    assert seen["on_main_thread"]["rankterm.tui.screens.board"] is False
    assert seen["on_main_thread"]["charts before Enter"] is False
