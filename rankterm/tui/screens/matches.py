"""Matches (mode "matches"): the recorded matches of a subset, newest first, a page at a time.

A subset picker (main first, then one per game) and the pager ("page n of N · 300 matches"); the table: number,
date (in the seat's time zone, named in its header: "Date (Auckland)"), game, weight, summary (the sides in
rank order, on one line, a tie as "Ada = Ben": whole names, "+2" for those the width leaves no room for;
fitted again when the window is resized). Enter opens the match in
full (factions in rank order, players, points, the winner and any bot marked). x (or ctrl+e) asks whether a match with a given
external id exists.

The page is shown at once from the mirror when it holds it; shown again (or after F5, or a match sent from
this seat), the subsets, the held matches and the page are asked again and redrawn only if they changed;
offline, they come from the mirror (the status line says how old). While a first sync is still reading a
large group (within a share of the hourly call quota), the line above the table ends with how much of the
history this machine holds ("18,000 of 100,000 matches held · the rest within 3 hours").

Keys: [ / ] (or pageup / pagedown) previous / next page · Enter details · x or ctrl+e "does external id X
exist?" · F5 reload · s the subset picker · Escape back to the table. Closing a match's detail leaves the
cursor on that match (a page revalidated under it keeps the cursor on its row: the match, by id, even when a
match placed before it moved its number up). Everything loads in a worker; errors are one sentence on the line above the table.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Header, Static

from rankterm.tui.base import task
from rankterm.tui.held import matches_held
from rankterm.tui.screens.subset_paged import SubsetPagedScreen
from rankterm.tui.text import weight_text
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.pager import Pager
from rankterm.tui.widgets.subset_picker import SubsetPicker, subset_title
from rankterm.tui.widgets.text_table import NAME_CELLS, TextTable, fill_table, fit_cell, room_for
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import Match, MatchesPage
from rankterm.wire.result_line import PLACE_SEP, TIE_SEP, places, result_line

RANK_SEP = PLACE_SEP
"""A single right-pointing angle quote between places: the better place first (ties share one: " = ")."""
COLUMNS = ("No.", "Date", "Game", "Weight", "Summary")
MIN_SUMMARY = 16
"""The summary column gets what the table's width leaves it, but never less than this."""
PAGE_ROWS = 25
"""Rows of a page (the service's page size): what is shown from the mirror before the first answer."""


def summary_parts(match: Match) -> list[list[str]]:
    """The sides of the match by place, the best first (`result_line.places`: from its factions)."""
    return places(match)


def one_line_summary(match: Match) -> str:
    """The match's sides on one line, places joined by `RANK_SEP`, ties by " = "."""
    return result_line(match)


def fit_summary(parts: Sequence[str | Sequence[str]], room: int) -> str:
    """The places joined by `RANK_SEP` (a place is one side, or the sides that tied, joined by " = "), as
    many whole sides as fit in `room` cells and "+N" for the others: a name is never cut, unless the first
    alone is too long (then "…")."""
    sides: list[str] = []
    for place in parts:
        for n, side in enumerate([place] if isinstance(place, str) else place):
            sides.append(side if not sides else (TIE_SEP if n else RANK_SEP) + side)
    whole = "".join(sides)
    if Text(whole).cell_len <= room or not sides:
        return whole
    for shown in range(len(sides) - 1, 0, -1):
        text = f"{''.join(sides[:shown])} +{len(sides) - shown}"
        if Text(text).cell_len <= room:
            return text
    first = Text(sides[0])
    first.truncate(room, overflow="ellipsis")
    return first.plain


def row_key(match: Match) -> str:
    """A match's row: its id, which a match placed before it does not change (its number moves up)."""
    return f"id:{match.id}" if match.id else f"no:{match.number}"


