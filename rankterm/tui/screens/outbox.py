"""Outbox (mode "outbox"): every match submitted from this app, every ghost player made while the service could
not be reached, and where each stands, the newest first (a ghost is listed below the matches that name it:
it was queued, and is sent, before them).

An entry is pending (on disk, not yet confirmed by the service; "in doubt" when a send got no answer: the
service is asked before it is sent again), sent, or rejected (with the service's errors, each message with its
code). A rejected match can be edited in the match form and sent again (it replaces the entry, even under a
new external id), retried as it is, or discarded (after a yes/no question). A pending match that names a
ghost not made yet says which one it waits for. A match recorded offline that looks like one another seat
recorded in the last 30 minutes is held, not sent: its row says "looks like Match N — send anyway (a) / discard
(x)", and those keys answer.

A ghost entry can be renamed (e: a rejected or unsent one; then it is sent), retried under the same name
(ctrl+r), or discarded (asks first: the matches that name it become rejected, to be given another player).
A guest seat edits, renames, sends anyway and discards only what it queued itself: the seats of a table share
one outbox, and another seat's unsent match is not a guest's to lose or change (`Outbox.may_change`); it may
retry one as it is.

Keys: e / enter edit in the match form (a ghost: rename) · ctrl+r retry (rejected -> pending) · ctrl+s send
pending now (also lifts a quota pause; s is Stats here too) · x / delete discard (asks first) · F5 reload. The
footer and the caption name the same keys (e, x). Home / End go to the newest / oldest entry. The columns put
where an entry stands first (state, tries, game, sides, reason; the external id last), the sides taking the
room the others leave, so the reason is on screen at 80 columns; under the table, the reason of the entry under
the cursor in full. Names stand for ids: a ghost made since the screen opened is named as its entry says.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Header, Static

from rankterm.outbox.outbox import NOT_THIS_SEATS, Entry, GhostEntry
from rankterm.outbox.outcome import OutcomeState
from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.outbox_runner import OutboxRunner
from rankterm.tui.screens.match_entry import MatchEntryScreen
from rankterm.tui.send_controller import describe_errors
from rankterm.tui.text import plain
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.wire.errors import RanktermError

STATE_STYLE = {
    OutcomeState.PENDING: "yellow",
    OutcomeState.IN_DOUBT: "yellow",
    OutcomeState.ACCEPTED: "green",
    OutcomeState.REJECTED: "red",
    OutcomeState.HELD: "cyan",
}
STATE_LABEL = {
    OutcomeState.PENDING: "pending",
    OutcomeState.IN_DOUBT: "in doubt",
    OutcomeState.ACCEPTED: "sent",
    OutcomeState.REJECTED: "rejected",
    OutcomeState.HELD: "held",
}

IN_DOUBT = "sent, no answer: the service is asked before it is sent again"
"""The Reason of a match in doubt."""

COLUMNS = ("State", "Tries", "Game", "Sides (by rank)", "Reason", "External id")
"""Where an entry stands and why first: at 80 columns the external id is the one cut at the window's edge."""
CAPS = {"Game": 12, "Reason": 22}
"""The most cells these columns take (cut with "…"; the whole reason is under the table)."""
SIDES = "Sides (by rank)"
CAPTION_KEYS = "e edits a rejected match in the form · on a ghost: e renames, ctrl+r retries, x discards"


def ghost_label(ghost: GhostEntry) -> str:
    """A queued ghost as the service will show it: `*name`."""
    return ghost.player.label


def waits_for(ghosts: list[GhostEntry]) -> str:
    """The Reason of a pending match held back by ghosts not made yet ("waits for ghost *Dan")."""
    parts = []
    for ghost in ghosts:
        text = ghost_label(ghost)
        if ghost.outcome().rejected:
            text += f" (refused: {describe_errors(ghost.errors)})"
        parts.append(text)
    return f"waits for ghost {', '.join(parts)}" if parts else ""


