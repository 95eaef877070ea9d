"""`TextTable`: a `DataTable` whose string cells are plain, safe text: never markup, never an escape.

Textual's DataTable reads a `str` cell as Rich markup, so a player called "[bold red]Evil[/]" would be
shown styled, and brackets in a name could swallow text; and a control character in a cell would reach the
terminal as it is. Every table in rankterm shows names that came from other people, so every table is a
`TextTable`; a cell that wants a style passes a `rich.text.Text`.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from rankterm.api.text import display_safe


class TextTable(DataTable):
    """A DataTable that shows `str` cells literally."""

    def add_row(self, *cells: Any, **kwargs: Any) -> Any:
        return super().add_row(*(Text(display_safe(c)) if isinstance(c, str) else c for c in cells), **kwargs)
