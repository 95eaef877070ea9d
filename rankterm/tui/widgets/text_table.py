"""`TextTable`: a `DataTable` whose cells are plain, safe text on one line: never markup, never an escape.

Textual's DataTable reads a `str` cell as Rich markup, so a player called "[bold red]Evil[/]" would be
shown styled, and brackets in a name could swallow text; and a control character in a cell would reach the
terminal as it is. Every table in rankterm shows names that came from other people, so every table is a
`TextTable`; a cell that wants a style passes a `rich.text.Text`.

`fill_table` puts one page of rows in a table, each column exactly as wide as this page needs, given at once:
a `DataTable` keeps a column as wide as the widest cell it ever held, and works the widths of columns added
without one out later, when idle, so a page from another subset would inherit old widths and a screen drawn
before that idle showed every column cut to its title ("Tick", "Wing"). Every table whose rows change is
filled through it. Columns are made again for every page, so what is shown depends on the page only (and
snapshots are stable). The cursor stays on the row it was on (by row key) when that row is
still there: a page revalidated under the cursor never moves it to another row. A long list (a season's 500
standings) goes in by slices (`TextTable.fill_rows`): the rows a screen shows at once, the rest a hundred after
each refresh, so the loop never measures hundreds of new rows in one step.

Keys typed before the rows: a screen calls `token = expect_rows(replace=...)` when a load is asked for and
`rows_arrived(token)` when it is done (in a `finally`). Meanwhile the cursor keys and Enter pressed on the
table while it has no rows, shows its loading indicator, or is about to be replaced (a filter, another page)
are kept, in order, and replayed on the rows once they are there: `r` then at once `down down enter` opens the
third player, `/ele` Enter Enter opens Elena, however slow the service.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Input
from textual.widgets.data_table import RowDoesNotExist

from rankterm.wire.text import display_safe


def one_line_cell(cell: Any) -> Any:
    """A cell as a table row shows it, on its one line: a `str` as plain, display-safe text; a `Text` whose
    text breaks its line (or holds a control character) with `display_safe`'s symbols instead, its styles
    kept; anything else as it is."""
    if isinstance(cell, str):
        return Text(display_safe(cell))
    if isinstance(cell, Text):
        safe = display_safe(cell.plain)
        if safe != cell.plain:
            cell = cell.copy()
            cell.plain = safe
    return cell


FIRST_ROWS = 100
"""The rows `TextTable.fill_rows` puts in the table at once: more than any screen shows."""
SLICE_ROWS = 100
"""The rows it adds at a time after those, the loop let go between two slices: a `DataTable` measures every cell
of its new rows when next idle (10-20 ms for a slice, 75-110 ms for a season's 500 standings at once). Each
slice also paints the rows shown again (their cached cells are keyed by the table's update count, which an
added row bumps: 40-80 ms for a screenful), so the slices are as few as that measure allows: a slice of 40
rows painted a list of 500 thirteen times, one of 100 six."""

KEPT_KEYS = frozenset({"up", "down", "home", "end", "ctrl+home", "ctrl+end", "enter"})
"""The keys kept while the rows are on their way (the table's cursor keys and Enter)."""


class TextTable(DataTable):
    """A DataTable that shows `str` cells literally, and keeps the keys typed before its rows."""

    def __init__(self, *args: Any, await_first_rows: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._token = 0
        self._awaited: int | None = 0 if await_first_rows else None
        """The load whose rows are awaited (the latest asked for), None when none is."""
        self._replace = await_first_rows
        """Whether the awaited rows replace those shown (a filter, another page): then keys wait for them even
        while rows are shown. A list screen's first rows are awaited from the start."""
        self._kept: list[str] = []
        self._wants_focus = False
        self._fills = 0
        """Counts the table's clears: the slices of a fill that was cleared since are dropped."""
        self._cursor_after: tuple[str, Coordinate] | None = None
        """A fill's row the cursor was on, not added yet, and where the cursor stood meanwhile: it goes back
        to that row when it arrives, unless it was moved in between."""
        self._to_come: list[tuple[Sequence[Any], str | None]] = []
        """The rows of the fill under way not added yet, in order."""
        self._to_end = False
        """Whether the cursor was sent to the last row (ctrl+end) while rows were still to come: it goes to
        the new last row as each slice arrives, unless another key came in between."""

    def add_row(self, *cells: Any, **kwargs: Any) -> Any:
        return super().add_row(*(one_line_cell(c) for c in cells), **kwargs)

    def clear(self, columns: bool = False) -> Any:
        self._fills += 1
        self._to_come = []
        self._cursor_after = None
        self._to_end = False
        return super().clear(columns)

    def fill_rows(
        self,
        rows: Sequence[Sequence[Any]],
        keys: Sequence[str | None] | None = None,
        cursor_on: str | None = None,
    ) -> None:
        """Add `rows` (with their `keys`): the first `FIRST_ROWS` at once, the rest `SLICE_ROWS` at a time after
        each refresh, in order, so that no single step of the loop adds and measures hundreds of rows; a clear
        drops the slices not added yet. The cursor goes to the row `cursor_on` when it is there, at once or
        when its slice arrives (unless the cursor was moved meanwhile)."""
        row_keys: Sequence[str | None] = [None] * len(rows) if keys is None else keys
        pairs = list(zip(rows, row_keys, strict=True))
        fill = self._fills
        self._add_slice(pairs[:FIRST_ROWS])
        self._cursor_after = None
        self.keep_cursor_on(cursor_on)
        self._to_come = pairs[FIRST_ROWS:]
        if not self._to_come:
            return
        if cursor_on is not None and any(key == cursor_on for _row, key in self._to_come):
            self._cursor_after = (cursor_on, self.cursor_coordinate)

        def next_slice() -> None:
            if fill != self._fills or not self.is_attached or not self._to_come:
                return
            self._add_next_slice()
            if self._to_come:
                self.call_after_refresh(next_slice)

        self.call_after_refresh(next_slice)

    def _add_next_slice(self) -> None:
        """Add the next `SLICE_ROWS` rows of the fill under way; the cursor follows its row or the end."""
        self._add_slice(self._to_come[:SLICE_ROWS])
        del self._to_come[:SLICE_ROWS]
        if self._cursor_after is not None:
            key, stood = self._cursor_after
            if self.cursor_coordinate != stood:
                self._cursor_after = None  # moved meanwhile: left where it was put
            elif self.keep_cursor_on(key):
                self._cursor_after = None
        if self._to_end:
            self.to_last_row()

    def _rows_until(self, count: int) -> None:
        """Add the fill's next slices now, until the table holds `count` rows (or every row): a key that moves
        past the rows added so far (down, page down) lands where it would on the whole table."""
        while self._to_come and self.row_count < count:
            self._add_next_slice()

    def _add_slice(self, pairs: Sequence[tuple[Sequence[Any], str | None]]) -> None:
        for row, key in pairs:
            self.add_row(*row, key=key)

    @property
    def filling(self) -> bool:
        """True while rows of a fill are still to be added."""
        return bool(self._to_come)

    def action_cursor_down(self) -> None:
        self._rows_until(self.cursor_row + 2)
        super().action_cursor_down()

    def action_page_down(self) -> None:
        self._rows_until(self.cursor_row + self.scrollable_content_region.height + 1)
        super().action_page_down()

    def action_scroll_bottom(self) -> None:
        """ctrl+end: the last row (`to_last_row`)."""
        self.to_last_row()

    def to_last_row(self) -> None:
        """The cursor to the last row, and to the true last one as the rows still to come arrive (unless a
        key moves it meanwhile): a key that goes to the last row never stops at the last row added so far."""
        super().action_scroll_bottom()
        self._to_end = self.filling

    def add_column(self, label: Any, **kwargs: Any) -> Any:
        """A `str` title is plain text too: DataTable would read it as Rich markup, whose emoji codes load Rich's
        table of 3,600 emoji names (~0.6 MB a seat would keep for a few column titles)."""
        return super().add_column(Text(label) if isinstance(label, str) else label, **kwargs)

    @property
    def kept_keys(self) -> list[str]:
        """The keys kept until the rows arrive (for tests and the curious)."""
        return list(self._kept)

    @property
    def awaiting_rows(self) -> bool:
        return self._awaited is not None

    def expect_rows(self, *, replace: bool = False) -> int:
        """Rows are being loaded (`replace`: other rows than those shown): keep the cursor keys and Enter until
        `rows_arrived(token)` with the token returned. Call it when the load is asked for (a key, a field's
        change), not only when its worker starts: a key typed in between would act on the rows going away.
        The latest load asked for wins; an older one finishing (or cancelled) releases nothing."""
        self._token += 1
        self._replace = replace or (self._awaited is not None and self._replace)
        self._awaited = self._token
        return self._token

    def rows_arrived(self, token: int | None = None) -> None:
        """The load `token` is over (rows or not): replay the keys kept, in order, on what the table now shows.
        Nothing happens for a load older than the latest asked for."""
        if token is not None and token != self._awaited:
            return
        self._awaited = None
        self._replace = False
        if self._wants_focus and self.screen.focused is None and self.focusable:
            self.screen.set_focus(self)
        self._wants_focus = False
        kept, self._kept = self._kept, []
        for key in kept:
            self._press(key)

    def _press(self, key: str) -> None:
        """Do now what `key` does on the table (its binding's action), after what is already queued."""
        for binding in self._bindings.key_to_bindings.get(key, []):
            self.call_later(self.run_action, binding.action)
            return

    def take_focus(self) -> None:
        """Take the cursor now. A table showing its loading indicator cannot: then nothing has it (the keys
        typed meanwhile reach the screen, which hands them to `take_key`) until the rows arrive."""
        if self.focusable:
            self.screen.set_focus(self)
        else:
            self.screen.set_focus(None)
            self._wants_focus = True

    def _keeps(self, key: str) -> bool:
        return (
            self._awaited is not None
            and key in KEPT_KEYS
            and (self._replace or self.row_count == 0 or self.loading)
        )

    async def _on_key(self, event: events.Key) -> None:
        self._to_end = False  # another key: the last row is no longer followed (ctrl+end sets it again)
        if self._keeps(event.key):
            self._kept.append(event.key)
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def take_key(self, event: events.Key) -> bool:
        """A key that reached the screen before the table had the focus (just after the screen was opened):
        the table takes it (kept, or handled now) and the focus. False for a key that is not the table's."""
        if event.key not in KEPT_KEYS:
            return False
        event.stop()
        event.prevent_default()
        self.take_focus()
        if self._keeps(event.key):
            self._kept.append(event.key)
        else:
            self._press(event.key)
        return True

    def cursor_key(self) -> str | None:
        """The key of the row under the cursor (None on an empty table)."""
        if not self.row_count or not 0 <= self.cursor_row < self.row_count:
            return None
        key = self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0)).row_key.value
        return None if key is None else str(key)

    def keep_cursor_on(self, key: str | None) -> bool:
        """Put the cursor back on the row `key` if the table (filled again) holds it; whether it does."""
        if key is None:
            return False
        try:
            row = self.get_row_index(key)
        except RowDoesNotExist:  # that row is gone: the cursor stays where the new rows put it
            return False
        self.move_cursor(row=row, animate=False)
        return True


NAME_CELLS = 20
"""The most cells a column of names takes in a list: a name may be 50 wide characters (100 cells), and one
such name pushed every other column of the list off an 80-column screen. Longer names are cut with "…"."""


def fit_cell(cell: Text, cells: int) -> Text:
    """`cell` as is when it takes at most `cells` cells, else a copy cut to them with "…"."""
    if cell.cell_len <= cells:
        return cell
    cut = cell.copy()
    cut.truncate(cells, overflow="ellipsis")
    return cut


@dataclass(frozen=True)
class Room:
    """What a table's columns are fitted to: its width (the screen's before the first layout), the padding
    each side of a cell, the vertical scrollbar's width. Read on the loop (`room_of`); a fill can then be
    worked out in a thread (`table_fill`)."""

    width: int
    padding: int
    scrollbar: int


def room_of(table: DataTable) -> Room:
    """The room `table` gives its columns now."""
    width = table.size.width or table.screen.size.width or table.app.size.width
    return Room(width, table.cell_padding, table.styles.scrollbar_size_vertical)


def room_left(
    room: Room,
    specs: Sequence[tuple[str, str | Text]],
    rows: Sequence[Sequence[Text]],
    key: str,
    widths: Mapping[str, int],
) -> int:
    """The cells column `key` can take in `room`: its width less the other columns, as wide as their widest
    cell or as given, their padding and the scrollbar."""
    others = 0
    for index, (column, title) in enumerate(specs):
        if column != key:
            widest = max(
                [
                    cell_len(title) if isinstance(title, str) else title.cell_len,
                    *(r[index].cell_len for r in rows),
                ]
            )
            others += widths.get(column, widest)
    return room.width - others - 2 * room.padding * len(specs) - room.scrollbar - 1


def room_for(
    table: DataTable,
    specs: Sequence[tuple[str, str | Text]],
    rows: Sequence[Sequence[Text]],
    key: str,
    widths: Mapping[str, int],
) -> int:
    """The cells column `key` can take in `table` now (`room_left` of `room_of(table)`)."""
    return room_left(room_of(table), specs, rows, key, widths)


@dataclass(frozen=True)
class TableFill:
    """A fill of a table worked out (`table_fill`: in a thread for a long list), put in it by `put_fill`."""

    specs: list[tuple[str, str | Text]]
    cells: list[list[Any]]
    keys: Sequence[str] | None
    widths: list[int]
    """Each column's width: as given, else as wide as its widest cell or its title."""


def table_fill(
    room: Room,
    columns: Sequence[str | tuple[str, str | Text]],
    rows: Sequence[Sequence[Text | str]],
    keys: Sequence[str] | None = None,
    *,
    min_widths: Sequence[int] | None = None,
    widths: Mapping[str, int] | None = None,
    caps: Mapping[str, int] | None = None,
    fit: str | None = None,
) -> TableFill:
    """What `fill_table` puts in a table of `room` (see there for the arguments): the cells made plain and
    cut, each column's width. No widget is touched: a long list (a season's 500 standings) is worked out in
    a thread, and only `put_fill` runs on the loop."""
    specs = [(c, c) if isinstance(c, str) else c for c in columns]
    cells_of = [[one_line_cell(c) for c in row] for row in rows]
    caps = dict(caps or {})
    if fit is not None:
        caps[fit] = max(NAME_CELLS, room_left(room, specs, cells_of, fit, widths or {}))
    if caps:
        most = [caps.get(key) for key, _ in specs]
        cells_of = [
            [c if m is None else fit_cell(c, m) for c, m in zip(row, most, strict=True)] for row in cells_of
        ]
    measured = [cell_len(title) if isinstance(title, str) else title.cell_len for _, title in specs]
    for row in cells_of:
        for i, cell in enumerate(row):
            measured[i] = max(measured[i], cell.cell_len)
    if min_widths:
        measured = [max(w, m) for w, m in zip(measured, min_widths, strict=True)]
    given = widths or {}
    final = [given.get(key, width) for (key, _title), width in zip(specs, measured, strict=True)]
    return TableFill(specs, cells_of, keys, final)


def put_fill(table: DataTable, fill: TableFill) -> None:
    """Replace the table's columns and rows by `fill`'s; the cursor stays on its row when the new rows still
    hold it (by key)."""
    was_on = table.cursor_key() if isinstance(table, TextTable) else None
    table.clear(columns=True)
    for (key, title), width in zip(fill.specs, fill.widths, strict=True):
        table.add_column(title, key=key, width=width)
    if isinstance(table, TextTable):
        table.fill_rows(fill.cells, fill.keys, cursor_on=was_on)
        return
    row_keys: Sequence[str | None] = [None] * len(fill.cells) if fill.keys is None else fill.keys
    for row, row_key in zip(fill.cells, row_keys, strict=True):
        table.add_row(*row, key=row_key)


def fill_table(
    table: DataTable,
    columns: Sequence[str | tuple[str, str | Text]],
    rows: Sequence[Sequence[Text | str]],
    keys: Sequence[str] | None = None,
    *,
    min_widths: Sequence[int] | None = None,
    widths: Mapping[str, int] | None = None,
    caps: Mapping[str, int] | None = None,
    fit: str | None = None,
) -> None:
    """Replace the table's columns and rows, each column given its width at once: as wide as its widest cell
    (or its title), in terminal cells, never left to the table (which measures its columns only when next
    idle, so a screen drawn before that showed each column as wide as its title: "Tick", "Wing").

    A column is its title (also its key) or a (key, title) pair; a title is ours, a `str` or a `Text`. A `str`
    cell is shown as plain, display-safe text (as `TextTable.add_row` shows it) and measured so. `keys`: the
    rows' keys (None: rows without keys, e.g. one match listed twice); `min_widths`: a least width for each
    column; `widths`: a width of its own for some columns, by key, not measured (a narrow screen's cap: the
    caller cuts those cells to it); `caps`: the most cells some columns take, by key, their longer cells cut
    with "…" (`NAME_CELLS` for names); `fit`: the key of a column (of names) that takes at most the room the
    others leave in the table's width, and never less than `NAME_CELLS`. The cursor stays on its row when the
    new rows still hold it (by key). In two parts for a long list: `table_fill` in a thread, `put_fill`."""
    fill = table_fill(
        room_of(table), columns, rows, keys, min_widths=min_widths, widths=widths, caps=caps, fit=fit
    )
    put_fill(table, fill)


def type_ahead(
    screen: Screen,
    event: events.Key,
    field: Input,
    submit: Callable[[], object] | None = None,
    field_key: str = "slash",
) -> bool:
    """Keys typed ahead on a list screen, in the order typed: `field_key` (/) moves the cursor to `field` at
    once (not after the keys already on their way, as a binding would); Enter in `field` runs `submit` at once
    (which moves the cursor on and says which rows to wait for) rather than through a message that keys typed
    next would overtake; and a printable key that reached the screen while `field` has the cursor (it was sent
    on before the cursor moved) is typed into it. Call from the screen's `on_key`; True when the key was
    taken."""
    focused = screen.focused
    if event.key == field_key and not isinstance(focused, Input):
        event.stop()
        event.prevent_default()
        screen.set_focus(field)
        return True
    if focused is field and event.key == "enter" and submit is not None:
        event.stop()
        event.prevent_default()
        submit()
        return True
    if focused is field and event.is_printable:
        event.stop()
        event.prevent_default()
        field.post_message(events.Key(event.key, event.character))
        return True
    return False


def list_screen_key(
    screen: Screen,
    event: events.Key,
    table: TextTable,
    field: Input | None = None,
    submit: Callable[[], object] | None = None,
) -> bool:
    """A list screen's `on_key`, the same on every list screen (games, players, rankings, matches): `/` and
    the text typed after it reach `field` (`type_ahead`, when the screen has a field), and a cursor key or
    Enter that reached the screen because nothing has the focus (the screen placing its focus, the table
    showing its loading indicator: Textual then gives keys to the screen) is the table's (`take_key`: kept
    until the rows arrive, or done now). True when the key was taken."""
    if field is not None and type_ahead(screen, event, field, submit):
        return True
    focused = screen.focused
    if focused is None or focused.loading:
        return table.take_key(event)
    return False