class OutboxScreen(RanktermScreen):
    """The outbox's entries (matches and ghost players), newest first, with their state and reason."""

    AUTO_FOCUS = "#outbox-table"

    DEFAULT_CSS = """
    OutboxScreen #outbox-caption { height: auto; padding: 0 1; margin: 1 0 0 0; color: $text-muted; }
    OutboxScreen #outbox-table { height: 1fr; margin: 0 1; }
    OutboxScreen #outbox-reason { height: auto; max-height: 4; padding: 0 1; color: $text-warning; }
    """

    BINDINGS = [
        Binding("e,enter", "edit", "Edit"),
        Binding("ctrl+r", "retry", "Retry"),
        Binding("ctrl+s", "send_now", "Send now"),  # s is Stats, as on every screen; ctrl+s sends in the form
        Binding("x,delete", "discard", "Discard"),
        Binding("a", "send_anyway", "Send anyway", show=False),
        Binding("f5", "reload", "Reload"),
        # the table's own home/end scroll sideways (to a blank stretch of a narrow table): rows here
        Binding("home", "first", "First", show=False, priority=True),
        Binding("end", "last", "Last", show=False, priority=True),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: list[Entry | GhostEntry] = []
        self._names: dict[str, str] = {}
        self._games: dict[int, str] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="outbox-caption", markup=False)
        table = TextTable(id="outbox-table", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        yield Static("", id="outbox-reason", markup=False)  # the cursor's entry's reason, whole (wrapped)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "outbox_counts", lambda _: self.show(), init=False)
        self.load_names()

    def on_screen_resume(self) -> None:
        self.show()

    @property
    def runner(self) -> OutboxRunner | None:
        return self.session.outbox if self.has_client else None

    @task(group="outbox-names")
    async def load_names(self) -> None:
        """Player and game names for the table: the mirror's at once (no request), then the service's (its
        answer, or the mirror's again while it cannot be reached). Ids stand in for what neither knows."""
        if not self.has_client:
            return
        group = self.group
        self._remember(group.cached_players(), group.cached_games())
        self.show()
        try:
            self._remember(await group.players(), await group.games())
        except RanktermError:  # offline is the outbox's normal case: the held names (or ids) stand
            return
        self.show()

    def _remember(self, players: list, games: list) -> None:
        self._names |= {p.id: p.label for p in players}
        self._games |= {g.id: g.name for g in games}

    # ------------------------------------------------------------------ showing

    def _sides(self, entry: Entry) -> str:
        names = dict(self._names)
        if self.runner is not None:
            # a ghost not made yet goes by its local id, one made since by the service's id, which the names
            # read when the screen opened may not hold yet: both named as the ghost entry says
            for g in self.runner.ghosts():
                names[g.local_id] = ghost_label(g)
                if g.player_id:
                    names.setdefault(g.player_id, ghost_label(g))
        ordered = sorted(entry.match.factions, key=lambda f: f.rank)
        return ", ".join(
            f"{f.rank}. " + ("bot" if f.bot else "+".join(names.get(p, p) for p in f.players))
            for f in ordered
        )

    def _match_row(self, entry: Entry) -> tuple[Text | str, ...]:
        outcome = entry.outcome()
        game = self._games.get(entry.match.game or 0, f"game {entry.match.game}") if entry.match.game else "-"
        twin = entry.twin
        if twin is not None:
            reason = f"looks like Match {twin.number} — send anyway (a) / discard (x)"
        elif outcome.rejected:
            reason = describe_errors(outcome.errors)
        elif self.runner is not None and outcome.state is OutcomeState.PENDING:
            reason = waits_for(self.runner.waiting_for(entry))
        elif outcome.state is OutcomeState.IN_DOUBT:
            reason = IN_DOUBT
        else:
            reason = ""
        # str cells: shown as plain, display-safe text, and the column widths measured by them (`fill_table`)
        return (
            Text(STATE_LABEL[outcome.state], style=STATE_STYLE[outcome.state]),
            str(entry.attempts),
            game,
            self._sides(entry),
            reason,
            entry.external_id,
        )

    def _ghost_row(self, ghost: GhostEntry) -> tuple[Text | str, ...]:
        outcome = ghost.outcome()
        who = ghost_label(ghost) + (f" → player id {ghost.player_id}" if ghost.player_id else "")
        return (
            Text(STATE_LABEL[outcome.state], style=STATE_STYLE[outcome.state]),
            str(ghost.attempts),
            "new ghost",
            who,
            describe_errors(ghost.errors) if outcome.rejected else ghost.note_from(self._made_here(ghost)),
            ghost.local_id,
        )

    def _made_here(self, ghost: GhostEntry) -> bool:
        """Whether the ghost `ghost` took was made from this machine: by another entry of this outbox (another
        seat of the profile, which shares the file), not by a seat elsewhere."""
        runner = self.runner
        if runner is None or not ghost.taken:
            return False
        return any(
            g.local_id != ghost.local_id and not g.taken and g.player_id == ghost.player_id
            for g in runner.ghosts()
        )

    def show(self) -> None:
        runner = self.runner
        table = self.query_one("#outbox-table", DataTable)
        cursor = table.cursor_row
        self.entries = list(reversed(runner.queue())) if runner is not None else []  # the newest first
        if runner is not None:
            self._remember(runner.sender.group.cached_players(), [])  # players made since the screen opened
        rows = [self._ghost_row(e) if isinstance(e, GhostEntry) else self._match_row(e) for e in self.entries]
        keys = [f"ghost:{e.local_id}" if isinstance(e, GhostEntry) else e.external_id for e in self.entries]
        # each column as wide as its widest cell at once, not when the table is next idle; the sides take the
        # room the others leave, so the reason stays on screen at 80 columns
        fill_table(table, COLUMNS, rows, keys, caps=CAPS, fit=SIDES)
        if self.entries:
            table.move_cursor(row=min(max(cursor, 0), len(self.entries) - 1))
        self._show_reason()
        counts = self.rankterm.outbox_counts
        caption = (
            f"{counts.get('pending', 0)} pending · {counts.get('sent', 0)} sent · "
            f"{counts.get('rejected', 0)} rejected · {CAPTION_KEYS}"
        )
        self.query_one("#outbox-caption", Static).update(
            plain(caption)
            if self.entries
            else "The outbox is empty: every match you send passes through here first."
        )

    def reason_of(self, entry: Entry | GhostEntry) -> str:
        """Why an entry stands where it does (the service's errors, the ghost a match waits for), or ""."""
        row = self._ghost_row(entry) if isinstance(entry, GhostEntry) else self._match_row(entry)
        return str(row[COLUMNS.index("Reason")])

    def _show_reason(self) -> None:
        """Under the table, the reason of the entry under the cursor in full: the Reason column is cut at the
        window's edge when the sides are long (80 columns), this line wraps."""
        entry = self._selected()
        line = self.query_one("#outbox-reason", Static)
        reason = self.reason_of(entry) if entry is not None else ""
        if entry is None or not reason:
            line.update("")
            line.display = False
            return
        who = f"ghost {ghost_label(entry)}" if isinstance(entry, GhostEntry) else entry.external_id
        line.update(plain(f"{who}: {reason}"))
        line.display = True

    @on(DataTable.RowHighlighted, "#outbox-table")
    def _highlighted(self) -> None:
        self._show_reason()

    def _selected(self) -> Entry | GhostEntry | None:
        table = self.query_one("#outbox-table", DataTable)
        if not self.entries or table.cursor_row < 0:
            return None
        return self.entries[min(table.cursor_row, len(self.entries) - 1)]

    # ------------------------------------------------------------------ actions

    def _ours(self, entry: Entry | GhostEntry) -> bool:
        """Whether this seat may change `entry` (said when not)."""
        if self.runner is not None and not self.runner.outbox.may_change(entry):
            self.say(NOT_THIS_SEATS.capitalize() + ".", "warning", to="toast")
            return False
        return True

    async def action_edit(self) -> None:
        entry = self._selected()
        if entry is None or not self._ours(entry):
            return
        if isinstance(entry, GhostEntry):
            self._ask_ghost_name(entry)
            return
        if entry.outcome().state in (OutcomeState.ACCEPTED, OutcomeState.IN_DOUBT):
            self.say("Only a rejected or unsent match can be edited.", "warning", to="toast")
            return
        await self.app.switch_mode("match")
        form = self.app.screen
        if isinstance(form, MatchEntryScreen):
            await form.edit_entry(entry.match)

    def _ask_ghost_name(self, ghost: GhostEntry) -> None:
        """Rename a rejected or unsent ghost (the AskDialog shows a refused name inline), then send it."""
        runner = self.runner
        if runner is None or ghost.outcome().state in (OutcomeState.ACCEPTED, OutcomeState.IN_DOUBT):
            self.say("Only a rejected or unsent ghost player can be renamed.", "warning", to="toast")
            return
        local_id = ghost.local_id

        async def rename(text: str) -> GhostEntry:
            return runner.rename_ghost(local_id, text)

        dialog = AskDialog(
            "Rename ghost player",
            "The name the service makes the ghost player under (it shows it with a * in front).",
            placeholder="Name",
            ok_label="Rename",
            submit=rename,
            value=ghost.name,
        )
        self.app.push_screen(dialog, self._renamed)

    def _renamed(self, ghost: GhostEntry | None) -> None:
        if ghost is None:
            return
        self.rankterm.resume_sending(force=True)
        self.say(f"Sending ghost player {ghost_label(ghost)}.", "info", to="toast")

    def action_retry(self) -> None:
        entry = self._selected()
        runner = self.runner
        if runner is None or entry is None or not entry.outcome().rejected:
            self.say("Pick a rejected entry to retry.", "warning", to="toast")
            return
        try:
            if isinstance(entry, GhostEntry):
                runner.outbox.retry_ghost(entry.local_id)  # as it is: any seat may, as for a match
                runner.refresh_counts()
            else:
                runner.retry(entry.external_id)
        except ValueError as exc:
            self.say(str(exc).capitalize() + ".", "warning", to="toast")
            return
        self.rankterm.resume_sending(force=True)

    def action_send_anyway(self) -> None:
        """A held match (it looks like one another seat recorded lately) is not that match: send it."""
        entry = self._selected()
        runner = self.runner
        if runner is None or not isinstance(entry, Entry) or entry.twin is None:
            self.say(
                "Only a held match (it looks like another one) can be sent anyway.", "warning", to="toast"
            )
            return
        if not self._ours(entry):
            return
        runner.send_anyway(entry.external_id)
        self.rankterm.resume_sending(force=True)
        self.say(f"Sending {entry.external_id} anyway.", "info", to="toast")

    def action_send_now(self) -> None:
        if self.runner is not None:
            self.rankterm.resume_sending(force=True)
            self.say("Sending the pending entries.", "info", to="toast")

    def action_discard(self) -> None:
        """Ask, then forget the selected entry (one in doubt is refused: it may be recorded)."""
        entry = self._selected()
        if entry is None or self.runner is None or not self._ours(entry):
            return
        if isinstance(entry, GhostEntry):
            self._ask_discard_ghost(entry)
            return
        ext = entry.external_id
        detail = (
            "It will not be sent." if not entry.outcome().accepted else "It stays recorded by the service."
        )
        self.app.push_screen(
            ConfirmDialog(f"Discard {ext} from the outbox?", detail), lambda yes: self._discard(ext, yes)
        )

    def _ask_discard_ghost(self, ghost: GhostEntry) -> None:
        runner = self.runner
        if runner is None:
            return
        naming = [
            e for e in runner.entries() if any(g.local_id == ghost.local_id for g in runner.waiting_for(e))
        ]
        if ghost.outcome().accepted:
            detail = "It stays made on the service."
        else:
            count = len(naming)
            detail = (
                f"Its {count} match{'es' if count != 1 else ''} become{'s' if count == 1 else ''} rejected "
                "to give them another player."
            )
        question = f"Discard ghost player {ghost_label(ghost)} from the outbox?"
        self.app.push_screen(ConfirmDialog(question, detail), lambda yes: self._discard_ghost(ghost, yes))

    def _discard_ghost(self, ghost: GhostEntry, yes: bool | None) -> None:
        runner = self.runner
        if not yes or runner is None:
            return
        try:
            runner.discard_ghost(ghost.local_id)
        except ValueError as exc:
            self.say(str(exc).capitalize() + ".", "warning", to="toast")
            return
        self.say(f"Discarded ghost player {ghost_label(ghost)}.", "info", to="toast")

    def _discard(self, external_id: str, yes: bool | None) -> None:
        runner = self.runner
        if not yes or runner is None:
            return
        try:
            runner.discard(external_id)
        except ValueError as exc:
            self.say(str(exc).capitalize() + ".", "warning", to="toast")
            return
        self.say(f"Discarded {external_id}.", "info", to="toast")

    def action_reload(self) -> None:
        self.load_names()

    def action_first(self) -> None:
        self.query_one("#outbox-table", DataTable).move_cursor(row=0)

    def action_last(self) -> None:
        self.query_one("#outbox-table", TextTable).to_last_row()
