"""Outbox (mode "outbox"): every match submitted from this app, and where it stands.

An entry is pending (on disk, not yet confirmed by the service; "in doubt" when a send got no answer: the
service is asked before it is sent again), sent, or rejected (with the service's errors, each message with its
code). A rejected entry can be edited in the match form and sent again (it replaces the entry, even under a
new external id), retried as it is, or discarded (after a yes/no question).

Keys: enter / e edit in the match form · ctrl+r retry (rejected -> pending) · s send pending now (also lifts
a quota pause) · delete / x discard (asks first) · F5 reload.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable, Footer, Header, Static

from rankterm.api.outbox import Entry
from rankterm.api.outcome import OutcomeState
from rankterm.tui.base import RanktermScreen
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.screens.match_entry import describe_errors
from rankterm.tui.text import plain, plain_str
from rankterm.tui.widgets.text_table import TextTable

STATE_STYLE = {
    OutcomeState.PENDING: "yellow",
    OutcomeState.IN_DOUBT: "yellow",
    OutcomeState.ACCEPTED: "green",
    OutcomeState.REJECTED: "red",
}
STATE_LABEL = {
    OutcomeState.PENDING: "pending",
    OutcomeState.IN_DOUBT: "pending (in doubt)",
    OutcomeState.ACCEPTED: "sent",
    OutcomeState.REJECTED: "rejected",
}


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
            outcome = entry.outcome()
            game = (
                self._games.get(entry.match.game or 0, f"game {entry.match.game}")
                if entry.match.game
                else "-"
            )
            table.add_row(
                Content.styled(STATE_LABEL[outcome.state], STATE_STYLE[outcome.state]),
                plain(entry.external_id),
                plain(game),
                plain(self._sides(entry)),
                str(entry.attempts),
                plain(describe_errors(outcome.errors) if outcome.rejected else ""),
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
        if entry.outcome().state in (OutcomeState.ACCEPTED, OutcomeState.IN_DOUBT):
            self.notify("Only a rejected or unsent match can be edited.", severity="warning")
            return
        await self.app.switch_mode("match")
        await self.app.screen.edit_entry(entry.match)

    def action_retry(self) -> None:
        entry = self._selected()
        if entry is None or not entry.outcome().rejected:
            self.notify("Pick a rejected match to retry.", severity="warning")
            return
        self.runner.retry(entry.external_id)
        self.app.resume_sending(force=True)

    def action_send_now(self) -> None:
        if self.runner is not None:
            self.app.resume_sending(force=True)
            self.notify("Sending the pending matches.", timeout=3)

    def action_discard(self) -> None:
        """Ask, then forget the selected entry (a match in doubt is refused: it may be recorded)."""
        entry = self._selected()
        if entry is None:
            return
        ext = entry.external_id
        detail = (
            "It will not be sent." if not entry.outcome().accepted else "It stays recorded by the service."
        )
        self.app.push_screen(
            ConfirmDialog(f"Discard {ext} from the outbox?", detail), lambda yes: self._discard(ext, yes)
        )

    def _discard(self, external_id: str, yes: bool | None) -> None:
        if not yes:
            return
        try:
            self.runner.discard(external_id)
        except ValueError as exc:
            self.notify(plain_str(str(exc).capitalize() + "."), severity="warning", markup=False)
            return
        self.notify(plain_str(f"Discarded {external_id}."), timeout=3, markup=False)

    def action_reload(self) -> None:
        self.load_names()
