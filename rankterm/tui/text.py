"""The one way text that is not ours reaches the screen, and the one sentence for an error.

Names, notes, game names, search text, reasons and anything else that came from the service or from a person
go through `plain()`: the result is a Textual `Content` that is never read as markup (so `[/]` or `[b]` in a
name is shown as typed and cannot crash a widget) with every control character made visible (ESC as "␛"), so
nothing can move the cursor or retitle the terminal. Widgets take a `Content` wherever they take a string:
`Static.update`, `Label`, `border_title`, `Option` prompts. `notify` takes a plain string: give it
`plain_str(text)` with `markup=False`, or use `say()` on a screen.
"""

from __future__ import annotations

from textual.content import Content

from rankterm.api.errors import RanktermError
from rankterm.api.text import display_safe


def plain_str(text: object) -> str:
    """`text` as a string with control characters made visible; still to be shown with markup off."""
    return display_safe(str(text))


def plain(text: object) -> Content:
    """`text` as literal, display-safe content: never markup, never an escape sequence."""
    return Content(plain_str(text))


def error_sentence(exc: BaseException) -> str:
    """One sentence for a person: the error's own for a RanktermError, never a traceback otherwise."""
    if isinstance(exc, RanktermError):
        return str(exc)
    return f"Unexpected error: {type(exc).__name__}."
