"""`FormInput`: rankterm's one-line text field: an `Input` that never holds a control character, leaves ctrl+d
to the match form, and keeps its cursor steady.

A control character pasted into a field (an ESC sequence, a bell) would be drawn by `Input` as it is, i.e.
sent to the terminal, where it can clear the screen or retitle the window: the field turns it into its
visible symbol ("␛") as soon as it arrives, as `rankterm.tui.text.plain` does for every text shown.
Textual's `Input` binds ctrl+d to "delete right" (the Delete key does the same). In the match form ctrl+d
removes the focused faction, so the fields keep every binding of `Input` except that one key.

Keys typed faster than the form moves on (Enter that picks a player and moves on to the next faction, Tab,
Backspace) are not the field's business: the app lets each key go only once the one before has settled
(`rankterm.tui.key_queue`), so a key always reaches the field that has the focus after the keys before it.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding, BindingType
from textual.widgets import Input

from rankterm.tui.text import plain_str

FREED_KEYS = frozenset({"ctrl+d"})


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
    """An `Input` without the ctrl+d binding (see the module docstring), with a steady cursor.

    The cursor does not blink: a blinking cursor repaints twice a second while nothing happens, and
    rankterm never repaints while idle (over SSH every byte counts).
    """

    BINDINGS = _without(list(Input.BINDINGS), FREED_KEYS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cursor_blink = False

    def validate_value(self, value: str) -> str:
        """No control character ever reaches the field (nor, through it, the terminal)."""
        return plain_str(value)
