"""Text rules shared by every layer, with no dependency: what counts as digits, and text made safe to show.

Kept apart from the pydantic models so that the app can use them without importing pydantic early.
"""

from __future__ import annotations

import re


def ascii_digits(text: str) -> bool:
    """True for a non-empty run of 0-9 only. `str.isdigit` also takes "¹" or "٣", which `int` may refuse."""
    return text.isascii() and text.isdigit()


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return chr(0x2400 + code) if code < 0x20 else ("\u2421" if code == 0x7F else "\ufffd")


def display_safe(text: str) -> str:
    """`text` with every control character but newline shown as a symbol (ESC as "␛"), so that nothing from
    the service can move the cursor, clear or retitle the terminal it is shown on."""
    return _CONTROL.sub(_picture, text)