class MatchesScreen(SubsetPagedScreen):
    """Recorded matches, by subset, paged."""

    PREFIX = "matches"
    INFO = "#matches-info"
    NO_COPY = "Offline: no copy of these matches here; they come when the service is back."

    DEFAULT_CSS = """
    MatchesScreen #matches-controls {
        height: 1;
        padding: 0 1;
    }
    MatchesScreen Pager {
        dock: right;
    }
    MatchesScreen #matches-info {
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    MatchesScreen #matches-info.-error {
        color: $text-error;
    }
    MatchesScreen #matches-table {
        height: 1fr;
    }
    """

    AUTO_FOCUS = "#matches-table"

    BINDINGS = [
        Binding("x,ctrl+e", "ask_exists", "Ext. id?", key_display="x"),
        Binding("f5", "reload", "Reload"),
        Binding("s", "focus_subset", "Subset", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.page_data: MatchesPage | None = None
        self._shown_page: object = None
        self._filled_width = 0
        self._syncing = False

    def on_resize(self) -> None:
        """A wider or narrower window: the summaries are fitted again to the room they have."""
        if self.page_data is not None and self.table.size.width != self._filled_width:
            self._fill(self.page_data)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="matches-controls"):
            yield SubsetPicker(id="matches-subset")
            yield Pager("matches", one="match", id="matches-pager")
        yield Static("Loading the matches…", id="matches-info", markup=False)
        yield TextTable(id="matches-table", cursor_type="row", zebra_stripes=True, await_first_rows=True)
        yield KeyFooter()

    async def _revalidate(self) -> None:
        """The mirror's matches brought up to date beside the page, not before it: the first read of a large
        group's matches takes a while (100,000 matches are 4,000 pages), and the page is one request."""
        if not self._syncing:
            self._syncing = True
            self.sync_held()

    @task(group="matches-sync", exclusive=False)
    async def sync_held(self) -> None:
        """The mirror's matches brought up to date (one request when nothing is new), so that they can be
        shown at once next time and offline; unreachable, what it holds stays."""
        try:
            with contextlib.suppress(RanktermError):  # the page read says why (or comes from the mirror)
                await self.group.sync_matches()
                info = self.query_one(self.INFO, Static)
                if self.page_data is not None and not (
                    info.has_class("-error") or info.has_class("-warning")
                ):
                    self._say_summary(self.page_data)  # what is held now
        finally:
            self._syncing = False

    def show_held(self) -> None:
        self._show_held(1)

    def _show_held(self, page: int) -> None:
        """Before the first answer: the page as the mirror holds it (no request), if it holds any, and the pages
        the held subset counts (a slow or unreachable service answers late: "page 1 of 1" meanwhile would not
        be true)."""
        subset = self.picker.subset
        if self.page_data is not None or subset is None:
            return
        held = self.group.cached_matches(subset=subset.id, offset=(page - 1) * PAGE_ROWS, limit=PAGE_ROWS)
        if held:
            total = max(subset.count_matches, (page - 1) * PAGE_ROWS + len(held))
            pages = max(page, math.ceil(total / PAGE_ROWS))
            self.pager.show(page, pages, total)
            self._fill(MatchesPage(page=page, total_pages=pages, rows_for_page=PAGE_ROWS, data=held))

    async def _load(self, page: int) -> None:
        table = self.table
        self._show_held(page)
        table.loading = self.page_data is None and not table.row_count
        try:
            data = await self.group.matches_page(page, subset=self.picker.subset_id)
        except RanktermError as exc:
            self.say_failed(exc)
            return
        finally:
            table.loading = False
        shown = (data, self.picker.value)
        if shown == self._shown_page:
            return  # nothing changed: no redraw
        self._shown_page = shown
        self.page_data = data
        self.pager.show(data.page, data.total_pages, data.total)
        self._fill(data)

    def _fill(self, data: MatchesPage) -> None:
        table = self.table
        width = table.size.width or self.size.width or self.app.size.width  # before the first layout too
        game_cells = max(NAME_CELLS, width - 80 + NAME_CELLS)  # at 80 columns, the summary keeps its room
        zone = shown_zone(self)
        rows = [
            [
                Text(str(match.number)),
                Text(zone.show(match.date)),
                fit_cell(Text(match.game.name if match.game else ""), game_cells),
                Text(weight_text(match.weight_label, match.weight)),
            ]
            for match in data.data
        ]
        specs = [(c, zone.heading(c) if c == "Date" else c) for c in COLUMNS]
        room = max(MIN_SUMMARY, room_for(table, specs, [[*row, Text()] for row in rows], "Summary", {}))
        self._filled_width = width
        cells = [
            [*row, Text(fit_summary(summary_parts(match), room))]
            for row, match in zip(rows, data.data, strict=True)
        ]
        fill_table(table, specs, cells, [row_key(m) for m in data.data])
        self._say_summary(data)

    def _say_summary(self, data: MatchesPage) -> None:
        """The line above the table: the page's matches, and how much of the history this machine holds while
        a first sync is still reading it (`matches_held`)."""
        subset = self.picker.subset
        name = subset_title(subset) if subset else "Main"
        held = matches_held(self.group) if self.has_client else ""
        if not data.data:
            self.say(f"{name}: no match on this page." + (f" {held}." if held else ""))
        else:
            first, last = data.data[0], data.data[-1]
            line = f"{name} · matches {first.number} to {last.number}, newest first · Enter shows one"
            self.say(line + (f" · {held}" if held else ""))

    # ------------------------------------------------------------------ events and keys

    def action_focus_subset(self) -> None:
        self.set_focus(self.picker)  # now: the next key typed goes there

    def action_ask_exists(self) -> None:
        if not self.has_client:
            return
        from rankterm.tui.dialogs.match_exists import MatchExistsDialog

        self.app.push_screen(MatchExistsDialog(self.client.match_exists))

    def selected_match(self) -> Match | None:
        data = self.page_data
        row = self.table.cursor_row
        if data is None or not data.data or row is None or not 0 <= row < len(data.data):
            return None
        return data.data[row]

    @on(DataTable.RowSelected, "#matches-table")
    def _open_match(self, event: DataTable.RowSelected) -> None:
        data = self.page_data
        if data is None:
            return
        match = next((m for m in data.data if row_key(m) == event.row_key.value), None)
        if match is not None:
            from rankterm.tui.dialogs.match_detail import MatchDetailScreen

            self.app.push_screen(MatchDetailScreen(match))
