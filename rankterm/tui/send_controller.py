"""The match form's sender: what a send does, apart from what the screen shows of it.

`SendController` holds the queue and the matches this form recorded, looks for the same match recorded twice
(`find_twin`, read from the group's mirror), sends a batch (a dry run to the service, a real send through the
outbox), and says what became of each match as the lines the form shows; it follows the matches the outbox
kept while the form is shown. It knows no widget: the screen (`MatchEntryScreen`) asks the questions,
moves the focus and shows the lines. See docs/design/tui.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from rankterm.outbox.entry import Entry, State
from rankterm.outbox.outcome import ALREADY_ACCEPTED, BatchOutcome, Outcome, OutcomeState, from_answer
from rankterm.tui.text import error_sentence
from rankterm.tui.widgets.match_form.answer import BAD, NOTE, OK
from rankterm.tui.widgets.match_form.twin import (
    ELSEWHERE,
    THIS_COMPUTER,
    THIS_SEAT,
    WINDOW,
    batch_question,
    find_twin,
    kept_question,
    looks_like_kept,
    twin_question,
)
from rankterm.wire.errors import ErrorItem, RanktermError
from rankterm.wire.models import Match, NewMatch

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.tui.session import Session

__all__ = [
    "AFTER_ACCEPT",
    "AFTER_REJECT",
    "FIELD_OF_CODE",
    "MIRROR_FRESH_FOR",
    "Line",
    "Moved",
    "Pending",
    "Report",
    "Seat",
    "SendController",
    "TwinFound",
    "describe_errors",
    "line_for",
]

AFTER_ACCEPT = "n new match · ctrl+r rematch (same game and players)"
AFTER_REJECT = "The form is kept as it was: fix it and send again (ctrl+s)."
MIRROR_FRESH_FOR = 10.0
"""Seconds for which the mirror's matches are recent enough to look for the same match twice in, with no
request (the live probe rests while the form is shown, so they are usually read again at a send)."""

FIELD_OF_CODE = {ALREADY_ACCEPTED: "external_id", "M004": "game", "M005": "factions"}
"""The form field a rejection code is about (the service's own codes; the others are judged in the form)."""

Line = tuple[str, str]
"""One line of the form's answer: its kind (`answer.OK`, `BAD`, `NOTE`) and its text."""


class Seat(Protocol):
    """What the sender needs of the app: the open service, whether it answers, and the one way to record."""

    @property
    def session(self) -> Session | None: ...

    @property
    def offline(self) -> bool: ...

    async def record_matches(self, matches: list[NewMatch]) -> BatchOutcome: ...


@dataclass
class Pending:
    """A match ready to send: a queued one, or the one in the form."""

    match: NewMatch
    label: str
    queued: bool


@dataclass(frozen=True)
class TwinFound:
    """A real send stopped before anything went: a match of the batch looks like one the group recorded in
    the last 30 minutes. `question` is what to ask; sent anyway with `send(..., checked=True)`."""

    item: Pending
    twin: Match | None
    """The recorded match it looks like; None for one still waiting in the outbox (`kept`)."""
    question: str
    kept: str = ""
    """The external id of the match not recorded yet it looks like (`twin` None): waiting in the outbox, or
    an earlier one of the batch (`in_batch`)."""
    in_batch: bool = False
    """It looks like another match of the same batch (`twin` None, `kept` empty)."""

    @property
    def named(self) -> str:
        """What it looks like, as a sentence names it: "match 313", "the match waiting in the outbox"."""
        if self.twin is not None:
            return f"match {self.twin.number}"
        return "another match of this batch" if self.in_batch else "the match waiting in the outbox"


@dataclass(frozen=True)
class Report:
    """What became of a batch, for the form: its `lines`, whether the form's own match was recorded (accepted
    or kept in the outbox), the form's rejection (whose codes name fields), the accepted matches by index
    (whose effect on the standings follows)."""

    batch: BatchOutcome
    lines: list[Line]
    form_done: bool
    rejection: Outcome | None
    accepted: list[tuple[int, Outcome]] = field(default_factory=list)

    def fields(self) -> list[str]:
        """The form fields the rejection's codes name, in the order of its codes."""
        if self.rejection is None:
            return []
        return [FIELD_OF_CODE[code] for code in self.rejection.codes if code in FIELD_OF_CODE]


@dataclass(frozen=True)
class Moved:
    """A match said to be kept in the outbox that the outbox has now sent or the service refused: the line
    that said so (`said`), the line to put in its place, and its outcome."""

    said: Line
    line: Line
    outcome: Outcome


def describe_errors(errors: tuple[ErrorItem, ...]) -> str:
    """The service's errors for a person: each message with its code, "; " between them."""
    return (
        "; ".join(f"{e.message or e.code}" + (f" ({e.code})" if e.message and e.code else "") for e in errors)
        or "no reason given"
    )


def line_for(item: Pending, outcome: Outcome) -> Line:
    """The form's line for one match of a batch: accepted, rejected (the service's reasons), not checked, or
    kept in the outbox."""
    where = " [queued]" if item.queued else ""
    if outcome.accepted:
        verdict = "would be accepted (dry run, nothing saved)" if outcome.dry_run else "accepted"
        if not outcome.dry_run and outcome.match_id and outcome.match_id != item.match.external_id:
            verdict += f" as match id {outcome.match_id}"
        return OK, f"✔ {item.label}{where}: {verdict}."
    if outcome.rejected:
        return BAD, f"✘ {item.label}{where}: rejected: {describe_errors(outcome.errors)}"
    if outcome.dry_run:
        return BAD, f"✘ {item.label}{where}: not checked."
    return NOTE, f"⧗ {item.label}{where}: saved in the outbox, sent when the service answers."


class SendController:
    """The queue, the matches recorded from this form, and each send and what became of it."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.queue: list[Pending] = []
        self.recorded: set[str] = set()
        """External ids accepted in this session: a second send of the same form is refused here."""
        self.last_answer: BatchOutcome | None = None
        """What became of the last batch sent or checked: one `Outcome` per match."""
        self.sending = False
        """True while a batch is on its way: a second send waits (it would race the first)."""
        self.editing: str | None = None
        """The external id of the outbox entry loaded into the form: sending replaces that entry."""
        self.in_outbox: dict[str, tuple[Pending, Line]] = {}
        """Matches whose line says "saved in the outbox": external id -> (the match, its line)."""
        self.last_recorded: NewMatch | None = None
        """The last match of a batch this form sent that was recorded (accepted, or kept in the outbox)."""
        self.on_moved: Callable[[list[Moved]], None] | None = None
        """Told when matches of `in_outbox` were sent or refused by the outbox meanwhile (`Moved`)."""
        self._listening: Session | None = None

    def now(self) -> datetime:
        """The moment of recording, by the client's clock (UTC, the service's time zone)."""
        session = self.seat.session
        clock = session.client.clock if session is not None else None
        return datetime.fromtimestamp(clock() if clock else datetime.now(UTC).timestamp(), UTC)

    def taken_ids(self) -> set[str]:
        """External ids a new match of the form may not take: recorded, or queued. The outbox entry being
        fixed keeps its own (the outbox refuses it once that entry was sent)."""
        taken = self.recorded | {p.match.external_id for p in self.queue if p.match.external_id}
        return taken - {self.editing} if self.editing else taken

    def rematch_of(self) -> NewMatch | None:
        """The match a rematch on a blank form plays again: the last one this form recorded, else the newest
        match this seat put in the outbox (`Outbox.recorded_here`: an earlier session's, whether it reached the
        service or not, never another app of the profile still running);
        None when there is none. Ghosts it names by a local id that the service has made are named by theirs."""
        session = self.seat.session
        if session is None:
            return self.last_recorded
        outbox = session.outbox.outbox
        last = self.last_recorded
        if last is None:
            mine = outbox.recorded_here()
            last = mine.match if mine is not None else None
        # a ghost typed while the service was gone and made since is named by the service's id
        return outbox.resolve(last) if last is not None else None

    def recorded_match(self, external_id: str) -> NewMatch | None:
        """The match this form recorded under `external_id` (the last one, or the outbox's entry)."""
        if self.last_recorded is not None and self.last_recorded.external_id == external_id:
            return self.last_recorded
        session = self.seat.session
        entry = session.outbox.outbox.get(external_id) if session is not None else None
        return entry.match if entry is not None else None

    def already_recorded(self, external_id: str, label: str) -> Line:
        """What ctrl+s says on a form whose match (`external_id`, named `label` when the outbox does not hold
        it) was recorded from it and nothing typed since: nothing is sent again; the match is named by its
        number when the mirror holds it (no request), else as waiting in the outbox."""
        session = self.seat.session
        entry = session.outbox.outbox.get(external_id) if session is not None else None
        if entry is not None and entry.outcome().waiting:
            return (
                NOTE,
                f"{label} is already recorded: it waits in the outbox, sent when the service answers.",
            )
        number = None
        if session is not None:
            names = {external_id, entry.match_id if entry is not None else ""} - {""}
            newest = session.group.cached_matches(limit=20)  # where a match just recorded is
            found = [m for m in newest if str(m.id) in names or m.external_id in names]
            found = found or session.group.held_matches_named(*names)  # a look through every held match
            number = next((m.number for m in found if m.number is not None), None)
        recorded_as = f" as match {number}" if number is not None else ""
        return NOTE, f"{label} is already recorded{recorded_as}: nothing sent again."

    # ------------------------------------------------------------------ the same match twice

    async def recent_matches(self, pending: list[Pending]) -> list[Match]:
        """The group's matches that may be twins of `pending`'s (`Group.twin_candidates`), the held ones
        brought up to date first unless the seat is offline or they were in the last `MIRROR_FRESH_FOR`
        seconds; when they cannot be read, what the mirror holds is the best there is."""
        session = self.seat.session
        if session is None:
            return []
        group = session.group
        matches = [item.match for item in pending]
        sync = not self.seat.offline and not group.matches_fresh(MIRROR_FRESH_FOR)
        try:
            return await group.twin_candidates(matches, sync=sync)
        except RanktermError:
            return await group.twin_candidates(matches, sync=False)

    def sent_from(self, match: Match) -> str:
        """Where `match` went out from, as far as this seat can tell: this seat (this form sent it), another
        seat of this computer (the outbox the seats of this profile share holds it), else another seat."""
        if match.external_id and match.external_id in self.recorded:
            return THIS_SEAT
        session = self.seat.session
        if match.external_id and session is not None and session.outbox.outbox.get(match.external_id):
            return THIS_COMPUTER
        return ELSEWHERE

    async def find_twin(self, pending: list[Pending]) -> TwinFound | None:
        """The first match of `pending` that looks like one the group recorded in the last 30 minutes, one
        waiting in the outbox, or an earlier one of `pending`, and the question to ask about it; None when
        there is none."""
        now = self.now()
        recent = await self.recent_matches(pending)
        kept = self._kept(pending, now)
        for index, item in enumerate(pending):
            label = item.label if item.queued or len(pending) > 1 else ""
            earlier = next((e for e in pending[:index] if looks_like_kept(item.match, e.match)), None)
            if earlier is not None:
                other = earlier.match.external_id or ""
                return TwinFound(item, None, batch_question(item.label), kept=other, in_batch=True)
            twin = find_twin(item.match, recent, now)
            if twin is not None:
                return TwinFound(item, twin, twin_question(twin, now, self.sent_from(twin), label))
            for entry in kept:
                if looks_like_kept(item.match, entry.match):
                    age = now.timestamp() - entry.created_at
                    where = self.kept_from(entry)
                    return TwinFound(item, None, kept_question(age, where, label), kept=entry.external_id)
        return None

    def _kept(self, pending: list[Pending], now: datetime) -> list[Entry]:
        """The matches waiting in the outbox, put there in the last `WINDOW`, that are not of `pending` nor
        the entry the form fixes, newest first."""
        session = self.seat.session
        if session is None:
            return []
        ours = {p.match.external_id for p in pending} | {self.editing}
        since = now.timestamp() - WINDOW.total_seconds()
        waiting = [
            entry
            for entry in session.outbox.outbox.entries(State.PENDING)
            if entry.external_id not in ours and entry.created_at >= since
        ]
        return sorted(waiting, key=lambda entry: entry.created_at, reverse=True)

    def kept_from(self, entry: Entry) -> str:
        """Where a match waiting in the outbox was recorded from: this seat (this form), another seat of this
        computer (the profile's own app), or another seat (a guest's)."""
        if entry.external_id in self.recorded:
            return THIS_SEAT
        session = self.seat.session
        mine = session is not None and entry.seat == session.outbox.outbox.seat
        return THIS_COMPUTER if mine or not entry.seat else ELSEWHERE

    def twin_answered(self, found: TwinFound) -> None:
        """The person sends `found`'s match anyway: the outbox, should it keep the match and check it again
        when it sends it (after a restart too), does not hold it for the same twin."""
        session = self.seat.session
        external_id = found.item.match.external_id
        if session is None or not external_id:
            return
        if found.twin is not None:
            session.outbox.twin_answered(external_id, number=found.twin.number)
        elif found.kept:
            session.outbox.twin_answered(external_id, other=found.kept)

    # ------------------------------------------------------------------ sending

    async def send(
        self, pending: list[Pending], dry_run: bool, *, checked: bool = False
    ) -> TwinFound | Report:
        """Send `pending` as one batch: a dry run straight to the service, a real send through the outbox
        (on disk first; kept there and sent later when the service cannot be reached). A real send not
        `checked` yet first looks for the same match recorded in the last 30 minutes: found, nothing is sent
        and the `TwinFound` is given, to ask about."""
        overtaken = None if dry_run else self._edit_overtaken(pending)
        if overtaken is not None:
            return overtaken
        self.sending = True
        matches = [p.match for p in pending]
        try:
            if not dry_run and not checked:
                found = await self.find_twin(pending)
                if found is not None:
                    return found
            if dry_run:
                answer = await self._client().add_matches(matches, dry_run=True)
                batch = from_answer(matches, answer, dry_run=True)
            else:
                self._replace_edited(pending)
                batch = await self.seat.record_matches(matches)
        except RanktermError as failure:
            # A dry run cut short leaves matches unchecked; a send that failed before the outbox took the
            # matches leaves them unrecorded (the outbox itself never raises for the service's sake).
            uncovered = OutcomeState.PENDING if dry_run else OutcomeState.REJECTED
            batch = from_answer(
                matches, failure.partial, dry_run=dry_run, failure=failure, uncovered=uncovered
            )
        finally:
            self.sending = False
        self.last_answer = batch
        return self._report(pending, batch)

    def _client(self) -> RankingClient:
        """The open service's client; a RanktermError (said as the batch's failure) when none is open."""
        session = self.seat.session
        if session is None:
            raise RanktermError("No service is open: pick a profile or open the demo group (l).")
        return session.client

    def _edit_overtaken(self, pending: list[Pending]) -> Report | None:
        """The outbox entry the form fixes was sent (or is on its way) since it was loaded, as it stood: the
        fix is not sent (under any external id it would record the match twice), and the report says so;
        nothing of the batch goes. None when the fix may go."""
        session = self.seat.session
        if self.editing is None or session is None or all(p.queued for p in pending):
            return None
        entry = session.outbox.outbox.get(self.editing)
        if entry is None or not (entry.state is State.SENT or entry.in_doubt):
            return None
        sentence = (
            f"Match {self.editing} was already sent from the outbox meanwhile, as it stood before this fix:"
            " nothing was sent now."
        )
        batch = from_answer(
            [p.match for p in pending],
            None,
            dry_run=False,
            failure=RanktermError(sentence),
            uncovered=OutcomeState.REJECTED,
        )
        return Report(batch, [(BAD, f"✘ {sentence}")], form_done=False, rejection=None)

    def _replace_edited(self, pending: list[Pending]) -> None:
        """The form's match fixes the outbox entry `editing`: it takes that entry's place (under its new
        external id, when the fix changed it), so the old rejection is not listed beside the fix."""
        form_match = next((p.match for p in pending if not p.queued), None)
        session = self.seat.session
        if self.editing is None or form_match is None or session is None:
            return
        if form_match.external_id != self.editing:
            session.outbox.replace(self.editing, form_match)
        self.editing = None

    def _report(self, pending: list[Pending], batch: BatchOutcome) -> Report:
        """What happened to each match; the rejected are kept (queued ones stay queued)."""
        lines = [line_for(item, outcome) for item, outcome in zip(pending, batch.outcomes, strict=True)]
        self.in_outbox = {
            item.match.external_id: (item, line)
            for item, outcome, line in zip(pending, batch.outcomes, lines, strict=True)
            if outcome.waiting and not batch.dry_run and item.match.external_id
        }
        if self.in_outbox:
            self._follow_outbox()
        if batch.failure is not None:
            lines.append((BAD, f"✘ {error_sentence(batch.failure)}"))
        form_index = next((i for i, p in enumerate(pending) if not p.queued), None)
        form_outcome = batch[form_index] if form_index is not None else None
        form_done = False
        if not batch.dry_run:
            done = {o.index for o in batch.outcomes if o.accepted or o.waiting}
            self.queue = [p for i, p in enumerate(pending) if p.queued and i not in done]
            self.recorded |= {
                p.match.external_id for i, p in enumerate(pending) if i in done and p.match.external_id
            }
            if done:
                self.last_recorded = pending[max(done)].match
            if form_index is not None and form_index in done:
                form_done = True
                lines.append((NOTE, AFTER_ACCEPT))
        rejection = form_outcome if form_outcome is not None and form_outcome.rejected else None
        if rejection is not None:
            lines.append((NOTE, AFTER_REJECT))
        accepted: list[tuple[int, Outcome]] = []
        if not batch.dry_run and batch.accepted_count:
            accepted = [(i, o) for i, o in enumerate(batch.outcomes) if o.accepted]
        return Report(batch, lines, form_done, rejection, accepted)

    # ------------------------------------------------------------------ the outbox meanwhile

    def _follow_outbox(self) -> None:
        """Hear from the outbox after each of its sends while a match on the form waits in it."""
        session = self.seat.session
        if session is not None and self._outbox_moved not in session.outbox.send_listeners:
            session.outbox.send_listeners.append(self._outbox_moved)
            self._listening = session

    def close(self) -> None:
        """No more news from the outbox (the form is gone)."""
        session, self._listening = self._listening, None
        if session is not None and self._outbox_moved in session.outbox.send_listeners:
            session.outbox.send_listeners.remove(self._outbox_moved)

    def outbox_moved(self) -> list[Moved]:
        """The matches of `in_outbox` that the outbox has sent since (or the service refused): each with its
        new line; they are no longer followed."""
        session = self.seat.session
        if not self.in_outbox or session is None:
            return []
        moved: list[Moved] = []
        for external_id, (item, said) in list(self.in_outbox.items()):
            entry = session.outbox.outbox.get(external_id)
            outcome = entry.outcome() if entry is not None else None
            if outcome is not None and outcome.waiting:
                continue
            del self.in_outbox[external_id]
            if outcome is not None:
                moved.append(Moved(said, line_for(item, outcome), outcome))
        return moved

    def _outbox_moved(self) -> None:
        moved = self.outbox_moved()
        if moved and self.on_moved is not None:
            self.on_moved(moved)
