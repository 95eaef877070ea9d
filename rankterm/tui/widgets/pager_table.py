"""`fill_table`: put one page of rows in a `DataTable`, each column exactly as wide as this page needs.

Shared by the rankings and matches screens. A `DataTable` keeps a column as wide as the widest cell it has
ever held, and works widths out later, when idle; a page from another subset would then inherit the old
widths. Here the columns are made again for every page with widths measured from the cells themselves, so
what is shown depends on the page only (and snapshots are stable).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable


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
