"""`FormInput`: the text field of the match form: an `Input` that leaves ctrl+d to the form, cursor steady.

Textual's `Input` binds ctrl+d to "delete right" (the Delete key does the same). In the match form ctrl+d
removes the focused faction, so the form's fields keep every binding of `Input` except that one key.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding, BindingType
from textual.widgets import Input

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
