"""The one way text that is not ours reaches the screen, and the one sentence for an error.

Names, notes, game names, search text, reasons and anything else that came from the service or from a person
go through `plain()`: the result is a Textual `Content` that is never read as markup (so `[/]` or `[b]` in a
name is shown as typed and cannot crash a widget) with every control character made visible (ESC as "␛"), so
nothing can move the cursor or retitle the terminal. A line break inside a name is shown as "⏎" before it gets
here: the app's client reads every text through `display_safe` (rankterm/wire/text.py), which keeps a name on
one line, and tables do the same to every cell; a newline given to `plain()` is ours (lines joined) and kept.
Widgets take a `Content` wherever they take a string: `Static.update`, `Label`, `border_title`, `Option`
prompts. `notify` takes a plain string: give it `plain_str(text)` with `markup=False`, or use `say()` on a
screen. `styled()` builds one `Content` from several parts, each plain, some with a style of ours ("dim",
"bold").

tests/tui/test_display_path.py reads the tui package's source and fails on any other way.
"""

from __future__ import annotations

from textual.content import Content

from rankterm.wire.errors import RanktermError
from rankterm.wire.text import display_safe_lines


def plain_str(text: object) -> str:
    """`text` as a string with control characters made visible (newlines kept); still to be shown with markup
    off."""
    return display_safe_lines(str(text))


def plain(text: object) -> Content:
    """`text` as literal, display-safe content: never markup, never an escape sequence."""
    return Content(plain_str(text))


def styled(*parts: object | tuple[object, str]) -> Content:
    """One `Content` of `parts`, each shown literally: a part is a text, or a (text, style) pair whose style
    is ours (e.g. "dim"). `styled(("calls", "dim"), " 12%")`."""
    pieces: list[Content | tuple[str, str]] = []
    for part in parts:
        if isinstance(part, tuple):
            text, style = part
            pieces.append((plain_str(text), style))
        else:
            pieces.append(plain(part))
    return Content.assemble(*pieces)


def error_sentence(exc: BaseException) -> str:
    """One sentence for a person: the error's own for a RanktermError, never a traceback otherwise."""
    if isinstance(exc, RanktermError):
        return str(exc)
    return f"Unexpected error: {type(exc).__name__}."


def as_sentence(reason: str) -> str:
    """A reason written in lower case without a stop ("only a rejected … can be renamed") as a sentence:
    its first letter raised, a full stop added; the rest (names in it) as it is."""
    reason = reason.strip()
    if not reason:
        return reason
    reason = reason[0].upper() + reason[1:]
    return reason if reason[-1] in ".!?" else reason + "."


NONE = "\u2013"
"""An en dash: no value."""


def label_text(label: str, code: str) -> str:
    """What a person reads for a coded value (belt, title, status, weight): the service's label when it gave
    one; else the code as words ("player_vs_player" -> "player vs player"); a bare number (a code only the
    service understands) -> a dash; nothing -> nothing."""
    if label.strip():
        return label
    words = code.replace("_", " ").strip()
    if words.replace(".", "").isdigit():
        return NONE
    return words


def weight_text(label: str, code: str) -> str:
    """A weight as read: its label, else the weight's name capitalised ("heavy" -> "Heavy")."""
    text = label_text(label, code)
    return text if label.strip() or text == NONE else text.capitalize()


MATCH_TYPES: dict[str, str] = {
    "player_vs_player": "one against one",
    "multiplayer": "multiplayer",
    "faction_vs_faction": "team against team",
    "player_vs_bot": "one against a bot",
    "faction_vs_bot": "team against a bot",
}


def match_type_text(code: str) -> str:
    """A readable word for a match type ("player_vs_player" -> "one against one")."""
    return MATCH_TYPES.get(code, label_text("", code) if code else "match")
