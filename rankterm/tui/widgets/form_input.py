"""`FormInput`: rankterm's one-line text field: an `Input` that never holds a control character, leaves ctrl+d
to the match form, keeps its cursor steady, and loses no key typed while the focus moves on.

A control character pasted into a field (an ESC sequence, a bell) would be drawn by `Input` as it is, i.e.
sent to the terminal, where it can clear the screen or retitle the window: the field turns it into its
visible symbol ("␛") as soon as it arrives, as `rankterm.tui.text.plain` does for every text shown.
Textual's `Input` binds ctrl+d to "delete right" (the Delete key does the same). In the match form ctrl+d
removes the focused faction, so the fields keep every binding of `Input` except that one key.

Keys typed faster than the form moves on: after a key that may move the focus elsewhere (`hands_over_on`,
e.g. Enter that picks a player and moves on to the next faction, which may first have to be added), the
keys that follow are held by the field, not typed into it, until the focus has moved (`hand_focus`), and
then go, in order, to where it went. A field that keeps the focus after all releases them to itself; a
field that nobody releases lets them go after `HOLD_LIMIT` seconds or when it loses the focus.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual import events
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from rankterm.tui.text import plain_str

FREED_KEYS = frozenset({"ctrl+d"})
HOLD_LIMIT = 2.0
"""Seconds a field holds the keys typed after a hand-over key when nothing moves the focus or releases them."""


def _without(bindings: list[BindingType], freed: frozenset[str]) -> list[BindingType]:
    out: list[BindingType] = []
    for binding in bindings:
        if isinstance(binding, Binding):
            keys = [k.strip() for k in binding.key.split(",") if k.strip() not in freed]
            if keys:
                out.append(
                    Binding(
                        ",".join(keys),
                        binding.action,
                        binding.description,
                        show=binding.show,
                        priority=binding.priority,
                    )
                )
        else:
            out.append(binding)
    return out


class FormInput(Input, inherit_bindings=False):
    """An `Input` without the ctrl+d binding (see the module docstring), with a steady cursor, that holds
    the keys typed after one of `hands_over_on` until the focus has moved on.

    The cursor does not blink: a blinking cursor repaints twice a second while nothing happens, and
    rankterm never repaints while idle (over SSH every byte counts).
    """

    BINDINGS = _without(list(Input.BINDINGS), FREED_KEYS)

    def __init__(self, *args: Any, hands_over_on: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cursor_blink = False
        self.hands_over_on = frozenset(hands_over_on)
        """Keys after which this field may hand the focus over (the keys that follow wait for it)."""
        self._held: list[tuple[str, str | None]] | None = None
        self._hold_timer: Timer | None = None

    def validate_value(self, value: str) -> str:
        """No control character ever reaches the field (nor, through it, the terminal)."""
        return plain_str(value)

    @property
    def holding(self) -> bool:
        """True while keys typed after a hand-over key wait for the focus to move."""
        return self._held is not None

    async def _on_key(self, event: events.Key) -> None:
        focused = self.app.focused
        if self._held is None and focused is not None and focused is not self:
            # forwarded here while this field had the focus, which has moved on since (`hand_focus`):
            # the key goes where the focus is, as the app would send it now
            event.stop()
            event.prevent_default()
            _forward(focused, event.key, event.character)
            return
        if self._held is not None:
            event.stop()
            event.prevent_default()  # not typed here: kept for where the focus goes
            self._held.append((event.key, event.character))
            return
        if event.key in self.hands_over_on:
            self.hold()
        elif event.is_forwarded and await self._own_binding_now(event):
            return

    async def _own_binding_now(self, event: events.Key) -> bool:
        """Run this field's own binding of a key handed to it (a key typed while another field held the keys)
        here, in the order typed: left to the app, backspace would act after the letters typed behind it
        ("Mall" ⌫⌫⌫⌫ "Ad" gave "Ma"). True when it ran."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if binding.priority:
                continue
            event.stop()
            event.prevent_default()
            await self.run_action(binding.action)
            return True
        return False

    def hold(self) -> None:
        """Hold the keys typed from now on until `release` (or `HOLD_LIMIT` seconds)."""
        if self._held is None:
            self._held = []
            self._hold_timer = self.set_timer(HOLD_LIMIT, self.release)

    def release(self, to: Widget | None = None) -> None:
        """Stop holding: the held keys go, in order, to `to` (where the focus went), else to what has the
        focus now (this field when it kept it)."""
        held, self._held = self._held, None
        if self._hold_timer is not None:
            self._hold_timer.stop()
            self._hold_timer = None
        if not held or not self.is_attached:
            return
        target: Widget = to or self.app.focused or self.screen
        for key, character in held:
            _forward(target, key, character)

    def _on_blur(self, event: events.Blur) -> None:
        if self._held is not None:  # the focus moved some other way: the keys follow it
            self.call_later(self.release)


def _forward(target: Widget, key: str, character: str | None) -> None:
    """Send a key to `target` as the app forwards a key from the terminal to the focused widget: sent by the
    app (else it would stop bubbling at its sender), so that a binding up the focus chain still sees it."""
    event = events.Key(key, character)
    event.set_sender(target.app)
    target._forward_event(event)


def hand_focus(target: Widget) -> None:
    """Focus `target` now (not after the next refresh, as `Widget.focus` does) and send it the keys that the
    field losing the focus held meanwhile."""
    screen = target.screen
    old = screen.focused
    screen.set_focus(target)
    if isinstance(old, FormInput) and old is not target:
        old.release(to=screen.focused)
