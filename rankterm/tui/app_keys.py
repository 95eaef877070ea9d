"""`AppKeys`, the base of `RanktermApp` that owns how keys reach the app: at once, in order, and by name.

- **An app key acts before the next key is read.** Textual hands a key to the focused widget's queue and
  reads the next key at once; an app binding (`n`, `r`, …) only ran when the key had bubbled back up, after
  every key typed meanwhile had been handed to the same (old) screen. Typed in one burst (a paste, tmux, a
  fast typist over SSH: `n C a t ⏎ …`), the keys after `n` went to the dashboard and were lost. `on_event`
  runs the app's own binding of a key first, when nothing closer to the focus takes it and no text field
  has the focus (nor a list, where letters search), so the next keys reach the new screen.
- **A new screen gets the keys typed while it placed its focus**: until its first focus (or `HOLD_KEYS_FOR`
  seconds) keys are held, then handed to that focus in the order typed.
- **Every key in the palette, named with its keys** (`Next page (] or pgdn)`), as `dialogs.help` reads them;
  `?` / F1 open the overlay of every key (`action_show_keys`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable

from textual import events
from textual.app import App, ScreenStackError, SystemCommand
from textual.dom import NoScreen
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, OptionList

HOLD_KEYS_FOR = 3.0
"""Seconds a new screen may take to place its focus (a busy machine, a slow SSH link) before the keys typed
meanwhile go where they can; a screen with no field for them gets them as soon as it is composed."""

_NOT_IN_PALETTE = frozenset({"command_palette", "help_quit"})


def _is_text_field(widget: object) -> bool:
    """An Input, a TextArea or an OptionList. TextArea is checked only once its module is loaded (no screen of
    rankterm has one; a widget cannot be one before): importing it for this check alone would load its
    document model, ~0.5 MB that a seat keeps for its whole life (issue 14)."""
    if isinstance(widget, Input | OptionList):
        return True
    text_area = sys.modules.get("textual.widgets._text_area")
    return text_area is not None and isinstance(widget, text_area.TextArea)


class AppKeys(App):
    """Keys at once and in order, and every key by name (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._held_keys: list[events.Key] | None = None
        self._held_since = 0.0
        self._hold_timer: Timer | None = None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._held_keys is not None:  # a new screen is still placing its focus: keep the key for it
                event.stop()
                event.prevent_default()
                self._held_keys.append(event)
                return
            if await self._app_key_now(event):
                return
        await super().on_event(event)

    async def _app_key_now(self, event: events.Key) -> bool:
        """Run the app's own binding of `event` at once, when nothing closer to the focus takes that key and no
        text field has the focus; True when it ran."""
        focused = self.focused
        if _is_text_field(focused):
            return False  # a letter typed in a field is text; in a list (a Select's too) it searches
        try:
            active = self.screen.active_bindings.get(event.key)
        except NoScreen:
            return False
        if active is None or active.node is not self or not active.enabled:
            return False
        event.stop()
        event.prevent_default()
        before = self.screen
        await self.run_action(active.binding.action, self)
        screen = self.screen
        if screen is not before and screen.focused is None and screen.AUTO_FOCUS:
            self._held_keys = []  # until its field has the focus (`focus_placed`), HOLD_KEYS_FOR at most
            self._held_since = time.monotonic()
            self._hold_timer = self.set_interval(0.05, self._check_hold)
        return True

    async def _check_hold(self) -> None:
        """Release the held keys once the new screen is composed and has no field for them after all
        (`AUTO_FOCUS` names nothing focusable), or after HOLD_KEYS_FOR seconds."""
        try:
            screen = self.screen
        except ScreenStackError:
            await self._release_keys()
            return
        waited = time.monotonic() - self._held_since
        if waited >= HOLD_KEYS_FOR or (
            screen.is_mounted and screen.focused is None and not self._auto_field(screen)
        ):
            await self._release_keys()

    @staticmethod
    def _auto_field(screen: Screen) -> bool:
        selector = screen.AUTO_FOCUS
        return bool(selector) and any(w.focusable for w in screen.query(selector))

    async def _release_keys(self) -> None:
        """Hand the keys typed while a new screen placed its focus to that focus, in the order typed (none
        when the app has already left its screens, on the way out)."""
        held, self._held_keys = self._held_keys, None
        if self._hold_timer is not None:
            self._hold_timer.stop()
            self._hold_timer = None
        if not self._screen_stack:
            return
        for key in held or ():
            await App.on_event(self, key)

    async def focus_placed(self) -> None:
        """A widget took the focus: the keys held for a new screen go to it now."""
        if self._held_keys is not None:
            await self._release_keys()

    def action_show_keys(self) -> None:
        """The help overlay: every key of the screen shown (and its focused widget) and of the app."""
        from rankterm.tui.dialogs.help import KeysScreen

        if not isinstance(self.screen, KeysScreen):
            self.push_screen(KeysScreen(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every key of the screen, its focused widget and the app that a rankterm class declares, named with
        its keys ("Next page (] or pgdn)"), as `dialogs.help` reads them; Textual's own Theme, Quit and Keys
        give way to ours (which say their keys)."""
        from rankterm.tui.dialogs.help import palette_entries

        entries = [e for e in palette_entries(screen) if e.action not in _NOT_IN_PALETTE]
        ours = {e.action for e in entries if e.node is self}
        replaced = {"Theme": "change_theme", "Quit": "quit", "Keys": "show_keys"}
        for command in super().get_system_commands(screen):
            if replaced.get(str(command.title)) not in ours:
                yield command
        for entry in entries:

            async def run(action: str = entry.action, node=entry.node) -> None:
                await self.run_action(action, node)

            yield SystemCommand(f"{entry.description} ({' or '.join(entry.keys)})", "", run)
