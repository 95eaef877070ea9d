"""Match entry (mode "match"): record a match in a few keystrokes; the heart of rankterm.

The screen composes the form (`MatchForm`), binds its keys, keeps the draft on disk as it is typed
(`match_form.draft`), shows the odds and fair teams (the table's model), and shows what became of a send.
What a send does (the queue, the twin check, the dry run, the outbox, the lines said) is the
`SendController`'s (`tui/send_controller.py`), which knows no widget.

Keys: ctrl+s/F5 send · ctrl+y/F3 dry run · ctrl+f/F6 add a faction · ctrl+d/F7 remove it · ctrl+l/F4 queue ·
ctrl+r/F8 rematch · ctrl+n/F9 new match · ctrl+o/F12 the Date field · Escape leaves the field · `n` the next
match. See docs/design/tui.md for the whole flow.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime, timedelta
from functools import cached_property

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Checkbox, Header, Input, Select

from rankterm.outbox.outcome import BatchOutcome
from rankterm.stats.before import before_match
from rankterm.stats.compact import CompactMatch, game_matches
from rankterm.stats.held_model import held_model
from rankterm.stats.model import TableModel
from rankterm.stats.source import held_last_hours, sync_group
from rankterm.stats.teams import EVENING_HOURS, last_evening_pairings
from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.dialogs.teams import TeamsDialog
from rankterm.tui.screens.players import same_name
from rankterm.tui.send_controller import Moved, Pending, Report, SendController, TwinFound
from rankterm.tui.text import error_sentence
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.match_form.answer import NOTE
from rankterm.tui.widgets.match_form.draft import DRAFT_EVERY, Draft, DraftFile, draft_path
from rankterm.tui.widgets.match_form.faction_row import FactionRow
from rankterm.tui.widgets.match_form.form import CUSTOM, MatchForm
from rankterm.tui.widgets.match_form.game_picker import GamePicker
from rankterm.tui.widgets.match_form.player_picker import PlayerPicker
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import DATE_FORMAT, Game, NewMatch, Player
from rankterm.wire.shown import percent

WEIGHT_FROM = 200
"""The newest held matches of a game picked whose weights decide the weight the form proposes."""
SEND_GROUP = "match-send"
"""The worker group of the form's sends (one at a time)."""


def _clock(node: Widget, moment: datetime) -> str:
    """A moment as the seat's clock shows it (the seat's zone): "21:04"."""
    return shown_zone(node).local(moment).strftime("%H:%M")


SYNC_AGE = 60.0
"""Seconds the group's held matches are fresh enough for the odds (the live probe keeps them so meanwhile)."""


def chance_text(chance: float) -> str:
    """A chance as a whole percent, "<1%" and ">99%" at the ends rather than a certainty that is not one."""
    if chance < 0.005:
        return "<1%"
    if chance > 0.995:
        return ">99%"
    return percent(chance)


