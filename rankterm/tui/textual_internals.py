"""Every private name of Textual that rankterm borrows, in one place: a Textual release that removes or changes
one fails here (tests/tui/test_textual_internals.py has a test per name), not across the app.

The key queue reads message pumps' queues (`pump_busy`, `screen_has_callbacks`), the footer draws Textual's own
key cells (`FooterKey`), the subset picker sizes Select's overlay (`SelectOverlay`), the app marks a new screen
as styled (`adopt_css_count`), its stylesheet keeps what it parsed (`keep_parsed_css`) and the live probe asks
whether the app is exiting (`app_exiting`). Widgets that override a private handler of Textual's are listed in
`OVERRIDDEN_HOOKS`. See docs/design/tui.md.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from textual._queue import Queue
from textual.app import App
from textual.keys import _character_to_key
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._footer import FooterKey
from textual.widgets._select import SelectOverlay

__all__ = [
    "OVERRIDDEN_HOOKS",
    "FooterKey",
    "SelectOverlay",
    "adopt_css_count",
    "app_exiting",
    "app_key_bindings",
    "character_to_key",
    "keep_parsed_css",
    "pump_busy",
    "screen_has_callbacks",
    "text_area_class",
]

OVERRIDDEN_HOOKS: tuple[tuple[str, str, str], ...] = (
    ("textual.app", "App", "_load_screen_css"),  # RanktermApp: a new screen styled as its widgets register
    ("textual.widgets", "DataTable", "_on_key"),  # TextTable: keys typed while its rows load are kept
    ("textual.widgets", "Input", "_on_key"),  # the player picker's input: Backspace when empty, pick keys
)
"""Private methods of Textual's that rankterm's subclasses override, as (module, class, method): they must
still exist and be called by Textual, or the override silently does nothing."""


def character_to_key(char: str) -> str:
    """The key name Textual gives a printable character ("." -> "full_stop")."""
    return _character_to_key(char)


def pump_busy(pump: MessagePump) -> bool:
    """True while `pump` (the app, a screen, a widget) has work in hand: a message waiting or being handled, a
    callback waiting for its turn, or it is still starting. An idle pump waits in its queue's `get`, on the
    queue's `ready_event`; one that has closed does no more work."""
    if pump._closing or pump._closed:
        return False
    if not pump._running:
        return True
    queue: Queue[Message | None] = pump._message_queue
    return bool(
        not queue.empty()
        or pump._pending_message is not None
        or pump._next_callbacks
        or not any(not waiter.done() for waiter in queue.ready_event._waiters)
    )


def screen_has_callbacks(screen: Screen) -> bool:
    """True while `screen` holds callbacks waiting for its next refresh (`call_after_refresh`)."""
    return bool(screen._callbacks)


def text_area_class() -> type[Widget] | None:
    """TextArea, once its module is loaded (None before: importing it only to check would load its document
    model, ~0.5 MB a seat keeps for life; no widget can be one before it is loaded)."""
    module = sys.modules.get("textual.widgets._text_area")
    return None if module is None else module.TextArea


def app_key_bindings(app: App) -> Mapping[str, list[Any]]:
    """The app's own bindings (not its screens'), by key, in the order they were declared."""
    return app._bindings.key_to_bindings


def app_exiting(app: App) -> bool:
    """True once `app.exit()` was called (the app is on its way out)."""
    return bool(getattr(app, "_exit", False))


PARSED_CSS_KEPT = 1024
"""How many parsed stylesheet sources `keep_parsed_css` lets the app's stylesheet keep (rankterm's app has ~70:
its own widgets' and Textual's, each class's DEFAULT_CSS one source)."""


def keep_parsed_css(app: App) -> None:
    """Let the app's stylesheet keep every source it parsed. Textual keeps 64, and at each widget class met for
    the first time it parses its sources again in order, from that cache: past 64 sources each first mount of a
    new widget class parsed them all (100-130 ms of the loop each, several times on opening one screen)."""
    cache = getattr(app.stylesheet, "_parse_cache", None)
    if cache is not None and cache.maxsize < PARSED_CSS_KEPT:
        cache.maxsize = PARSED_CSS_KEPT


def adopt_css_count(app: App, screen: Screen) -> None:
    """Mark `screen`, not mounted yet and never styled, as styled with the app's stylesheet as it stands, so the
    first switch to it does not restyle the whole app. A Textual without these counters is left to restyle."""
    count = getattr(app, "_css_update_count", None)
    if count is not None and not screen.is_mounted and getattr(screen, "_css_update_count", 0) < 0:
        screen._css_update_count = count
