"""`TextTable`: a `DataTable` whose string cells are plain, safe text: never markup, never an escape.

Textual's DataTable reads a `str` cell as Rich markup, so a player called "[bold red]Evil[/]" would be
shown styled, and brackets in a name could swallow text; and a control character in a cell would reach the
terminal as it is. Every table in rankterm shows names that came from other people, so every table is a
`TextTable`; a cell that wants a style passes a `rich.text.Text`.

`fill_table` puts one page of rows in a table, each column exactly as wide as this page needs: a `DataTable`
keeps a column as wide as the widest cell it ever held and works widths out later, when idle, so a page from
another subset would inherit old widths. Columns are made again for every page, so what is shown depends on
the page only (and snapshots are stable).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from rankterm.api.text import display_safe


class TextTable(DataTable):
    """A DataTable that shows `str` cells literally."""

    def add_row(self, *cells: Any, **kwargs: Any) -> Any:
        return super().add_row(*(Text(display_safe(c)) if isinstance(c, str) else c for c in cells), **kwargs)


def fill_table(
    table: DataTable,
    columns: Sequence[str],
    rows: Sequence[Sequence[Text]],
    keys: Sequence[str],
    *,
    min_widths: Sequence[int] | None = None,
) -> None:
    """Replace the table's columns and rows; each column as wide as its widest cell (or its title)."""
    widths = [len(title) for title in columns]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], cell.cell_len)
    if min_widths:
        widths = [max(w, m) for w, m in zip(widths, min_widths, strict=True)]
    table.clear(columns=True)
    for title, width in zip(columns, widths, strict=True):
        table.add_column(title, key=title, width=width)
    for row, key in zip(rows, keys, strict=True):
        table.add_row(*row, key=key)