class MatchEntryScreen(RanktermScreen):
    """The match form, its keys, the queue, and what the service answered."""

    AUTO_FOCUS = "#game Input"

    BINDINGS = [
        # in the order the footer keeps them when it is narrow: at 80 columns the first four fit
        Binding("ctrl+s,f5", "send", "Send", key_display="^s"),
        Binding("ctrl+l,f4", "queue", "Queue", key_display="^l"),
        Binding("ctrl+r,f8", "rematch", "Rematch", key_display="^r"),
        Binding("ctrl+f,f6", "add_faction", "+Faction", key_display="^f"),
        Binding("ctrl+d,f7", "remove_faction", "-Faction", key_display="^d"),
        Binding("ctrl+y,f3", "dry_run", "Dry run", key_display="^y"),
        Binding("ctrl+n,f9", "new_match", "New", key_display="^n"),
        Binding("ctrl+o,f12", "date", "Date", key_display="^o"),
        Binding("ctrl+b,f10", "fair_teams", "Fair teams", key_display="^b"),
        Binding("ctrl+g,f2", "bot", "Bot faction: the game plays this one", key_display="^g", show=False),
        Binding(
            "escape",
            "leave_field",
            "Leave the field (then the screen keys d g n p r m o s b l work)",
            show=False,
        ),
        Binding("n", "ready", "New match (a blank form once this one is recorded)", show=False),
        Binding("enter", "restore_draft", "Restore the match not sent", show=False, priority=True),
        Binding("delete", "drop_draft", "Drop the match not sent", show=False, priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.model: TableModel | None = None
        """The table's model (`rankterm.stats.held_model`), for the odds line and fair teams."""
        self._coop: dict[int, list[CompactMatch]] = {}
        self._queued_key: tuple | None = None
        self._set_key: tuple | None = None
        """The form's `key()` as the screen last filled it (a rematch, the next match after ctrl+l, an outbox
        entry to fix): nothing in it was typed since."""
        self.left_field = 0
        """How many times Escape took the focus out of the form: a send that ends after one leaves it out."""
        self.drafts: DraftFile | None = None
        """Where the form is kept as it is typed (per group), to be offered again after a lost session."""
        self.offered: Draft | None = None
        """A form left by an earlier session, offered while the form is blank (Enter restores, Delete drops);
        the matches it had queued are back in the queue at once."""
        self._draft_timer: Timer | None = None

    @cached_property
    def sender(self) -> SendController:
        """The queue, the twin check, each send and what became of it (`send_controller`)."""
        controller = SendController(self.rankterm)
        controller.on_moved = self._outbox_moved
        return controller

    @property
    def queue(self) -> list[Pending]:
        """The matches queued to go with the next send."""
        return self.sender.queue

    @property
    def last_answer(self) -> BatchOutcome | None:
        """What became of the last batch sent or checked: one `Outcome` per match."""
        return self.sender.last_answer

    @property
    def sending(self) -> bool:
        """True while a batch is on its way: a second send waits (it would race the first)."""
        return self.sender.sending

    def holds_keys(self) -> bool:
        """The keys typed while a batch is on its way wait for its answer (see `KeyQueue`): they are meant for
        what comes after it (`n` a blank form, the next match), not for the form being sent. From the key that
        started the send: its worker may not have begun when the next key is looked at."""
        return self.sending or any(
            worker.group == SEND_GROUP and worker.node is self and not worker.is_finished
            for worker in self.workers
        )

    def compose(self) -> ComposeResult:
        yield Header()
        yield MatchForm(id="match-form", search=self._search_games)
        yield KeyFooter()

    def now(self) -> datetime:
        """The moment of recording, by the client's clock (UTC, the service's time zone)."""
        return self.sender.now()

    def has_unsent_input(self) -> bool:
        """True when quitting now would lose a match: the form holds one not yet sent, or the queue does."""
        return bool(self.queue) or self.form.has_unsent_input()

    def on_mount(self) -> None:
        self.form.field("external-id").value = self.rankterm.new_external_id()
        kept = None
        if self.has_client:
            # Another seat's unsent matches are not a guest's to drop: a guest seat may restore the form a seat
            # that is gone left, never drop it, and leaves its queued matches on disk for the host's own app.
            guest = self.rankterm.guest
            self.drafts = DraftFile(draft_path(self.client.base_url, self.client.key), keeps_adopted=guest)
            kept = self.drafts.load()
        if kept is None:
            return
        lines = []
        outbox = self.session.outbox.outbox
        back = [
            Pending(match, label or self.form.label(match), queued=True)
            for match, label in kept.queue
            if not (match.external_id and outbox.get(match.external_id) is not None)  # sent before the end
        ]
        if back and self.rankterm.guest:
            count = f"{len(back)} queued match{'es' if len(back) > 1 else ''}"
            lines.append(
                (
                    NOTE,
                    f"{count} from {_clock(self, kept.saved_at)} not sent, queued at another seat: kept for the host.",
                )
            )
        elif back:
            self.sender.queue = back
            self._update_queue_line()
            count = f"{len(back)} queued match{'es' if len(back) > 1 else ''}"
            lines.append(
                (
                    NOTE,
                    f"{count} from {_clock(self, kept.saved_at)} not sent: back in the queue (ctrl+s sends).",
                )
            )
        if kept.form is not None and not kept.queue_only:
            self.offered = Draft(kept.saved_at, kept.form)
            lines.append(
                (NOTE, f"A match from {_clock(self, kept.saved_at)} was not sent — {self._offer_keys()}.")
            )
        if lines:
            self.form.answer.show(lines)

    # ------------------------------------------------------------------ the draft

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    @on(GamePicker.Changed)
    @on(PlayerPicker.Changed)
    def _form_changed(self) -> None:
        self.keep_draft_soon()
        if self.is_mounted:
            self.form.show_result()
            self.show_odds()

    # ------------------------------------------------------------------ the minute before the match

    @task(group="table-model")
    async def load_model(self) -> None:
        """The table's model of the group (kept in the mirror: warm), then the odds of what the form holds."""
        if not self.has_client:
            return
        group = self.group
        with contextlib.suppress(RanktermError):  # offline: the model of the matches held
            await sync_group(group, max_age=SYNC_AGE)
        self.model = await asyncio.to_thread(held_model, group)
        self.show_odds()

    def show_odds(self) -> None:
        """One line under the result: each faction's chance of finishing first (newcomers marked), or for
        a co-op match against the game the group's record with those players."""
        if self.model is None or not self.model.followed:  # no match held yet: no chance to tell
            self.form.show_odds("")
            return
        try:
            sides = self.form.sides()
        except NoMatches:  # a faction on its way in or out: the next change says it
            return
        factions = [([str(p.id) for p in players], bot) for players, bot in sides]
        game = self.form.query_one(GamePicker).game
        said = before_match(
            self.model, factions, self._game_matches(game) if any(b for _, b in sides) else ()
        )
        if said is None:
            self.form.show_odds("")
            return
        if said.is_coop:
            record = f"won {said.won} of {said.played}" if said.played else "no match yet"
            self.form.show_odds(f"With these players against the game: {record}")
            return
        names = {str(p.id): p.label for players, bot in sides if not bot for p in players}
        parts = []
        for chance in said.chances:
            who = "+".join(names.get(pid, pid) for pid in chance.players)
            new = " (new)" if chance.newcomers else ""
            parts.append(f"{who}{new} {chance_text(chance.chance)}")
        self.form.show_odds("Chances (rankterm's estimate): " + " · ".join(parts))

    def _game_matches(self, game: Game | None) -> list[CompactMatch]:
        """The held matches of `game` (for a co-op record), read once a game."""
        if game is None or not self.has_client:
            return []
        if game.id not in self._coop:
            self._coop[game.id] = game_matches(self.group, game.id)
        return self._coop[game.id]

    def action_fair_teams(self) -> None:
        """The fairest splits of the players on the form into teams; Enter puts one in the factions."""
        players = [p for players, bot in self.form.sides() if not bot for p in players]
        if len(players) < 2:
            self.form.answer.show(
                [(NOTE, "Put the players on the form first: ctrl+b splits them into fair teams.")]
            )
            return
        if self.model is None:
            self.form.answer.show(
                [(NOTE, "The group's ratings are still being read: ctrl+b again in a moment.")]
            )
            return
        by_id = {str(p.id): p for p in players}
        skills = {pid: self.model.skill(pid) for pid in by_id}

        async def chosen(teams: tuple[tuple[str, ...], ...] | None) -> None:
            if teams is None:
                return
            while len(self.form.rows) < len(teams):
                await self.form.add_row()
            self.form.fill_teams([[by_id[pid] for pid in team] for team in teams])
            for row in self.form.rows[len(teams) :]:
                row.fill()
            self.form.answer.show(
                [(NOTE, "Fair teams in the factions: play, then type the ranks and ctrl+s.")]
            )
            self._focus_first_row()

        names = {pid: p.label for pid, p in by_id.items()}
        group = self.group if self.has_client else None

        async def open_dialog() -> None:
            pairings = (  # the last evening's matches parsed, in a thread, not on the loop
                await asyncio.to_thread(lambda: last_evening_pairings(held_last_hours(group, EVENING_HOURS)))
                if group
                else {}
            )
            self.app.push_screen(TeamsDialog(skills, names, pairings=pairings), chosen)

        self.run_worker(open_dialog(), group="fair-teams", exclusive=True)

    def keep_draft_soon(self) -> None:
        """Write the draft within `DRAFT_EVERY` seconds (one write for every change made meanwhile)."""
        if self._draft_timer is None and self.drafts is not None:
            self._draft_timer = self.set_timer(DRAFT_EVERY, self._keep_draft)

    def keep_draft_now(self) -> None:
        """Write the draft now (the queue changed: a queued match is on disk the moment it is queued)."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._keep_draft()

    def _keep_draft(self) -> None:
        """The form holds a match not sent: it is the group's draft now, with the queue (an older form
        offered gives way); it holds none (sent, cleared): the queue alone, or the form still offered, or
        no draft."""
        self._draft_timer = None
        if self.drafts is None:
            return
        if not all(row.is_mounted for row in self.form.rows):  # a faction being added: its fields come next
            self.keep_draft_soon()
            return
        try:
            unsent = self.form.has_unsent_input()
        except NoMatches:  # a faction on its way out: its fields went first
            self.keep_draft_soon()
            return
        queue = [(p.match, p.label) for p in self.queue]
        if unsent:
            if self.offered is not None:
                self.offered = None
                self.form.answer.clear()
            only = bool(queue) and self.form.key() == self._queued_key
            self.drafts.save(Draft(self.now(), self.form.draft(), queue, queue_only=only))
        elif (
            self.offered is not None and not self.rankterm.guest
        ):  # a guest's offer stays the gone seat's own
            self.drafts.save(Draft(self.offered.saved_at, self.offered.form, queue))
        elif queue:
            self.drafts.save(Draft(self.now(), None, queue))
        else:
            self.drafts.drop()

    @on(GamePicker.Changed)
    def _weight_follows(self, event: GamePicker.Changed) -> None:
        """A game picked: the weight follows it (the group's matches of it held in the mirror, newest
        `WEIGHT_FROM` of the last year; else the game's own weight)."""
        if event.game is None:
            return
        held: list[object] = []
        if self.has_client:
            since = (self.now() - timedelta(days=365)).strftime(DATE_FORMAT)
            held = self.group.held_weights(str(event.game.id), since=since, limit=WEIGHT_FROM)
        self.form.follow_game(event.game, held)

    @on(PlayerPicker.NewGhost)
    async def _new_ghost(self, event: PlayerPicker.NewGhost) -> None:
        """Enter twice on a name nobody has: make that ghost and pick it; a player of that name already in
        the group (ignoring case and accents) is said first, as the players screen says it, and y makes the
        ghost anyway (Escape goes back to the name)."""
        event.stop()
        picker, name = event.picker, event.name
        found = same_name(self.form.players, name)
        if not found:
            await self._make_ghost(picker, name)
            return
        who = ", ".join(f"{p.label} ({'ghost' if p.ghost else 'member'})" for p in found[:3])

        async def answered(make: bool | None) -> None:
            if make:
                await self._make_ghost(picker, name)
            elif picker.is_attached:
                self.set_focus(picker.input)

        self.app.push_screen(
            ConfirmDialog(f"Already in the group: {who}. Make the ghost {name} anyway?", yes="Make (y)"),
            answered,
        )

    async def _make_ghost(self, picker: PlayerPicker, name: str) -> None:
        """Make the ghost `name` through the outbox (now when the service answers, else queued, sent before
        the matches that name it) and pick it in `picker`; a name the service refuses is said, the text kept.
        Awaited in the handler, not a worker: the keys typed after the Enter wait for it (the app lets a key
        go once the one before has settled), so they land in the next faction, not in this one's text."""
        try:
            player = await self.session.outbox.create_ghost(name)
        except (RanktermError, ValueError) as exc:
            self.say(error_sentence(exc) if isinstance(exc, RanktermError) else str(exc), "error", to="toast")
            return
        if not picker.is_attached:
            return
        if player.id not in {p.id for p in self.form.players}:
            self.form.players.append(player)
            for row in self.form.rows:
                if row.picker is not picker:
                    row.set_players(self.form.players)
        picker.take_ghost(player)
        self.say(f"Ghost player {player.label} made and picked.", "ok", to="toast")

    def _offer_keys(self) -> str:
        """What answers the match offered: a guest may restore another seat's, not drop it."""
        return "Enter restores it" if self.rankterm.guest else "Enter restores it, Delete drops it"

    def _draft_key_works(self) -> bool:
        """Enter and Delete answer the offer only in the blank form's empty game field."""
        picker = self.form.game_picker
        return (
            self.offered is not None
            and self.focused is picker.input
            and not picker.text
            and not self.form.has_unsent_input()
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("restore_draft", "drop_draft"):
            return self._draft_key_works()
        return True

    async def action_restore_draft(self) -> None:
        """Fill the form with the match an earlier session did not send."""
        if self.offered is None:
            return
        saved_at, draft = self.offered.saved_at, self.offered.form or {}
        self.offered = None
        await self.form.restore(draft)
        self.form.answer.show(
            [(NOTE, f"The match from {_clock(self, saved_at)} is back: check it, then ctrl+s.")]
        )
        self.form.focus_first_needed()

    def action_drop_draft(self) -> None:
        if self.offered is None or self.drafts is None:
            return
        saved_at = self.offered.saved_at
        if self.rankterm.guest:
            self.form.answer.show(
                [
                    (
                        NOTE,
                        f"The match from {_clock(self, saved_at)} is another seat's: Enter restores it; the host can drop it.",
                    )
                ]
            )
            return
        self.offered = None
        self.keep_draft_now()  # the queue, if any, stays on disk
        self.form.answer.show([(NOTE, f"The match from {_clock(self, saved_at)} was dropped.")])

    async def on_screen_suspend(self) -> None:
        """Another screen opened (not a dialog over this one): a match recorded and untouched since gives way
        to a blank form now ("n" is a new match; ctrl+r in it brings the match back for a rematch), and with nothing
        focused the game field takes the focus now, so that keys typed right after "n" land in it."""
        if self in self.app.screen_stack:
            return
        if self.form.was_sent() and not self.sending:
            await self._blank_form()
        if self.focused is None:
            self.form.focus_first_needed()

    def on_screen_resume(self) -> None:
        self.load_lists()
        self._coop.clear()
        self.load_model()  # the matches recorded since: rated on top of the kept model

    @property
    def form(self) -> MatchForm:
        return self.query_one(MatchForm)

    def focused_row(self) -> FactionRow | None:
        node: Widget | None = self.focused
        while node is not None and not isinstance(node, FactionRow):
            node = node.parent if isinstance(node.parent, Widget) else None
        return node

    # ------------------------------------------------------------------ loading

    @task(group="match-lists")
    async def load_lists(self) -> None:
        """The group's games and players for the pickers, offline first: what the mirror holds at once (no
        request), then the service's lists (revalidated), shown when they differ. So a player made on
        another seat, or a ghost queued offline on this one, is offered when the form is entered again."""
        if not self.has_client:
            return
        group = self.group
        mirrored = group.cached_players()
        held = (group.cached_games(), self._with_queued_ghosts(mirrored))
        if mirrored:
            # Only a mirror that holds the players makes the lists: with its games alone (read first, the
            # players still on their way) a name typed and entered meanwhile found nobody and stayed text,
            # where it should wait for the players (seen: "E ⏎ A ⏎ B ⏎ C" typed in one row as "EABC").
            self.form.set_lists(*held)
        try:
            games, players = await asyncio.gather(group.games(refresh=True), group.players(refresh=True))
        except RanktermError as exc:
            if not mirrored:  # no players to offer: say why (else the mirror's lists stand)
                self.show_error(exc)
                # What the mirror holds (its games, if any); picks typed meanwhile are resolved or said.
                self.form.set_lists(*held)
            return
        fresh = (games, self._with_queued_ghosts(players))
        if fresh != held or self.form.waiting or not mirrored:
            self.form.set_lists(*fresh)

    def _with_queued_ghosts(self, players: list[Player]) -> list[Player]:
        """`players` and the ghosts this seat queued that the service has not made yet (local ids), even
        when the mirror held no list to keep them in (none was read before the network went)."""
        if not self.has_client:
            return players
        known = {p.id for p in players}
        ghosts = self.session.outbox.ghosts()
        return players + [g.player for g in ghosts if not g.player_id and g.local_id not in known]

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
            self.say("Move to a faction row (Tab) to remove it.", "warning", to="toast")
            return
        following = self.form.remove_row(row)
        if following is None:
            self.say("The form keeps at least one faction row.", "warning", to="toast")
            return
        self.call_after_refresh(following.focus_first)

    def _said_recorded(self) -> bool:
        """When the match shown was recorded from this form and nothing was typed since, say so (it is not
        sent or queued again) and give True."""
        external_id = self.form.field("external-id").value.strip()
        recorded = external_id in self.sender.recorded and external_id != self.sender.editing
        if not recorded or not self.form.was_sent():
            return False
        match = self.sender.recorded_match(external_id)
        label = self.form.label(match) if match is not None else external_id
        self.form.answer.add(*self.sender.already_recorded(external_id, label))
        return True

    def action_queue(self) -> None:
        """Put the form's match in the batch; keep game and players for the next one."""
        if self._said_recorded():
            return
        match = self.form.collect(self.sender.taken_ids(), self.now())
        if match is None:
            return
        self.queue.append(Pending(match, self.form.label(match), queued=True))
        self.form.mark_sent()
        self.form.next_match(self.rankterm.new_external_id())
        self._queued_key = self._set_key = self.form.key()
        self.keep_draft_now()
        count = len(self.queue)
        self.form.answer.show(
            [(NOTE, f"Queued match {count}: {self.queue[-1].label}. Enter the next one; ctrl+s sends all.")]
        )
        self._update_queue_line()
        self._focus_first_row()

    def action_leave_field(self) -> None:
        """Take the focus out of the form, so that the app's one-letter screen keys work."""
        self.left_field += 1
        self.set_focus(None)

    def action_bot(self) -> None:
        """ctrl+g: the game plays the faction with the cursor (with none, the last faction)."""
        node: DOMNode | None = self.focused
        while node is not None and not isinstance(node, FactionRow):
            node = node.parent
        row = node if isinstance(node, FactionRow) else (self.form.rows[-1] if self.form.rows else None)
        if row is not None:
            row.action_bot()

    def action_date(self) -> None:
        """ctrl+o: to the Date field from anywhere in the form, its text selected (typing replaces it); the
        faction rows are left as they are."""
        field = self.form.field("date")
        self.set_focus(field)
        field.select_all()  # also when it had the focus already
        field.scroll_visible()

    def action_send(self) -> None:
        self._submit(dry_run=False)

    def action_dry_run(self) -> None:
        self._submit(dry_run=True)

    async def action_rematch(self) -> None:
        """Start again with the same game and players: ranks, points and notes cleared, a new external id. On
        a blank form (left since the send, or a new session), those of the last match recorded here."""
        if self.form.is_blank():
            if self.offered is not None:  # the offer's keys work in the blank form: it is answered first
                self.form.answer.show(
                    [
                        (
                            NOTE,
                            f"First answer the match from {_clock(self, self.offered.saved_at)} not sent: "
                            f"{self._offer_keys()}.",
                        )
                    ]
                )
                self.form.game_picker.focus_input()
                return
            last = self.sender.rematch_of()
            if last is None:
                self.form.answer.show(
                    [(NOTE, "No match recorded here yet to play again: pick the game, then the players.")]
                )
                self.form.focus_first_needed()
                return
            await self.form.load(last)
        elif self._results_typed():

            async def answered(clear: bool | None) -> None:
                if clear:
                    self._rematch()
                else:
                    self.form.answer.show([(NOTE, "The results typed are kept: ctrl+s sends them.")])
                    self.form.focus_first_needed()
                self._after_question(dialog, bool(clear), kept="the form was kept")

            dialog = ConfirmDialog(
                "Clear the results typed and not sent, for a rematch?",
                "ctrl+s sends them first.",
                yes="Clear (y)",
                keeps_keys_ahead=True,
            )
            await self.app.push_screen(dialog, answered)
            return
        self._rematch()

    def _results_typed(self) -> bool:
        """Whether the form holds results typed and not recorded that a rematch clears: points, a rank typed,
        notes or a date."""
        form = self.form
        if not self.typed_unsent():
            return False
        if form.field("notes").value.strip() or form.field("date").value.strip():
            return True
        return any(
            row.points_input.value.strip() or row.rank_input.value.strip() not in ("", str(place))
            for place, row in enumerate(form.rows, start=1)
        )

    def _rematch(self) -> None:
        """The form's game and players kept, its results cleared, a new external id."""
        self.sender.editing = None
        self.form.next_match(self.rankterm.new_external_id())
        self._set_key = self.form.key()
        if self.queue:  # no result typed yet: ctrl+s sends the queue alone, as right after ctrl+l
            self._queued_key = self.form.key()
            self._update_queue_line()
        self.form.answer.show([(NOTE, "Rematch: same game and players. Enter the results, then ctrl+s.")])
        self._focus_first_row()

    def typed_unsent(self) -> bool:
        """True when the form holds a result typed and not recorded: more than a blank form, the match just
        recorded, what a rematch or ctrl+l left in it (the game and players), or an outbox entry loaded to
        fix, with nothing typed since."""
        return self.form.has_unsent_input() and self.form.key() != self._set_key

    async def action_new_match(self) -> None:
        """A blank form and an empty queue; a result typed and not recorded, and queued matches, are asked
        about first (as quitting does)."""
        typed = self.typed_unsent()
        if not self.queue and not typed:
            await self._blank_form()
            return
        count = len(self.queue)
        many = f"the {count} queued match{'es' if count > 1 else ''}"
        if not count:
            lost = "the match typed and not sent,"
        elif typed:
            lost = f"the match typed and {many}, none of them sent,"
        else:
            lost = f"{many} not sent"

        async def answered(drop: bool | None) -> None:
            if drop:
                self.queue.clear()
                self._queued_key = None
                self._update_queue_line()
                await self._blank_form()
                self.keep_draft_now()
            self._after_question(dialog, bool(drop), kept="the form was kept")

        dialog = ConfirmDialog(
            f"Drop {lost} and start a blank form?",
            "ctrl+s sends them (with this form, once filled)." if count else "ctrl+s sends it.",
            yes="Drop (y)",
            keeps_keys_ahead=True,
        )
        await self.app.push_screen(dialog, answered)

    async def action_ready(self) -> None:
        """`n` on the form (no text field focused): a blank form once the one shown was recorded (the queue
        stays), else the first field that still needs something."""
        if self.form.was_sent() and not self.sending:
            await self._blank_form()
        self.form.focus_first_needed()

    async def _blank_form(self) -> None:
        """A blank form, the focus on Game; the queue stays as it is."""
        self.sender.editing = None
        self.form.answer.clear()
        await self.form.clear(self.rankterm.new_external_id())
        if self.queue:
            self._queued_key = self.form.key()
        self.form.game_picker.focus_input()

    def _focus_first_row(self) -> None:
        rows = self.form.rows
        if rows:
            rows[0].focus_first()

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
            self.say("Still sending the last batch: its answer comes first.", "warning", to="toast")
            return
        if self.form.waiting:  # typed faster than the lists came: sent once the picks are resolved
            self.form.answer.show([(NOTE, "Waiting for the group's games and players, then sending…")])
            self.form.when_lists_arrive(lambda: self._submit(dry_run=dry_run))
            return
        pending = list(self.queue)
        if not pending and self._said_recorded():
            return
        if not pending or (self.form.key() != self._queued_key and self.form.has_unsent_input()):
            match = self.form.collect(self.sender.taken_ids(), self.now())
            if match is None:
                return
            pending.append(Pending(match, self.form.label(match), queued=False))
            question = None if dry_run else self.form.contradiction(match)
            if question is not None:
                self._ask_before_sending(pending, *question)
                return
        else:
            self.form.clear_problems()
        self._go(pending, dry_run)

    def _ask_before_sending(self, pending: list[Pending], question: str, field: Widget | None) -> None:
        """A result that contradicts itself (more points, a worse rank) is asked about once: Enter goes on to
        the next check (the same match recorded a moment ago), Escape goes back to `field` (the points of
        the faction ranked below)."""

        def answered(send_anyway: bool | None) -> None:
            if send_anyway:
                self._go(pending, dry_run=False)
            elif field is not None and field.is_attached:
                self.set_focus(field)
            self._after_question(dialog, bool(send_anyway))

        dialog = ConfirmDialog(
            question, yes="Send (⏎)", no="Back (esc)", enter_yes=True, keeps_keys_ahead=True
        )
        self.app.push_screen(dialog, answered)

    def _after_question(self, dialog: ConfirmDialog, went_on: bool, kept: str = "nothing was sent") -> None:
        """The keys typed with ctrl+s (or ctrl+n) ahead of the question it asked (`ConfirmDialog.ahead`) were
        meant for after it: answered yes, they go now, in order (after a send, they wait for it like any key
        typed during it); answered no (`kept`: what stayed as it was), they are dropped, since a ctrl+r or `n`
        would clear the form not sent, and the form says which."""
        if not dialog.ahead:
            return
        if went_on:
            for key in dialog.ahead:
                self.app.post_message(events.Key(key.key, key.character))
            return
        typed = " ".join(
            key.character
            if key.character and key.character.isprintable() and len(key.character) == 1
            else key.key
            for key in dialog.ahead
        )
        self.form.answer.add(NOTE, f"Typed before the question and not used, as {kept}: {typed}")

    def _ask_about_twin(self, pending: list[Pending], found: TwinFound) -> None:
        """A match of `pending` looks like one the group recorded in the last 30 minutes: ask once; Enter
        sends the batch, Escape goes back to the form as it was (nothing sent)."""
        self.form.answer.clear()  # nothing is said behind the question before it is answered

        def answered(send_anyway: bool | None) -> None:
            if send_anyway:
                self.sender.twin_answered(found)
                self._go(pending, dry_run=False, checked=True)
            else:
                self.form.answer.show([(NOTE, f"Not sent: {found.named} looks the same. ctrl+s asks again.")])
                self.form.focus_first_needed()
            self._after_question(dialog, bool(send_anyway))

        dialog = ConfirmDialog(
            found.question, yes="Send (⏎)", no="Back (esc)", enter_yes=True, keeps_keys_ahead=True
        )
        self.app.push_screen(dialog, answered)

    def _go(self, pending: list[Pending], dry_run: bool, *, checked: bool = False) -> None:
        verb = "Checking" if dry_run else "Sending"
        self.form.answer.show([(NOTE, f"{verb} {len(pending)} match{'es' if len(pending) > 1 else ''}…")])
        self.send(pending, dry_run, checked=checked)

    @task(group=SEND_GROUP)
    async def send(self, pending: list[Pending], dry_run: bool, *, checked: bool = False) -> None:
        """Send `pending` as one batch (`SendController.send`) under the form's loading cover; ask about a
        twin it found, else show what became of each match."""
        form = self.form
        was_focused = self.focused
        left = self.left_field
        form.loading = True  # the loading cover may take the focus away (when, depends on timing)
        try:
            sent = await self.sender.send(pending, dry_run, checked=checked)
        finally:
            form.loading = False
        if isinstance(sent, TwinFound):
            if self._lost_focus(was_focused, left):
                self.set_focus(was_focused)
            self._ask_about_twin(pending, sent)
            return
        named = self._report(sent)
        # The cursor rests on the field a rejection names (M003: the external id), else where it was before
        # the send: never nowhere, whenever the loading cover happened to take it.
        if named is None and self._lost_focus(was_focused, left):
            named = was_focused
        if not dry_run and self.form.was_sent():
            # recorded: the form holds nothing to type into, so the screen's keys are the person's now
            # ("n" a blank form, ctrl+r the rematch), not letters for the field the send was made from
            self.set_focus(None)
        elif named is not None and named.focusable:
            self.set_focus(named)

    def _lost_focus(self, was_focused: Widget | None, left: int) -> bool:
        """Whether the focus went from `was_focused` without the person asking (the loading cover took it),
        rather than by Escape (counted from `left`), after which the screen's letters are theirs."""
        return (
            self.focused is None
            and self.left_field == left
            and was_focused is not None
            and was_focused.is_attached
        )

    async def edit_entry(self, match: NewMatch) -> None:
        """Load an outbox entry into the form, to fix and send again (it replaces the entry when sent); a
        result typed in the form and not recorded is asked about first (y replaces it, n keeps it), unless it
        is that very entry (the form's match, rejected)."""
        same = self.form.field("external-id").value.strip() == match.external_id
        if same or not self.typed_unsent():
            await self._load_entry(match)
            return

        async def answered(replace: bool | None) -> None:
            if replace:
                await self._load_entry(match)
            else:
                self.form.answer.show([(NOTE, f"{match.external_id} was not loaded: the form is as it was.")])
                self.form.focus_first_needed()
            self._after_question(dialog, bool(replace), kept="the form was kept")

        dialog = ConfirmDialog(
            f"Replace the match typed and not sent with {match.external_id} from the outbox?",
            "ctrl+s sends the match typed first.",
            yes="Replace (y)",
            keeps_keys_ahead=True,
        )
        await self.app.push_screen(dialog, answered)

    async def _load_entry(self, match: NewMatch) -> None:
        await self.form.load(match)
        self._set_key = self.form.key()  # the entry stays in the outbox as it is until the fix is sent
        self.sender.editing = match.external_id
        self.form.answer.show([(NOTE, f"Editing {match.external_id} from the outbox: fix it, then ctrl+s.")])
        self._focus_first_row()

    def on_unmount(self) -> None:
        """The form is gone (the app ends, or the service changed): no more outbox news, and its draft stays on
        disk unlocked, for the next seat."""
        self.sender.close()
        if self.drafts is not None:
            self.drafts.close()

    def _outbox_moved(self, moved: list[Moved]) -> None:
        """The outbox sent matches said to be kept in it (or the service refused them): each gets its new
        line, and an accepted one its effect."""
        for change in moved:
            at = self.form.answer.replace_line(change.said, *change.line)
            if at is not None and change.outcome.accepted and self.has_client:
                self.form.answer.follow(self.group, [(at, change.outcome)])

    def _report(self, report: Report) -> Widget | None:
        """Show what happened to each match (the form kept when its match was rejected, the fields its codes
        name marked); the first field marked."""
        if not report.batch.dry_run:
            if report.form_done:
                self.form.mark_sent()
            if not self.queue:
                self._queued_key = None
            self.keep_draft_now()
            if report.batch.accepted_count:
                self.load_lists()  # a catalogue game may have joined the group's games
            self._update_queue_line()
        named: Widget | None = None
        for field in report.fields():
            named = named or self.form.mark(field)
        self.form.answer.show(report.lines)
        self.form.scroll_home(animate=False)
        if report.accepted and self.has_client:
            # what each accepted match did to the standings: under its line and as a toast, read in a worker
            self.form.answer.follow(self.group, report.accepted)
        return named
