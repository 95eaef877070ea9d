"""`ListScreen`: the base of the screens that list the group's games and players. A field above a table (the
games' search, the players' filter), the caption line the screen says things on, the table itself, and the
keys they share: `/` to the field, Enter in it back to the table, keys typed before the rows arrive kept for
them (`TextTable`, `list_screen_key`). Subclasses name their ids and field, and load what they list.
See docs/design/tui.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Header, Input, Label, Static

from rankterm.tui.base import RanktermScreen
from rankterm.tui.text import plain
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.text_table import TextTable, list_screen_key

__all__ = ["ListScreen"]


class ListScreen(RanktermScreen):
    """A list of the group's: `#<NAME>-<FIELD>` above `#<NAME>-caption` and `#<NAME>-table`."""

    NAME: ClassVar[str]
    """The ids' prefix ("games", "players")."""
    FIELD: ClassVar[str]
    """What the field above the table is ("search", "filter"): its id is `#<NAME>-<FIELD>`."""
    FIELD_LABEL: ClassVar[str]
    """The field's label ("Search (/)")."""
    PLACEHOLDER: ClassVar[str] = ""
    """What the empty field says it looks through."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id=f"{self.NAME}-bar"):
            yield Label(plain(self.FIELD_LABEL))
            yield FormInput(placeholder=self.PLACEHOLDER, id=f"{self.NAME}-{self.FIELD}", compact=True)
        yield Static("", id=f"{self.NAME}-caption")
        yield TextTable(id=f"{self.NAME}-table", cursor_type="row", zebra_stripes=True, await_first_rows=True)
        yield KeyFooter()

    @property
    def table(self) -> TextTable:
        return self.query_one(f"#{self.NAME}-table", TextTable)

    @property
    def field(self) -> Input:
        """The search or filter field above the table."""
        return self.query_one(f"#{self.NAME}-{self.FIELD}", Input)

    @property
    def field_text(self) -> str:
        return self.field.value.strip()

    @contextmanager
    def rows_coming(self, *, replace: bool) -> Iterator[TextTable]:
        """The table, told that rows are on their way (`replace`: other rows than those shown): keys typed
        meanwhile wait for them, also when the load is cancelled by a newer one."""
        table = self.table
        token = table.expect_rows(replace=replace)
        try:
            yield table
        finally:
            table.rows_arrived(token)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == f"{self.NAME}-{self.FIELD}":
            self.field_submitted()

    def field_submitted(self) -> None:
        """Enter in the field (or typed after `/` before it had the focus): the table takes the focus now, so
        that the next key typed goes there."""
        self.table.take_focus()

    def on_key(self, event: events.Key) -> None:
        """`/` and the text after it reach the field; a cursor key or Enter typed while nothing has the focus
        is the table's (`list_screen_key`)."""
        list_screen_key(self, event, self.table, self.field, self.field_submitted)

    def focus_field(self) -> None:
        self.set_focus(self.field)
