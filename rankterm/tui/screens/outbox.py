"""Outbox (mode "outbox"): every match submitted from this app, and where it stands.

An entry is pending (on disk, not yet confirmed by the service; "in doubt" when a send got no answer: the
service is asked before it is sent again), sent, or rejected (with the service's reason). A rejected entry
can be edited in the match form and sent again under the same external id, retried as it is, or discarded.

Keys: enter / e edit in the match form · ctrl+r retry (rejected -> pending) · s send pending now (also lifts
a quota pause) · delete / x discard · F5 reload.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Static

from rankterm.api.outbox import Entry, State
from rankterm.tui.base import RanktermScreen
from rankterm.tui.widgets.text_table import TextTable

STATE_STYLE = {State.PENDING: "yellow", State.SENT: "green", State.REJECTED: "red"}


class OutboxScreen(RanktermScreen):
    """The outbox's entries, newest last, with their state and reason."""

    AUTO_FOCUS = "#outbox-table"

    DEFAULT_CSS = """
    OutboxScreen #outbox-caption { height: auto; padding: 0 1; margin: 1 0 0 0; color: $text-muted; }
    OutboxScreen #outbox-table { height: 1fr; margin: 0 1; }
    """

    BINDINGS = [
        Binding("enter,e", "edit", "Edit"),
        Binding("ctrl+r", "retry", "Retry"),
        Binding("s", "send_now", "Send now"),
        Binding("delete,x", "discard", "Discard"),
        Binding("f5", "reload", "Reload"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: list[Entry] = []
        self._names: dict[str, str] = {}
        self._games: dict[int, str] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="outbox-caption", markup=False)
        table = TextTable(id="outbox-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("State", "External id", "Game", "Sides (by rank)", "Tries", "Reason")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Outbox"
        self.watch(self.app, "outbox_counts", lambda _: self.show(), init=False)
        self.load_names()

    def on_screen_resume(self) -> None:
        self.show()

    @property
    def runner(self):
        return getattr(self.app, "outbox_runner", None)

    @work(exclusive=True, group="outbox-names")
    async def load_names(self) -> None:
        """Player and game names for the table (cached lists: usually no call). Ids stand in when offline."""
        try:
            self._names = {p.id: p.label for p in await self.client.players()}
            self._games = {g.id: g.name for g in await self.client.games()}
        except Exception:  # offline is the outbox's normal case: show ids instead of names
            pass
        self.show()

    def _sides(self, entry: Entry) -> str:
        ordered = sorted(entry.match.factions, key=lambda f: f.rank)
        return ", ".join(
            f"{f.rank}. " + ("bot" if f.bot else "+".join(self._names.get(p, p) for p in f.players))
            for f in ordered
        )

    def show(self) -> None:
        runner = self.runner
        table = self.query_one("#outbox-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        self.entries = runner.entries() if runner is not None else []
        for entry in self.entries:
            state = entry.state.value + (" (in doubt)" if entry.in_doubt else "")
            game = (
                self._games.get(entry.match.game or 0, f"game {entry.match.game}")
                if entry.match.game
                else "-"
            )
            table.add_row(
                Text(state, style=STATE_STYLE[entry.state]),
                Text(entry.external_id),
                Text(game),
                Text(self._sides(entry)),
                str(entry.attempts),
                Text(entry.reason),
                key=entry.external_id,
            )
        if self.entries:
            table.move_cursor(row=min(max(cursor, 0), len(self.entries) - 1))
        counts = getattr(self.app, "outbox_counts", {})
        self.query_one("#outbox-caption", Static).update(
            f"{counts.get('pending', 0)} pending · {counts.get('sent', 0)} sent · {counts.get('rejected', 0)} "
            "rejected · e edits a rejected match in the form"
            if self.entries
            else "The outbox is empty: every match you send passes through here first."
        )

    def _selected(self) -> Entry | None:
        table = self.query_one("#outbox-table", DataTable)
        if not self.entries or table.cursor_row < 0:
            return None
        return self.entries[min(table.cursor_row, len(self.entries) - 1)]

    async def action_edit(self) -> None:
        entry = self._selected()
        if entry is None:
            return
        if entry.state is State.SENT or entry.in_doubt:
            self.notify("Only a rejected or unsent match can be edited.", severity="warning")
            return
        await self.app.switch_mode("match")
        await self.app.screen.edit_entry(entry.match)

    def action_retry(self) -> None:
        entry = self._selected()
        if entry is None or entry.state is not State.REJECTED:
            self.notify("Pick a rejected match to retry.", severity="warning")
            return
        self.runner.retry(entry.external_id)
        self.app.resume_sending(force=True)

    def action_send_now(self) -> None:
        if self.runner is not None:
            self.app.resume_sending(force=True)
            self.notify("Sending the pending matches.", timeout=3)

    def action_discard(self) -> None:
        entry = self._selected()
        if entry is None:
            return
        try:
            self.runner.discard(entry.external_id)
        except ValueError as exc:
            self.notify(str(exc).capitalize() + ".", severity="warning", markup=False)
            return
        self.notify(f"Discarded {entry.external_id}.", timeout=3, markup=False)

    def action_reload(self) -> None:
        self.load_names()
