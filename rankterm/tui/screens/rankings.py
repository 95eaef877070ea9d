"""Rankings (mode "rankings"): the standings of a subset after any match, a page at a time.

A subset picker (main first, then one per game), a match-number field ("last", or the number of a match: the
standings right after it), and the pager ("page n of N"). The table: position, its change (▲ up in the
success colour, ▼ down in the error colour, a dash for none, "new" for a player the match brought into the
standings), player, ree, its change, belt, title, status. Players of equal ree share a position
(`wire.standing`).
Enter on a player's row opens their recent matches in the chosen subset.

A period picker beside the subset picker: all time (the default: the service's standings, which a period
never changes), this month, this quarter, this year, the seasons the host names, each earlier year, quarter
and month back to the group's first match (from the subsets read: no match is read for the picker). A period's standings are those of a group that played only its matches
(`stats.seasons.season_standings`, everyone starting even), worked out from the held matches in a thread, in
the same columns (the changes, belt and title a dash: nothing came before; the status how many matches each
played in it); the line above the table names the period. A
match number typed with `/` goes back to all time: the standings after a match are the all-time ones.

Shown again (or after F5, or a match sent from this seat), the subsets and the page are asked again and the
table redrawn only if they changed; offline, both come from the mirror (the status line says how old).

Keys: [ / ] (or pageup / pagedown) previous / next page · Enter a player's recent matches · F5 reload ·
/ the match-number field (Enter applies it and gives the table the keys) · s the subset picker · t the period
picker · Escape back to the table. Keys typed before the standings arrive wait for them (`TextTable`). Everything loads in a worker; errors are one sentence on the line above the table.
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Label, Select, Static

from rankterm.stats.effect import match_effect, participants
from rankterm.stats.seasons import ALL_TIME, Period, Season
from rankterm.stats.source import sync_group
from rankterm.tui.periods import choices_of, game_of, period_standings
from rankterm.tui.screens.subset_paged import SubsetPagedScreen
from rankterm.tui.text import NONE, label_text
from rankterm.tui.warm import Opening
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.pager import Pager
from rankterm.tui.widgets.period_picker import PeriodPicker
from rankterm.tui.widgets.subset_picker import SubsetPicker, subset_title
from rankterm.tui.widgets.text_table import (
    Room,
    TableFill,
    TextTable,
    fill_table,
    put_fill,
    room_of,
    table_fill,
    type_ahead,
)
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import RankingRow, RankingsPage, Subset
from rankterm.wire.shown import ree, signed
from rankterm.wire.standing import shown_positions
from rankterm.wire.text import ascii_digits

COLUMNS = ("Pos", "Δ", "Player", "Ree", "ΔRee", "Belt", "Title", "Status")


def parse_match_number(text: str) -> int | None:
    """ "last" (or nothing) -> None; digits -> that match number; anything else -> ValueError."""
    value = text.strip().lower()
    if value in ("", "last"):
        return None
    if ascii_digits(value) and int(value) >= 1:
        return int(value)
    raise ValueError('Type a match number (digits only), or "last".')


def format_ree(value: float | int | None) -> str:
    return NONE if value is None else ree(value, 1)


def delta_cells(
    row: RankingRow, up: str = "green", down: str = "red", *, new: bool = False
) -> tuple[Text, Text]:
    """The Δposition and Δree cells: ▲2 / ▼1 / a dash, and +12.3 / -4.0 / a dash, in the colours given; for
    a player `new` to the standings with this match, "new" and a dash (the service's Δree is measured from
    the ree every newcomer starts at, not a change)."""
    if new:
        return Text("new", style=up), Text(NONE, style="dim")
    moved = row.delta_position or 0
    if moved > 0:
        position = Text(f"▲{moved}", style=up)
    elif moved < 0:
        position = Text(f"▼{-moved}", style=down)
    else:
        position = Text(NONE, style="dim")
    change = row.delta_ree or 0
    if change:
        return position, Text(signed(change, 1, minus="-", exact_sign=True), style=up if change > 0 else down)
    return position, Text(NONE, style="dim")


def period_words(period: Period) -> str:
    """A period as the line above the table names it: a calendar one by its name, a season the host names
    with its days ("Autumn league, 1 Sep to 30 Nov 2026")."""
    from datetime import timedelta

    from rankterm.stats.seasons import PeriodError, period_of

    try:
        period_of(period.name)
    except PeriodError:
        start, end = period.start, period.end
        last = end - timedelta(days=1) if end.time() == end.min.time() else end
        first = f"{start.day} {start:%b}" + ("" if start.year == last.year else f" {start.year}")
        return f"{period.name}, {first} to {last.day} {last:%b %Y}"
    return period.name


def season_fill(season: Season, room: Room) -> TableFill:
    """A period's standings as the table shows them (the changes, belt and title a dash: nothing came before;
    the status how many matches each played in it), worked out for a table of `room`."""
    dash = Text(NONE, style="dim")
    cells = [
        [
            Text(str(row.position)),
            dash,
            Text(row.name),
            Text(format_ree(row.ree)),
            dash,
            dash,
            dash,
            Text(f"{row.played} played"),
        ]
        for row in season.rows
    ]
    return table_fill(room, COLUMNS, cells, [row.player_id for row in season.rows], fit="Player")


class RankingsScreen(SubsetPagedScreen):
    """Standings, by subset and match number, paged."""

    PREFIX = "rank"
    INFO = "#rank-info"
    NO_COPY = "Offline: no copy of these standings here; they come when the service is back."

    DEFAULT_CSS = """
    RankingsScreen #rank-controls {
        height: 1;
        padding: 0 1;
    }
    RankingsScreen #rank-controls > Label {
        width: auto;
        margin: 0 1;
        color: $text-muted;
    }
    RankingsScreen #rank-subset {
        width: 22;
    }
    RankingsScreen #rank-period {
        width: 18;
    }
    RankingsScreen #rank-match {
        width: 8;
    }
    RankingsScreen #rank-match.-invalid {
        background: $error 25%;
    }
    RankingsScreen Pager {
        dock: right;
    }
    RankingsScreen #rank-info {
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    RankingsScreen #rank-info.-error {
        color: $text-error;
    }
    RankingsScreen #rank-table {
        height: 1fr;
    }
    """

    AUTO_FOCUS = "#rank-table"

    BINDINGS = [
        Binding("f5", "reload", "Reload"),
        Binding("slash", "focus_match", "Match no.", key_display="/"),
        Binding("s", "focus_subset", "Subset", show=False),
        Binding("t", "focus_period", "Period", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.page_data: RankingsPage | None = None
        self.match_number: int | None = None
        self._shown_page: object = None
        self.newcomers: frozenset[str] = frozenset()
        """Players of the page who entered the standings with the match they are after."""
        self.season: Season | None = None
        """The period's standings shown (None: the all-time standings are)."""
        self._period_key: object = ALL_TIME.key
        self.opening = Opening(self)
        """A player's page opened by Enter: its module imported in a thread the first time."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="rank-controls"):
            yield SubsetPicker(id="rank-subset")
            yield PeriodPicker(id="rank-period")
            yield Label("after")
            yield FormInput("last", id="rank-match", compact=True, max_length=9, restrict=r"[0-9A-Za-z]*")
            yield Pager("", id="rank-pager")
        yield Static("Loading the standings…", id="rank-info", markup=False)
        yield TextTable(id="rank-table", cursor_type="row", zebra_stripes=True, await_first_rows=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._retheme, init=False)

    def _retheme(self, _theme: str) -> None:
        """The ▲▼ colours come from the theme: paint the page again in the new one (no call)."""
        if self.season is not None:
            self._fill_season(self.season, self.picker.subset)
        elif self.page_data is not None:
            self._fill(self.page_data, self.picker.subset)

    @property
    def period_picker(self) -> PeriodPicker:
        return self.query_one("#rank-period", PeriodPicker)

    async def _revalidate(self) -> None:
        await self._revalidate_periods()

    async def _revalidate_periods(self) -> None:
        """The periods the picker offers (this month, the host's seasons, the past), from the subsets just
        read: no request, no match parsed."""
        self.period_picker.set_choices(choices_of(self, self.group))

    async def _load(self, page: int) -> None:
        period = self.period_picker.period
        if period is not None:
            await self._load_period(period)
            return
        self.season = None
        subset = self.picker.subset
        table = self.table
        table.loading = self.page_data is None  # a page already shown stays up while it is revalidated
        try:
            data = await self.group.rankings_page(page, subset=self.picker.subset_id, match=self.match_number)
        except RanktermError as exc:
            self.say_failed(exc)
            return
        finally:
            table.loading = False
        shown = (data, subset, self.match_number)
        if shown == self._shown_page:
            return  # nothing changed: no redraw
        self._shown_page = shown
        self.newcomers = await self._newcomers(data, self.picker.subset_id)
        self.page_data = data
        self.pager.show(data.page, data.total_pages)
        self._fill(data, subset)

    async def _newcomers(self, data: RankingsPage, subset_id: str | None) -> frozenset[str]:
        """The players of the page who played the match for the first time in this subset: only what the
        standings before it can tell (the match's effect; asked only when a player of the match on the page
        kept their position, as a newcomer's row says), none when they cannot be read."""
        match = data.match
        if match is None:
            return frozenset()
        played = set(participants(match))
        if not any(r.player.id in played and not r.delta_position for r in data.data):
            return frozenset()
        try:
            effect = await match_effect(self.group, match.number, subset_id, after=data)
        except RanktermError:
            return frozenset()
        return frozenset(p.player_id for p in effect.players if p.new)

    async def _load_period(self, period: Period) -> None:
        """A period's standings: the held matches brought up to date, then replayed from an even start."""
        subset = self.picker.subset
        try:
            game_id = game_of(subset)
        except ValueError as exc:
            self.say(str(exc), "error")
            return
        table = self.table
        table.loading = self.season is None
        try:
            await sync_group(self.group, max_age=0)
        except RanktermError:
            pass  # offline: the held matches stand (none held: an empty period, said as such)
        finally:
            table.loading = False
        room = room_of(table)
        season = await period_standings(self.group, period, shown_zone(self), game_id)
        shown = (season, subset)
        if shown == self._shown_page:
            return
        # a period of a big group has hundreds of players: their cells are made and measured in a thread
        fill = await asyncio.to_thread(season_fill, season, room)
        self._shown_page = shown
        self.season = season
        self.pager.show(1, 1)
        self._fill_season(season, subset, fill)

    def _fill_season(self, season: Season, subset: Subset | None, fill: TableFill | None = None) -> None:
        put_fill(self.table, fill or season_fill(season, room_of(self.table)))
        name = subset_title(subset) if subset else "Main"
        period = season.period
        plural = "" if season.matches == 1 else "es"
        if not season.rows:
            self.say(f"{name} · {period_words(period)}: no match in it.")
            return
        self.say(f"{name} · {period_words(period)} · from an even start · {season.matches} match{plural}")

    def _fill(self, data: RankingsPage, subset: Subset | None) -> None:
        colours = self.app.get_css_variables()
        up, down = colours.get("text-success", "green"), colours.get("text-error", "red")
        positions = shown_positions(data.data)
        cells = []
        for row in data.data:
            moved, change = delta_cells(row, up, down, new=row.player.id in self.newcomers)
            cells.append(
                [
                    Text(str(positions[row.player.id])),
                    moved,
                    Text(row.player.label),
                    Text(format_ree(row.ree)),
                    change,
                    Text(label_text(row.belt_label, row.belt)),
                    Text(label_text(row.title_label, row.title)),
                    Text(label_text(row.status_label, row.status)),
                ]
            )
        fill_table(self.table, COLUMNS, cells, [r.player.id for r in data.data], fit="Player")
        shown = data.subset or subset
        name = subset_title(shown) if shown else "Main"
        if data.match is None or not data.data:
            asked = f"match {self.match_number}" if self.match_number else "the last match"
            self.say(f"{name}: no standings yet after {asked}.")
            return
        zone = shown_zone(self)
        when = f"{zone.show(data.match.date)} ({zone.label})"
        last = " (latest)" if self.match_number is None else ""
        # A rankings page carries no count of its own (WIRE.md): the subset's count holds for the latest
        # standings; after an earlier match, the count up to it is not known, so none is shown.
        count = data.total or (shown.count_matches if shown and self.match_number is None else 0)
        counted = f" · {count} match{'' if count == 1 else 'es'}" if count else ""
        self.say(f"{name} · after match {data.match.number}{last} · {when}{counted}")

    # ------------------------------------------------------------------ events and keys

    @on(Input.Submitted, "#rank-match")
    def _match_submitted(self, _event: Input.Submitted | None = None) -> None:
        """Enter in the match-number field: the standings after that match, and the table takes the keys."""
        field = self.query_one("#rank-match", Input)
        try:
            number = parse_match_number(field.value)
        except ValueError as exc:
            field.add_class("-invalid")
            self.say(str(exc), "error")
            return
        field.remove_class("-invalid")
        if self.period_picker.period is not None:  # the standings after a match are the all-time ones
            self._period_key = ALL_TIME.key
            self.period_picker.value = ALL_TIME.key
        if number is None and field.value.strip().lower() != "last":
            field.value = "last"
        self.match_number = number
        self.pager.show(1, 1)
        self.table.expect_rows(replace=True)  # keys typed right after Enter wait for these standings
        self.load_page(1)
        self.table.take_focus()  # now: the next key typed goes there

    @on(Input.Changed, "#rank-match")
    def _match_typing(self, event: Input.Changed) -> None:
        if "last".startswith(event.value.strip().lower()):
            return  # on the way to "last" (or empty): judged on Enter
        try:
            parse_match_number(event.value)
        except ValueError as exc:
            event.input.add_class("-invalid")
            self.say(str(exc), "error")
        else:
            if event.input.has_class("-invalid"):
                event.input.remove_class("-invalid")
                self.say("Enter shows the standings after that match.")

    def on_key(self, event: events.Key) -> None:
        """`/` and the digits typed right after it reach the match-number field, however fast."""
        if not type_ahead(self, event, self.query_one("#rank-match", Input), self._match_submitted):
            super().on_key(event)

    def action_focus_match(self) -> None:
        self.set_focus(self.query_one("#rank-match", Input))

    def action_focus_subset(self) -> None:
        self.set_focus(self.picker)

    def action_focus_period(self) -> None:
        self.set_focus(self.period_picker)

    @on(Select.Changed, "#rank-period")
    def _period_changed(self, event: Select.Changed) -> None:
        if event.value == self._period_key or event.value is Select.NULL:
            return  # the one shown (its first value, or the options offered again)
        self._period_key = event.value
        self.pager.show(1, 1)
        self.table.expect_rows(replace=True)
        self.load_page(1)

    @on(DataTable.RowSelected, "#rank-table")
    def _open_player(self, event: DataTable.RowSelected) -> None:
        if not self.has_client:
            return
        player_id = event.row_key.value
        if self.season is not None:
            held = next((r.player for r in self.season.rows if r.player_id == player_id), None)
        else:
            data = self.page_data
            row = next((r for r in data.data if r.player.id == player_id), None) if data else None
            held = row.player if row is not None else None
        if held is None:
            return

        def page() -> Screen[None]:
            # here: it imports the charts, which a page of standings does not need
            from rankterm.tui.screens.stats.player_page import PlayerPageScreen

            return PlayerPageScreen(held)

        self.opening.open("rankterm.tui.screens.stats.player_page", page)

    def holds_keys(self) -> bool:
        """Keys wait while a player's page is imported to be opened (`warm.Opening`)."""
        return self.opening.holds_keys()
