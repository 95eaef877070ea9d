"""`SuggestionList`: the floating list of a type-ahead field (game or player); it never takes the focus."""

from __future__ import annotations

from textual.widgets import OptionList


class SuggestionList(OptionList, can_focus=False):
    """The floating list of a `TypeAhead` (never takes the focus: the text field keeps it)."""

    DEFAULT_CSS = """
    SuggestionList {
        display: none;
        overlay: screen;
        constrain: none inside;
        width: 1fr;
        min-width: 24;
        height: auto;
        max-height: 8;
        border: round $accent;
        padding: 0;
        background: $surface;
    }
    """
