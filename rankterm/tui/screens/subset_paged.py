"""`SubsetPagedScreen`: what the rankings and matches screens share: a subset picker, a pager, a table.

The subclass names its widgets' id prefix (`PREFIX`: "#<prefix>-table", "-subset", "-pager"; its `INFO` line
is "#<prefix>-info") and loads one page in `_load(page)` (redrawing only when the page changed); the base
shows the subsets the mirror holds at once, revalidates them and the page shown whenever the screen is shown
again, on F5 and when the group changes (`reload`), and turns a subset change or a page key into a page load,
one at a time. `_revalidate()` is the subclass's hook to bring its mirror up to date (before the page is read,
or beside it in a worker of its own).
"""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.binding import Binding
from textual.widgets import Select

from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.text import error_sentence
from rankterm.tui.widgets.pager import Pager
from rankterm.tui.widgets.subset_picker import SubsetPicker
from rankterm.tui.widgets.text_table import TextTable, list_screen_key
from rankterm.wire.errors import Offline, RanktermError

PAGES = Binding.Group("Pages")
"""[ and ] read as one item in the footer: "[ ] Pages"."""


class SubsetPagedScreen(RanktermScreen):
    """Base of the screens that page through one subset of the group."""

    PREFIX: ClassVar[str] = ""
    NO_COPY: ClassVar[str] = "Offline: no copy of this list here; it comes when the service is back."
    """Said when the service cannot be reached and the mirror holds nothing to show instead (the list comes
    by itself when the service answers again: the app's live probe then says the group changed)."""

    BINDINGS: ClassVar = [
        Binding("left_square_bracket", "page(-1)", "Prev page", key_display="[", group=PAGES),
        Binding("right_square_bracket", "page(1)", "Next page", key_display="]", group=PAGES),
        Binding("pageup", "page(-1)", "Prev page", show=False, priority=True),
        Binding("pagedown", "page(1)", "Next page", show=False, priority=True),
        Binding("escape", "to_table", "Back to the table", show=False),  # then a letter is a screen key
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._shown_subset: object = None

    def on_mount(self) -> None:
        """The subsets the mirror holds, at once (no request); `reload` revalidates them when shown."""
        if self.has_client:
            held = self.group.cached_subsets()
            if held:
                self.picker.set_subsets(held)
                self._shown_subset = self.picker.value
                self.show_held()

    def show_held(self) -> None:
        """Show at once what the mirror holds of the first page, if the subclass can (no request); default:
        nothing (the page comes with its read)."""

    def on_screen_resume(self) -> None:
        self.reload()

    def reload_data(self) -> None:
        self.reload()

    # ------------------------------------------------------------------ parts

    @property
    def table(self) -> TextTable:
        return self.query_one(f"#{self.PREFIX}-table", TextTable)

    @property
    def picker(self) -> SubsetPicker:
        return self.query_one(f"#{self.PREFIX}-subset", SubsetPicker)

    @property
    def pager(self) -> Pager:
        return self.query_one(f"#{self.PREFIX}-pager", Pager)

    # ------------------------------------------------------------------ loading

    def say_failed(self, exc: RanktermError) -> None:
        """A read failed: offline (the mirror had nothing either), `NO_COPY`; else the error's own sentence."""
        if isinstance(exc, Offline):
            self.say(self.NO_COPY, "warning")
        else:
            self.say(error_sentence(exc), "error")

    @task(group="subset-page")
    async def reload(self) -> None:
        """Subsets asked of the service (their counts may have changed), then the page shown; offline, both
        come from the mirror and the status line says how old they are."""
        if not self.has_client:
            return
        token = self.table.expect_rows()  # keys typed before the rows are kept for them (TextTable)
        try:
            try:
                subsets = await self.group.subsets(refresh=True)
            except RanktermError as exc:
                self.say_failed(exc)
                self.note_freshness()
                return
            keep = self.picker.value if isinstance(self.picker.value, str) else None
            self.picker.set_subsets(subsets, keep=keep)
            self._shown_subset = self.picker.value
            await self._revalidate()
            await self._load(self.pager.page)
            self.note_freshness()
        finally:
            self.table.rows_arrived(token)

    @task(group="subset-page")
    async def load_page(self, page: int) -> None:
        token = self.table.expect_rows(replace=True)
        try:
            await self._load(page)
            self.note_freshness()
        finally:
            self.table.rows_arrived(token)

    async def _revalidate(self) -> None:
        """Bring what the mirror holds for this screen up to date, before the page is read or (started in a
        worker of its own) beside it; default: nothing."""

    async def _load(self, page: int) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ events and keys

    @on(Select.Changed)
    def _subset_changed(self, event: Select.Changed) -> None:
        if event.select is not self.picker or event.value == self._shown_subset or event.value is Select.NULL:
            return
        self._shown_subset = event.value
        self.pager.show(1, 1)
        self.table.expect_rows(replace=True)
        self.load_page(1)

    @on(Pager.Changed)
    def _page_changed(self, event: Pager.Changed) -> None:
        self.load_page(event.page)

    def on_key(self, event: events.Key) -> None:
        """A cursor key or Enter typed while nothing has the focus is the table's (`list_screen_key`)."""
        list_screen_key(self, event, self.table)

    def action_page(self, step: int) -> None:
        if self.pager.go_to(self.pager.page + step):
            self.table.expect_rows(replace=True)  # keys typed right after ] wait for the new page

    def action_to_table(self) -> None:
        """Leave the field or picker the cursor is in (Escape): the table takes the keys again."""
        self.table.take_focus()  # now: the next key typed goes there

    def action_reload(self) -> None:
        self.reload()
