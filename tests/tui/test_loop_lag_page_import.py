"""Enter on a Rankings row imports the player's page (with its charts, 100-120 ms of module code) in a thread,
not on the event loop, and the keys typed right after Enter still reach the page once it is open. A fresh
process runs the demo, with an import hook that notes which thread began the page's import."""

from __future__ import annotations

from tests.support.import_watch import import_watch_child
from tests.support.terminal import child_says

CHILD = import_watch_child(
    ("rankterm.tui.screens.stats.player_page", "textual_plotext"),
    """
async def drive(pilot):
    await until(pilot, lambda: "after match" in str(app.screen.query_one("#home-title").render()))
    await pilot.press("r")
    await until(pilot, lambda: app.screen.query("#rank-table") and app.screen.query_one("#rank-table").row_count)
    app.screen.query_one("#rank-table").focus()
    await pilot.press("enter", "h")  # h: the page's recent matches (on Rankings it would be the Home key)
    await until(pilot, lambda: type(app.screen).__name__ == "PlayerMatchesScreen")
    stack = [type(s).__name__ for s in app.screen_stack]
    print(json.dumps({"on_main_thread": first, "stack": stack}))
    app.exit()
""",
)


def test_a_players_page_is_imported_beside_the_loop_and_keys_typed_after_enter_reach_it(tmp_path):
    seen = child_says(CHILD, tmp_path, timeout=240)
    assert seen["stack"][-2:] == ["PlayerPageScreen", "PlayerMatchesScreen"]
    assert seen["on_main_thread"]["rankterm.tui.screens.stats.player_page"] is False
    assert seen["on_main_thread"]["textual_plotext"] is False
