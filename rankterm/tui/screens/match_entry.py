"""Match entry (mode "match"): record a match in a few keystrokes; the heart of rankterm.

The form (`MatchForm`): game (type to filter the group's games, the catalogue searched as a fallback), weight,
name ("Game name", "A vs B" or a custom text), notes, external id (generated, editable), and faction rows that
can be added and removed (players as chips, rank pre-filled by row order, points, faction name, bot toggle).

Nothing is sent until the form passes its own checks. A sent match goes through the outbox (on disk before any
request); the answer is then shown per match: accepted, rejected (with the reason; the form stays as it was),
or kept in the outbox while the service cannot be reached. Matches can be queued and sent as one batch.

Keys (the ctrl keys work while typing; each F-key does the same for terminals that eat a ctrl key):
ctrl+s / F5 send · ctrl+y / F3 dry run (the service checks, nothing is saved) · ctrl+f / F6 add a faction ·
ctrl+d / F7 remove the focused faction · ctrl+l / F4 queue this match · ctrl+r / F8 rematch (same game and
players, results cleared) · ctrl+n / F9 new match (a blank form; drops the queue) · Escape leaves the field
(then the app's one-letter keys work; Tab comes back).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Footer, Header, Select

from rankterm.api.models import Game, NewMatch, NewMatchAnswer
from rankterm.tui.base import RanktermScreen
from rankterm.tui.text import error_sentence
from rankterm.tui.widgets.match_form.answer import BAD, NOTE, OK
from rankterm.tui.widgets.match_form.faction_row import FactionRow
from rankterm.tui.widgets.match_form.form import CUSTOM, MatchForm

AFTER_ACCEPT = "ctrl+r rematch (same game and players) · ctrl+n new match"
AFTER_REJECT = "The form is kept as it was: fix it and send again (ctrl+s)."


@dataclass
class Pending:
    """A match ready to send: a queued one, or the one in the form."""

    match: NewMatch
    label: str
    queued: bool


def _reason(errors: list) -> str:
    return (
        "; ".join(f"{e.message or e.code}" + (f" ({e.code})" if e.message and e.code else "") for e in errors)
        or "no reason given"
    )


class MatchEntryScreen(RanktermScreen):
    """The match form, its keys, the queue, and what the service answered."""

    AUTO_FOCUS = "#game Input"

    BINDINGS = [
        Binding("ctrl+s,f5", "send", "Send", key_display="^s"),
        Binding("ctrl+y,f3", "dry_run", "Dry run", key_display="^y"),
        Binding("ctrl+f,f6", "add_faction", "+Faction", key_display="^f"),
        Binding("ctrl+d,f7", "remove_faction", "-Faction", key_display="^d"),
        Binding("ctrl+l,f4", "queue", "Queue", key_display="^l"),
        Binding("ctrl+r,f8", "rematch", "Rematch", key_display="^r"),
        Binding("ctrl+n,f9", "new_match", "New", key_display="^n"),
        Binding("escape", "leave_field", "Leave the field (then d g p r m l work)", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.queue: list[Pending] = []
        self._queued_key: tuple | None = None
        self.recorded: set[str] = set()
        """External ids accepted in this session: a second send of the same form is refused here."""
        self.last_answer: NewMatchAnswer | None = None
        self.sending = False
        """True while a batch is on its way: a second send waits (it would race the first)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield MatchForm(id="match-form", search=self._search_games)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "New match"
        self.form.field("external-id").value = self.rankterm.new_external_id()

    def on_screen_resume(self) -> None:
        self.load_lists()

    @property
    def form(self) -> MatchForm:
        return self.query_one(MatchForm)

    def focused_row(self) -> FactionRow | None:
        node: Widget | None = self.focused
        while node is not None and not isinstance(node, FactionRow):
            node = node.parent if isinstance(node.parent, Widget) else None
        return node

    # ------------------------------------------------------------------ loading

    @work(exclusive=True, group="match-lists")
    async def load_lists(self) -> None:
        """The group's games and players for the pickers (cached by the client: no call when unchanged)."""
        if not self.has_client:
            return
        try:
            games, players = await asyncio.gather(self.client.games(), self.client.players())
        except Exception as exc:  # one sentence, never a traceback
            self.show_error(exc)
            return
        self.form.set_lists(games, players)

    async def _search_games(self, name: str) -> list[Game]:
        return await self.client.search_games(name)

    # ------------------------------------------------------------------ actions

    async def action_add_faction(self) -> None:
        row = await self.form.add_row()
        row.focus_first()
        row.scroll_visible()

    def action_remove_faction(self) -> None:
        row = self.focused_row()
        if row is None:
            self.notify("Move to a faction row (Tab) to remove it.", severity="warning")
            return
        following = self.form.remove_row(row)
        if following is None:
            self.notify("The form keeps at least one faction row.", severity="warning")
            return
        self.call_after_refresh(following.focus_first)

    def action_queue(self) -> None:
        """Put the form's match in the batch; keep game and players for the next one."""
        match = self.form.collect(self._taken_ids())
        if match is None:
            return
        self.queue.append(Pending(match, self.form.label(match), queued=True))
        self.form.next_match(self.rankterm.new_external_id())
        self._queued_key = self.form.key()
        count = len(self.queue)
        self.form.answer.show(
            [(NOTE, f"Queued match {count}: {self.queue[-1].label}. Enter the next one; ctrl+s sends all.")]
        )
        self._update_queue_line()
        self._focus_first_row()

    def action_leave_field(self) -> None:
        """Take the focus out of the form, so that the app's one-letter keys (d, g, p, r, m, l) work."""
        self.set_focus(None)

    def action_send(self) -> None:
        self._submit(dry_run=False)

    def action_dry_run(self) -> None:
        self._submit(dry_run=True)

    def action_rematch(self) -> None:
        """Start again with the same game and players: ranks, points and notes cleared, a new external id."""
        self.form.next_match(self.rankterm.new_external_id())
        self.form.answer.show([(NOTE, "Rematch: same game and players. Enter the results, then ctrl+s.")])
        self._focus_first_row()

    async def action_new_match(self) -> None:
        """A blank form and an empty queue."""
        self.queue.clear()
        self._queued_key = None
        self._update_queue_line()
        self.form.answer.clear()
        await self.form.clear(self.rankterm.new_external_id())
        self.form.game_picker.focus_input()

    def _focus_first_row(self) -> None:
        rows = self.form.rows
        if rows:
            rows[0].focus_first()

    def _taken_ids(self) -> set[str]:
        return self.recorded | {p.match.external_id for p in self.queue if p.match.external_id}

    def _update_queue_line(self) -> None:
        count = len(self.queue)
        text = ""
        if count:
            text = f"Queue: {count} match{'es' if count != 1 else ''} waiting · ctrl+s sends "
            text += "them (and this form, once filled)" if self._queued_key is not None else "them"
            text += " · ctrl+n drops them"
        self.form.show_queue(text)

    @on(Select.Changed, "#name-choice")
    def _name_choice(self, event: Select.Changed) -> None:
        custom = event.value == CUSTOM
        self.form.show_custom_name(custom)
        if custom:
            self.call_after_refresh(self.form.field("custom-name").focus)

    # ------------------------------------------------------------------ sending

    def _submit(self, *, dry_run: bool) -> None:
        if self.sending:
            self.notify("Still sending the last batch: its answer comes first.", severity="warning")
            return
        pending = list(self.queue)
        if not pending or self.form.key() != self._queued_key:
            match = self.form.collect(self._taken_ids())
            if match is None:
                return
            pending.append(Pending(match, self.form.label(match), queued=False))
        else:
            self.form.clear_problems()
        verb = "Checking" if dry_run else "Sending"
        self.form.answer.show([(NOTE, f"{verb} {len(pending)} match{'es' if len(pending) > 1 else ''}…")])
        self.send(pending, dry_run)

    @work(exclusive=True, group="match-send")
    async def send(self, pending: list[Pending], dry_run: bool) -> None:
        """Send `pending` as one batch: a dry run straight to the service, a real send through the outbox
        (on disk first; kept there and sent later when the service cannot be reached)."""
        form = self.form
        form.loading = True
        self.sending = True
        answer: NewMatchAnswer | None = None
        waiting: list[int] = []
        failure: str | None = None
        try:
            if dry_run:
                answer = await self.client.add_matches([p.match for p in pending], dry_run=True)
            else:
                recorded = await self.rankterm.record_matches([p.match for p in pending])
                answer, waiting, failure = recorded.answer, recorded.waiting, recorded.failure
        except Exception as exc:  # one sentence, never a traceback
            failure = error_sentence(exc)
            answer = getattr(exc, "partial", None)
        finally:
            form.loading = False
            self.sending = False
        self.last_answer = answer
        self._report(pending, answer, failure, dry_run, waiting)

    async def edit_entry(self, match: NewMatch) -> None:
        """Load an outbox entry into the form, to fix and send again under the same external id."""
        self.queue.clear()
        self._queued_key = None
        self._update_queue_line()
        await self.form.load(match)
        self.form.answer.show([(NOTE, f"Editing {match.external_id} from the outbox: fix it, then ctrl+s.")])
        self._focus_first_row()

    def _report(
        self,
        pending: list[Pending],
        answer: NewMatchAnswer | None,
        failure: str | None,
        dry_run: bool,
        waiting: list[int] | None = None,
    ) -> None:
        """Say what happened to each match; keep the rejected (form filled, queued ones queued)."""
        accepted = {o.index: o.id for o in answer.accepted} if answer else {}
        rejected = {o.index: _reason(o.errors) for o in answer.rejected} if answer else {}
        kept = set(waiting or ())
        lines: list[tuple[str, str]] = []
        for i, item in enumerate(pending):
            where = " [queued]" if item.queued else ""
            if i in accepted:
                verdict = "would be accepted (dry run, nothing saved)" if dry_run else "accepted"
                if not dry_run and accepted[i] and accepted[i] != item.match.external_id:
                    verdict += f" as match id {accepted[i]}"
                lines.append((OK, f"✔ {item.label}{where}: {verdict}."))
            elif i in kept:
                lines.append(
                    (NOTE, f"⧗ {item.label}{where}: saved in the outbox, sent when the service answers.")
                )
            elif i in rejected:
                lines.append((BAD, f"✘ {item.label}{where}: rejected: {rejected[i]}"))
            else:
                lines.append((BAD, f"✘ {item.label}{where}: not recorded."))
        if failure:
            lines.append((BAD, f"✘ {failure}"))
        form_index = next((i for i, p in enumerate(pending) if not p.queued), None)
        if not dry_run:
            done = set(accepted) | kept
            self.queue = [p for i, p in enumerate(pending) if p.queued and i not in done]
            self.recorded |= {
                p.match.external_id for i, p in enumerate(pending) if i in done and p.match.external_id
            }
            if form_index is not None and form_index in done:
                lines.append((NOTE, AFTER_ACCEPT))
            if not self.queue:
                self._queued_key = None
            if accepted:
                self.load_lists()  # a catalogue game may have joined the group's games
            self._update_queue_line()
        if form_index is not None and form_index in rejected:
            self._mark_rejection(rejected[form_index])
            lines.append((NOTE, AFTER_REJECT))
        self.form.answer.show(lines)
        self.form.scroll_home(animate=False)

    def _mark_rejection(self, reason: str) -> None:
        """Point at the field the service's code names (M003 external id, M004 game); the form stays filled."""
        if "(M003)" in reason:
            self.form.mark("external_id")
        if "(M004)" in reason:
            self.form.mark("game")
