"""The app's side of the outbox: record matches through it, resume and retry sending, report where each stands.

Every match the form submits is written to the outbox before any request (`record`: `Outbox.put`), then the
pending entries are sent. The outbox's sender decides what is tried again and when (`SendReport.retry_in`:
`RETRY_DELAYS` between sends while something is pending and the service does not answer or answers with an
error, the turn of the hour after a quota error); the runner only waits that on a timer, keeps the app's
`outbox_counts` up to date (the status line shows them), and hands a refused key or secret to the app
(`credentials_refused`).

While the service cannot be reached (any request of the client failed to reach it), the runner knocks:
every `KNOCK_EVERY` seconds one small request (`GET test`: no key, no quota) goes out, one at a time, on
whatever screen is shown. Its first answer reaches the client's reachability listeners like any other, and
the app's (`RanktermApp._reachable`) sends what is pending and revalidates the screen: the outbox empties
seconds after the service answers again, however long it was gone. A failed knock changes nothing on screen.

`record` gives one `Outcome` per match (rankterm/outbox/outcome.py), the same type a dry run gives; `sending`
says whether a send is under way (for quitting: a match in flight may already be recorded).

Matches recorded offline are checked for a twin when the outbox sends them (`recorded_twins`, by the match
form's rule): one that looks like a match another seat recorded in the last 30 minutes is held, said at once
(a toast), and asked about on the Outbox screen (`send_anyway`, or discard). Online the form has asked already
(`record` writes them checked).

`create_ghost` makes a ghost player through the outbox too: queued on disk first, then sent at once. When the
service cannot be reached it gives the local player (`ids.is_local_id(player.id)`), which the mirror offers
to the match form at once; the outbox sends it before the matches that name it. `ghosts()`, `rename_ghost`
and `discard_ghost` are the Outbox screen's actions on ghost entries.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from textual.timer import Timer

from rankterm.client.client import RankingClient
from rankterm.client.send_policy import Backoff
from rankterm.mirror import Group
from rankterm.outbox.outbox import Entry, GhostEntry, Outbox, State
from rankterm.outbox.outcome import BatchOutcome, not_kept
from rankterm.outbox.sender import OutboxSender, SendReport
from rankterm.outbox.twins import NotTwins, Twin
from rankterm.tui.widgets.match_form.twin import find_twin, recorded_at
from rankterm.wire.errors import AuthError, Offline, QuotaError, RanktermError, ServiceError
from rankterm.wire.models import NewMatch, Player

RETRY_DELAYS = (5.0, 15.0, 30.0, 60.0, 120.0, 300.0)
"""Seconds between automatic retries of a send that failed (the last one repeats); while the service cannot
be reached at all, the knock (`KNOCK_EVERY`) brings the next send forward as soon as it answers."""

KNOCK_EVERY = 2.0
"""Seconds between two knocks (`GET test`) while the service cannot be reached."""

ADOPT_EVERY = 30.0
"""Seconds between two looks, on a seat that is online and neither sending nor waiting to, for pending entries
of the shared file that no seat sends (the seat that queued them offline has gone): they are sent from here."""

WATCH_EVERY = 1.0
"""Seconds between two looks at whether another seat's process has written the outbox file (its counts and
entries are then read again, so every seat of a profile shows what the file holds)."""

Recorded = BatchOutcome
"""The old name of what `record` gives (tui/app.py's annotation still says it)."""


class OutboxRunner:
    """Owns the outbox and its sender for the open group; driven by the app (timers, reactive state)."""

    def __init__(self, app, outbox: Outbox, group: Group | RankingClient) -> None:
        group = Group.of(group)  # a bare client: its group's mirror in memory
        self.app = app
        self.outbox = outbox
        # One round per call: the runner's timer does the waiting between rounds, so a send never keeps the
        # form busy for longer than one attempt.
        self.sender = OutboxSender(
            outbox, group, retry=Backoff(RETRY_DELAYS, tries=1), twins=self.recorded_twins
        )
        self._timer: Timer | None = None
        self.last_report: SendReport | None = None
        self._sends = 0
        self._knock_timer: Timer | None = None
        self._knocking = False
        self._closed = False
        self.knocks = 0
        """Knocks sent (for tests)."""
        self.twins_answered: dict[str, NotTwins] = {}
        """External id -> the matches the form asked about and was told to send anyway, until `record` keeps
        them with the outbox entry (`Outbox.not_twin`): the check when the outbox sends it later, in this
        process or after a restart, does not hold it for them again."""
        self.send_listeners: list[Callable[[], object]] = []
        """Called after each send (entries may have been accepted or rejected): the match form's lines."""
        group.client.reachability_listeners.append(self._reachability)
        if outbox.problem:  # a damaged file was moved aside: where it went, and what was carried over
            app.say(outbox.problem, "warning")
        self._adopt_at = time.monotonic() + ADOPT_EVERY  # the start sends what is pending already
        self._watch_timer: Timer | None = (
            app.set_interval(WATCH_EVERY, self._watch, name="outbox-watch") if outbox.path else None
        )

    @property
    def sending(self) -> bool:
        """True while a send is under way (a request may be in flight: its match may already be recorded,
        so quitting now leaves it in doubt; the next start asks the service before sending it again)."""
        return self._sends > 0

    def close(self) -> None:
        self._closed = True
        self.cancel_retry()
        if self._watch_timer is not None:
            self._watch_timer.stop()
        self._stop_knocking()
        listeners = self.sender.client.reachability_listeners
        if self._reachability in listeners:
            listeners.remove(self._reachability)
        self.outbox.close()

    # ------------------------------------------------------------------ state

    def refresh_counts(self) -> None:
        """The app's counts (the status line, the Outbox screen) as the file holds them now."""
        self.app.outbox_counts = {state.value: n for state, n in self.outbox.counts().items()}

    def _watch(self) -> None:
        """Another seat of the profile wrote the shared outbox file (sent, settled, added): show it."""
        if not self._closed and self.outbox.changed_elsewhere():
            self.refresh_counts()
            for listener in list(self.send_listeners):
                listener()
        self._adopt_left_entries()

    def _adopt_left_entries(self) -> None:
        """Send what is pending in the shared file when no seat does: a seat that queued matches while the
        service was away and then went (its connection dropped, its process killed) left them for the next
        send of any seat, which may be a long time coming. One look every `ADOPT_EVERY` seconds, on a seat
        that is online, sends nothing, waits for no retry and is not paused by the quota; the send lock keeps
        two seats from sending the same entry."""
        now = time.monotonic()
        if self._closed or now < self._adopt_at:
            return
        self._adopt_at = now + ADOPT_EVERY
        if self._sends or self._timer is not None or self._knocking or self.app.offline:
            return
        if self.sender.resume_at is not None:
            return
        if any(not e.held for e in self.outbox.entries(State.PENDING)) or self.outbox.ghosts(State.PENDING):
            self.app.resume_sending()

    def entries(self) -> list[Entry]:
        """The match entries, in submission order (ghost entries: `ghosts()`; both: `queue()`)."""
        return self.outbox.entries()

    def ghosts(self) -> list[GhostEntry]:
        """The ghost player entries, in submission order."""
        return self.outbox.ghosts()

    def queue(self) -> list[Entry | GhostEntry]:
        """Matches and ghosts together, in submission order (what the Outbox screen lists)."""
        return self.outbox.queue()

    def waiting_for(self, entry: Entry) -> list[GhostEntry]:
        """The ghost entries an unsent match waits for (it names them by local id)."""
        return self.outbox.waiting_for(entry.match) if entry.state is not State.SENT else []

    # ------------------------------------------------------------------ sending

    async def record(self, matches: Sequence[NewMatch]) -> BatchOutcome:
        """Write `matches` to the outbox (on disk before anything is sent), send what is pending, and give
        one outcome per match, in order: accepted, rejected (the service's errors), or still waiting. The
        batch's `failure` is what stopped the send (a quota, a refused key, an error of the service), never
        the service being out of reach. Matches the outbox could not write (a full disk) are rejected with
        `outcome.NOT_KEPT` and nothing is sent: the form keeps them."""
        try:
            # online, the form has just looked for a twin of each in the group's fresh matches
            entries = self.outbox.put(matches, checked=not getattr(self.app, "offline", False))
            self._keep_answers(entries)
        except (sqlite3.Error, OSError) as exc:  # a full disk: said at once, and the matches stay in the form
            return not_kept(matches, exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc))
        self.refresh_counts()
        report = await self.send(force=True)
        unsent = [e.external_id for e in map(self._now, entries) if e.state is State.PENDING]
        if unsent:  # checked again when next sent: another seat may record the same match meanwhile
            self.outbox.check_again(unsent)
        outcomes = [
            replace(report.outcomes.get(entry.external_id) or self._now(entry).outcome(), index=index)
            for index, entry in enumerate(entries)
        ]
        # A service that cannot be reached is no failure of the match: its outcome says it waits in the
        # outbox and the status line says the seat is offline. What else stopped the send is said.
        waiting = any(o.waiting for o in outcomes)
        stopped = None if isinstance(report.stopped, Offline) else report.stopped
        return BatchOutcome(tuple(outcomes), stopped if waiting else None)

    def _keep_answers(self, entries: Sequence[Entry]) -> None:
        """The form's "send anyway" answers about `entries`, kept with each entry."""
        for entry in entries:
            answers = self.twins_answered.pop(entry.external_id, None)
            if answers is None:
                continue
            for number in answers.numbers:
                self.outbox.not_twin(entry.external_id, number=number)
            for other in answers.external_ids:
                self.outbox.not_twin(entry.external_id, other=other)

    def _now(self, entry: Entry) -> Entry:
        """`entry` as the file holds it now: another seat's process may have sent it while this one waited."""
        return self.outbox.get(entry.external_id) or entry

    async def create_ghost(self, name: str) -> Player:
        """Make a ghost player called `name`: queued in the outbox (on disk, before any request), then sent.

        Gives the service's player when it was made now; else (the service cannot be reached, the answer was
        lost, sending is paused) the local player, whose id `ids.is_local_id` tells, held in the mirror so
        the match form offers it at once. A name the service refuses raises its error (`ApiError`, e.g.
        R003) and nothing stays queued; an empty or too long name raises ValueError before anything."""
        group = self.sender.group
        # what the seat knew of the name: a ghost of it made since by another seat is taken, not made twice
        entry = self.outbox.add_ghost(name, known=group.cached_players())
        group.hold_player(entry.player)
        self.refresh_counts()
        report = await self.send()
        refusal = report.ghost_refusals.get(entry.local_id)
        if refusal is not None:
            self.discard_ghost(entry.local_id)
            raise refusal
        # another seat's process may have made it while this one waited for the send lock
        return report.ghosts.get(entry.local_id) or (self.outbox.get_ghost(entry.local_id) or entry).player

    def rename_ghost(self, local_id: str, name: str) -> GhostEntry:
        """Fix a rejected ghost's name (the mirror's local player follows); it is pending again."""
        entry = self.outbox.rename_ghost(local_id, name)
        self.sender.group.drop_player(local_id)
        self.sender.group.hold_player(entry.player)
        self.refresh_counts()
        return entry

    def discard_ghost(self, local_id: str) -> list[str]:
        """Forget a ghost entry (not in doubt) and its local player; the unsent matches naming it become
        rejected (code `GHOST_DISCARDED`), to be given another player. Returns their external ids."""
        entry = self.outbox.get_ghost(local_id)
        naming = self.outbox.discard_ghost(local_id)
        if entry is not None and not entry.player_id:
            self.sender.group.drop_player(local_id)
        self.refresh_counts()
        return naming

    async def send(self, *, force: bool = False) -> SendReport:
        """Send every pending entry now; wait on a timer for the next send when the report asks for one."""
        self.cancel_retry()
        self._sends += 1
        try:
            report = await self.sender.send_pending(force=force)
        finally:
            self._sends -= 1
        self.last_report = report
        self.refresh_counts()
        for listener in list(self.send_listeners):
            listener()
        if isinstance(report.stopped, AuthError) and not report.stopped.token_problem:
            self.app.credentials_refused(report.stopped)
            return report
        paused = report.paused
        self.app.outbox_note = (
            "sending paused: quota reached; it resumes when the hour turns" if paused else ""
        )
        held = self.outbox.newly_held(report.held)  # this seat's to answer (a guest's: its own)
        if held:
            count = len(held)
            self.app.say(
                f"{count} match{'es' if count != 1 else ''} from the outbox look{'s' if count == 1 else ''} like"
                " one recorded lately from another seat: held, not sent. The Outbox (o) asks: send anyway (a)"
                " or discard (x).",
                "warning",
            )
        if report.retry_in is not None:
            self._schedule(max(1.0, report.retry_in) if paused else report.retry_in)
        return report

    def _schedule(self, delay: float) -> None:
        self._timer = self.app.set_timer(delay, self.app.resume_sending)

    def cancel_retry(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # ------------------------------------------------------------------ knocking while unreachable

    def _reachability(self, reachable: bool) -> None:
        """The client's listener: a request failed to reach the service (knock soon) or got an answer."""
        if reachable:
            self._stop_knocking()
        elif not self._knocking:
            self._knock_later()

    def _knock_later(self) -> None:
        if self._closed or self._knock_timer is not None:
            return
        self._knock_timer = self.app.set_timer(KNOCK_EVERY, self._knock, name="outbox-knock")

    def _stop_knocking(self) -> None:
        if self._knock_timer is not None:
            self._knock_timer.stop()
            self._knock_timer = None

    def _knock(self) -> None:
        self._knock_timer = None
        if not self._closed and not self._knocking:
            self.app.run_worker(self._knock_once(), group="outbox-knock", exit_on_error=False)

    async def _knock_once(self) -> None:
        """One small request: an answer (whatever it says) wakes the app through the client's listeners;
        no answer knocks again later."""
        self._knocking = True
        self.knocks += 1
        unanswered = False
        try:
            await self.sender.client.test()
        except Offline:
            unanswered = True
        except RanktermError:
            pass  # an answer all the same: the service is there
        finally:
            self._knocking = False
        if unanswered:
            self._knock_later()

    # ------------------------------------------------------------------ entry actions

    def retry(self, external_id: str) -> None:
        self.outbox.retry(external_id)
        self.refresh_counts()

    def send_anyway(self, external_id: str) -> None:
        """A held match is not the twin it looks like: sent with the next send (and never held for that twin
        again, should the service be gone by then)."""
        entry = self.outbox.get(external_id)
        twin = entry.twin if entry is not None else None
        if twin is not None:
            self.outbox.not_twin(external_id, number=twin.number, other=twin.external_id)
        self.outbox.mark_twin([external_id])
        self.refresh_counts()

    async def recorded_twins(self, matches: Sequence[NewMatch]) -> dict[str, Twin]:
        """The sender's twin check (`twins.TwinCheck`): for each match, the newest match the group recorded in
        the last 30 minutes that looks the same by the form's rule (`find_twin`). The group's matches are
        brought up to date in the mirror first (one page read when it holds none yet); a twin this outbox
        sent itself says so ("from this machine")."""
        try:
            recent = await self.sender.group.twin_candidates(matches)
        except (Offline, QuotaError, AuthError, ServiceError):
            raise  # nothing can be sent now either: the send stops (and is tried again) as on its POST
        except RanktermError:
            return {}  # the group's list could not be read as it came: sent unchecked, not held forever
        client = self.sender.client
        now = datetime.fromtimestamp(client.clock(), UTC)
        found: dict[str, Twin] = {}
        for match in matches:
            twin = find_twin(match, recent, now)
            if twin is not None and match.external_id and twin.external_id != match.external_id:
                at = recorded_at(twin)
                from_here = bool(twin.external_id) and self.outbox.get(twin.external_id or "") is not None
                found[match.external_id] = Twin(
                    twin.number,
                    str(twin.id),
                    at.isoformat() if at else "",
                    from_here=from_here,
                    external_id=twin.external_id or "",
                )
        return found

    def twin_answered(self, external_id: str, number: int | None = None, other: str = "") -> None:
        """The person sends match `external_id` although it looks like recorded match `number`, or like the
        match `other` not recorded yet (asked in the form); kept with its entry once `record` writes it."""
        answers = self.twins_answered.get(external_id, NotTwins())
        self.twins_answered[external_id] = answers.adding(number, other)

    def discard(self, external_id: str) -> None:
        self.outbox.discard(external_id)
        self.refresh_counts()

    def replace(self, external_id: str, match: NewMatch) -> None:
        """Put a fixed `match` in the place of entry `external_id` (it may carry a new external id)."""
        self.outbox.edit(external_id, match)
        self.refresh_counts()


OutboxFactory = Callable[[RankingClient, bool], Outbox]
"""Makes the outbox for a client (its scope is the client's service and key); the bool says "demo"."""


def memory_outbox(client: RankingClient, demo: bool) -> Outbox:
    """An outbox that lives as long as the app (tests, and the demo whose group dies with the process)."""
    return Outbox(None, scope=client.scope)
