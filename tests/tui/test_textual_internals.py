"""Each private name of Textual that rankterm borrows (rankterm/tui/textual_internals.py) still exists and still
means what rankterm reads it as. A Textual release that moves or changes one fails here, by name, before the
key queue, the footer or the subset picker go quietly wrong."""

from __future__ import annotations

import asyncio
import importlib
import inspect

import pytest
from textual.app import App, ComposeResult
from textual.containers import HorizontalGroup
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Select

from rankterm.tui import textual_internals as ti


class Ping(Message):
    pass


class Quiet(App[None]):
    BINDINGS = [("ctrl+t", "quit", "Quit"), ("ctrl+b", "bell", "Bell")]

    def on_ping(self, _message: Ping) -> None:
        return None

    def compose(self) -> ComposeResult:
        yield Input(id="field")
        yield Select([("one", 1), ("two", 2)], id="pick")
        yield Footer()


def test_character_to_key_names_punctuation_as_textual_does():
    assert ti.character_to_key(".") == "full_stop"
    assert ti.character_to_key("+") == "plus"


async def test_pump_busy_is_false_for_an_idle_app_and_true_with_a_message_waiting():
    app = Quiet()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert not ti.pump_busy(app)
        assert not ti.pump_busy(app.query_one("#field"))
        app.post_message(Ping())
        assert ti.pump_busy(app)
        await pilot.pause()
        assert not ti.pump_busy(app)


async def test_pump_busy_is_true_while_a_widget_is_not_running_and_false_once_closed():
    widget = Widget()
    assert ti.pump_busy(widget)  # made, not started
    app = Quiet()
    async with app.run_test() as pilot:
        field = app.query_one("#field")
        await field.remove()
        await pilot.pause()
        assert not ti.pump_busy(field)


async def no_callbacks_left(pilot) -> bool:
    """Whether the screen's callbacks run out within 50 pauses: one pause is not always enough on a loaded
    machine, where a worker that waits for a core looks idle to the pilot before the refresh has run."""
    for _ in range(50):
        await pilot.pause()
        if not ti.screen_has_callbacks(pilot.app.screen):
            return True
    return False


async def test_screen_has_callbacks_sees_a_call_after_refresh():
    app = Quiet()
    async with app.run_test() as pilot:
        assert await no_callbacks_left(pilot)
        ran: list[bool] = []
        app.query_one("#field").refresh(layout=True)  # a refresh to wait for
        app.screen.call_after_refresh(lambda: ran.append(True))
        waiting = []
        while not ran:  # the callback waits in the screen's list for its refresh, then runs
            waiting.append(ti.screen_has_callbacks(app.screen))
            await asyncio.sleep(0)
        assert any(waiting)
        assert await no_callbacks_left(pilot)


def test_text_area_class_is_textual_text_area_once_loaded():
    importlib.import_module("textual.widgets._text_area")
    from textual.widgets import TextArea

    assert ti.text_area_class() is TextArea


async def test_app_key_bindings_lists_the_app_s_own_keys():
    app = Quiet()
    async with app.run_test():
        bindings = ti.app_key_bindings(app)
        assert [b.action for b in bindings["ctrl+t"]] == ["quit"]
        assert [b.action for b in bindings["ctrl+b"]] == ["bell"]


async def test_app_exiting_follows_app_exit():
    app = Quiet()
    async with app.run_test() as pilot:
        assert not ti.app_exiting(app)
        app.exit()
        assert ti.app_exiting(app)
        await pilot.pause()


async def test_adopt_css_count_marks_a_new_screen_styled_and_leaves_a_mounted_one():
    app = Quiet()
    async with app.run_test():
        fresh = Screen()
        assert fresh._css_update_count < 0  # a screen never styled says so
        ti.adopt_css_count(app, fresh)
        assert fresh._css_update_count == app._css_update_count
        shown = app.screen
        before = shown._css_update_count
        shown._css_update_count = -1
        ti.adopt_css_count(app, shown)  # mounted: left to Textual
        assert shown._css_update_count == -1
        shown._css_update_count = before


async def test_footer_key_is_the_cell_textual_s_footer_draws():
    app = Quiet()
    async with app.run_test() as pilot:
        await pilot.pause()
        keys = list(app.query(ti.FooterKey))
        assert {k.key for k in keys} >= {"ctrl+t", "ctrl+b"}
        assert all(isinstance(k.parent, HorizontalGroup | Footer) for k in keys)
        assert "compact" in type(keys[0])._reactives  # KeyFooter sets it per key


async def test_select_overlay_is_the_list_a_select_opens():
    app = Quiet()
    async with app.run_test() as pilot:
        await pilot.pause()
        overlay = app.query_one(Select).query_one(ti.SelectOverlay)
        assert overlay.styles is not None


@pytest.mark.parametrize(("module", "cls", "method"), ti.OVERRIDDEN_HOOKS)
def test_an_overridden_private_hook_still_exists(module, cls, method):
    owner = getattr(importlib.import_module(module), cls)
    hook = getattr(owner, method, None)
    assert callable(hook), f"Textual's {cls}.{method} is gone: rankterm's override of it would never run"
    assert len(inspect.signature(hook).parameters) == 2, f"{cls}.{method} takes other arguments now"


def test_keep_parsed_css_keeps_more_sources_than_textual_s_64(monkeypatch, own_css_parsing):
    from textual.css import stylesheet as module

    app = Quiet()
    ti.keep_parsed_css(app)
    sheet = app.stylesheet
    for i in range(100):
        sheet.add_source(f"#w{i} {{ width: {i + 1}; }}", read_from=("here", f"W{i}.DEFAULT_CSS"))
    sheet.parse()
    parsed: list[object] = []
    real = module.parse

    def counted(*args, **kwargs):
        parsed.append(args[2])  # read_from
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "parse", counted)
    sheet.add_source("#late { width: 3; }", read_from=("here", "Late.DEFAULT_CSS"))
    sheet.parse()
    assert parsed == [("here", "Late.DEFAULT_CSS")]  # the 100 before it came from the cache
