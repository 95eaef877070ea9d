"""Whether a name can be seen: the one rule, shared by the service and the screens, for a name that is
empty to the eye.

A player's or a game's name must hold at least one character that shows: not only spaces, format or
control characters (zero-width joiners, bidi marks, soft hyphens…), combining marks with nothing to sit
on, unassigned or surrogate code points, or the few letters that draw as blank (Hangul fillers, the
braille blank). Such a name is refused as an empty one is.
"""

from __future__ import annotations

import unicodedata

_UNSEEN_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Cn", "Mn", "Mc", "Me"})
"""Separators, controls, format characters, surrogates, unassigned code points and combining marks."""

_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters of a visible category that draw nothing."""


def is_visible(char: str) -> bool:
    """Whether one character draws something on a screen."""
    return char not in _BLANK_GLYPHS and unicodedata.category(char) not in _UNSEEN_CATEGORIES


def has_visible(text: str) -> bool:
    """Whether `text` holds at least one character that shows: a name with none is refused as empty."""
    return any(is_visible(char) for char in text)
