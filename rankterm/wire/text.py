"""Text rules shared by every layer, with no dependency: what counts as digits, names as look-ups compare
them, and text made safe to show.

`fold_name` is the one way two names are compared ignoring case and accents. `display_safe` is the one way
text that is not ours is made fit for a terminal: control characters shown as symbols, line breaks as "⏎".
`display_safe_lines` keeps our own line breaks. Kept apart from the pydantic models so that the app can use
them without importing pydantic early. See docs/development.md ("Text that is not ours").
"""

from __future__ import annotations

import re
import unicodedata


def ascii_digits(text: str) -> bool:
    """True for a non-empty run of 0-9 only. `str.isdigit` also takes "¹" or "٣", which `int` may refuse."""
    return text.isascii() and text.isdigit()


def fold_name(text: str, *, squeeze_spaces: bool = False) -> str:
    """`text` as names are compared, ignoring case and accents: NFKD, combining marks dropped, casefolded,
    ends stripped. `squeeze_spaces` also makes each run of whitespace inside one space, for a name typed
    again by a person, who may not see that it differs. The service stores this form of each game's name,
    so it must not change."""
    decomposed = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(folded.split()) if squeeze_spaces else folded.strip()


NEWLINE_MARK = "\u23ce"
""""⏎": where a text that is not ours breaks its line."""
_LINE_BREAKS = frozenset("\n\r\x85\u2028\u2029")
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""The marks, embeddings, overrides and isolates of bidirectional text: a terminal that follows them turns
the rest of a line (a table row) around."""
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}]")
"""Control characters, line breaks and bidi controls. Vertical tab, form feed and the file, group and record
separators, where `str.splitlines` also breaks, are control characters shown by their own symbols."""


def _picture(match: re.Match[str]) -> str:
    char = match.group()
    if char in _LINE_BREAKS:
        return NEWLINE_MARK
    code = ord(char)
    return chr(0x2400 + code) if code < 0x20 else ("\u2421" if code == 0x7F else "\ufffd")


def display_safe(text: str) -> str:
    """`text` on one line, safe to show: every line break as "⏎" (`NEWLINE_MARK`; "\\r\\n" is one), every
    other control character as a symbol (ESC as "␛"), a control without one (C1, bidi) as "\ufffd"."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return _UNSAFE.sub(_picture, text)


def display_safe_lines(text: str) -> str:
    """`text` whose line breaks are ours, safe to show: "\\n" kept, every other control character and line
    break as `display_safe` shows it."""
    return "\n".join(display_safe(line) for line in text.split("\n"))
