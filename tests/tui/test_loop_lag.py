"""What keeps the event loop free while a big group is read: a whole history parsed in a thread runs with the
cyclic collector paused and leaves its matches frozen (a full collection holds the GIL, so the loop would
freeze though the parse is in a thread); the counts over a player's, a pair's or the last evening's matches
run in threads, never on the loop (thousands of matches in a big group)."""

from __future__ import annotations

import gc
import threading

from textual.widgets import DataTable

from rankterm.mirror import Group
from rankterm.stats import source
from rankterm.stats.source import held_matches, sync_group
from rankterm.tui.dialogs.teams import TeamsDialog
from rankterm.tui.screens.stats.mode import StatsScreen
from rankterm.tui.screens.stats.player_page import PlayerPageScreen
from rankterm.tui.widgets.stats.head_to_head import HeadToHeadView
from rankterm.tui.widgets.stats.player_story import PlayerStory
from tests.tui.pilot import open_form, quick_fill, settle


async def test_a_whole_history_is_parsed_with_no_collection_and_left_frozen(
    demo_service, monkeypatch, collections_seen
) -> None:
    monkeypatch.setattr(source, "KEPT_AT_LEAST", 100)  # the demo's 300 matches count as a big group
    async with Group(demo_service.client()) as group:
        await sync_group(group)
        assert gc.isenabled()
        frozen = gc.get_freeze_count()
        collections_seen.clear()
        matches = held_matches(group)
        during = list(collections_seen)
    assert len(matches) == 300 and [m.number for m in matches] == sorted(m.number for m in matches)
    assert during == []  # ~100 objects a match: a young collection every 700 objects otherwise
    assert gc.isenabled()  # given back
    assert gc.get_freeze_count() > frozen  # the parsed matches are out of every later collection's walk


async def test_a_small_read_leaves_the_collector_alone(demo_service, collections_seen) -> None:
    async with Group(demo_service.client()) as group:
        await sync_group(group)
        frozen = gc.get_freeze_count()
        collections_seen.clear()
        held_matches(group)  # 300 matches: under `KEPT_AT_LEAST`
        during = list(collections_seen)
    assert during and all(enabled for _generation, enabled in during)
    # nothing frozen by the read; frozen objects that other threads let go meanwhile lower the count
    assert gc.get_freeze_count() <= frozen


async def test_a_collector_the_process_disabled_stays_disabled(demo_service, monkeypatch) -> None:
    monkeypatch.setattr(source, "KEPT_AT_LEAST", 100)
    async with Group(demo_service.client()) as group:
        await sync_group(group)
        frozen = gc.get_freeze_count()
        gc.disable()
        try:
            held_matches(group)
            assert not gc.isenabled()
        finally:
            gc.enable()
    assert gc.get_freeze_count() == frozen  # nothing frozen behind the process's back


# ---------------------------------------------------------------------- the counts that run in threads


def on_loop_calls(monkeypatch, module: object, name: str) -> list[bool]:
    """`module.name` wrapped: each call appends whether it ran on the event loop's thread."""
    real = getattr(module, name)
    seen: list[bool] = []

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


async def test_a_player_s_figures_and_chart_look_ups_are_counted_off_the_loop(make_app, monkeypatch) -> None:
    from rankterm.stats import history
    from rankterm.tui.screens.stats import mode, pages

    page_figures = on_loop_calls(monkeypatch, pages, "player_figures")
    tab_figures = on_loop_calls(monkeypatch, mode, "player_figures")
    held_points = on_loop_calls(monkeypatch, history, "_look_held")
    history_matches = on_loop_calls(monkeypatch, history, "player_matches")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        pilot.app.screen.query_one("#rank-table", DataTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        page = pilot.app.screen
        assert isinstance(page, PlayerPageScreen)
        story = page.query_one(PlayerStory)
        assert story.figures is not None and story.figures.played  # drawn from the thread's count
        assert story.history is not None and story.history.loaded
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("h")  # s on Rankings is its subset picker
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StatsScreen)
        assert pilot.app.screen.query_one(PlayerStory).figures is not None
    assert page_figures and not any(page_figures)
    assert tab_figures and not any(tab_figures)
    assert held_points and not any(held_points)
    assert history_matches and not any(history_matches)


async def test_a_pair_s_meetings_are_counted_off_the_loop(make_app, monkeypatch) -> None:
    from rankterm.tui.widgets.stats import head_to_head

    counted = on_loop_calls(monkeypatch, head_to_head, "head_to_head")
    met = on_loop_calls(monkeypatch, head_to_head, "most_met")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        view = pilot.app.screen.query_one(HeadToHeadView)
        assert view.figures is not None and view.figures.meetings
    assert counted and not any(counted)
    assert met and not any(met)


async def test_fair_teams_read_the_last_evening_off_the_loop(make_app, monkeypatch) -> None:
    from rankterm.tui.screens import match_entry

    read = on_loop_calls(monkeypatch, match_entry, "last_evening_pairings")
    async with make_app().run_test(size=(100, 30)) as pilot:
        await sync_group(pilot.app.group, max_age=0)
        await open_form(pilot)
        names = ["Ada", "Ben", "Chiara", "Dev"]
        await quick_fill(pilot, "Catan", [([name], i + 1, "") for i, name in enumerate(names)])
        await settle(pilot)
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert isinstance(pilot.app.screen, TeamsDialog)
    assert read == [False]
