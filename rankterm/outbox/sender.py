"""Sending the outbox: every pending entry reaches the service exactly once, in the order it was submitted.

`OutboxSender.send_pending` marks each batch in doubt before its POST, settles it from the answer (asking
`matches/match/exists` for one in doubt before sending it again), holds a match that looks like another
seat's (`twins.TwinCheck`), sends a ghost on its own before the matches after it (`GhostSender`), pauses on
the quota and tries transient failures again after one `send_policy.Backoff`. What it did: `SendReport`.
See docs/design/local-files.md.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from rankterm.client.send_policy import Backoff, batches
from rankterm.outbox.entry import Entry
from rankterm.outbox.file import State
from rankterm.outbox.ghost_sender import GhostSender
from rankterm.outbox.ghosts import UNKNOWN_LOCAL, GhostEntry, local_ids
from rankterm.outbox.outcome import ALREADY_ACCEPTED, Outcome, OutcomeState, error_items
from rankterm.outbox.queue import SendQueue
from rankterm.outbox.report import SendReport
from rankterm.outbox.twins import UNCHECKED, TwinCheck
from rankterm.wire.errors import (
    AuthError,
    ErrorItem,
    MatchRejected,
    Offline,
    QuotaError,
    RanktermError,
    ServiceError,
    UnexpectedResponse,
)
from rankterm.wire.ids import EXTERNAL_ID_PREFIX
from rankterm.wire.models import Player

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group


_MADE_ID = re.compile(re.escape(EXTERNAL_ID_PREFIX) + r"[0-9a-f]{12}")


def ours(external_id: str) -> bool:
    """Whether `external_id` is one the outbox made (`ids.new_external_id`), not one typed or imported: an
    M003 on a typed id's first attempt is another match holding it, a real rejection."""
    return _MADE_ID.fullmatch(external_id) is not None


def next_hour(now: float) -> float:
    return (int(now) // 3600 + 1) * 3600.0


class OutboxSender:
    """Sends an outbox's pending entries (ghosts, then the matches after them) through a client, exactly once each."""

    def __init__(
        self,
        outbox: SendQueue,
        group: Group | RankingClient,
        *,
        max_rounds: int = 8,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        retry: Backoff | None = None,
        twins: TwinCheck | None = None,
    ) -> None:
        """`retry`: the waits between rounds and the rounds a call makes; by default `backoff` doubling up
        to `max_backoff`, `max_rounds` rounds. `sleep` waits between the rounds of one call. `twins`: the
        check of matches not checked yet for a twin before their first attempt (None: none is made)."""
        self.outbox = outbox
        from rankterm.mirror import Group

        self.group = Group.of(group)  # a bare client: its group's mirror in memory
        self.client = self.group.client
        self.retry = retry or Backoff.doubling(backoff, cap=max_backoff, tries=max(1, max_rounds))
        self.sleep = sleep
        self.resume_at: float | None = None
        self.ghosts = GhostSender(outbox, self.group)
        self.twins = twins
        self._failures = 0
        """Rounds in a row that failed on something that passes (across calls; a clean round resets it)."""
        self._one_at_a_time = asyncio.Lock()
        self._waiting: dict[int, SendReport] = {}
        """The reports of the sends waiting for this one to end, by identity."""

    async def _settle_doubts(
        self, entries: list[Entry | GhostEntry], report: SendReport
    ) -> list[Entry | GhostEntry]:
        """Ask the service about entries in doubt; return those that still need sending."""
        out: list[Entry | GhostEntry] = []
        players: list[Player] | None = None  # read once for every ghost in doubt
        for entry in entries:
            if isinstance(entry, GhostEntry):
                if entry.in_doubt:
                    made, players = await self.ghosts.settle(entry, report, players)
                    if made:
                        continue
                out.append(entry)
            elif entry.in_doubt and await self.client.match_exists(entry.external_id):
                self._sent_each({entry.external_id: ""}, report)
                report.confirmed_by_exists += 1
            else:
                out.append(entry)
        return out

    def _sent_each(self, match_ids: Mapping[str, str], report: SendReport) -> None:
        """Settle matches as recorded (external id -> the service's id for it) and report them. The answer
        to a send carries no match number (WIRE.md: index, id, name, errors), so the outcomes have none:
        `effect.number_for` finds it when it is wanted."""
        self.outbox.mark_sent_each(match_ids)
        for external_id, match_id in match_ids.items():
            report.sent += 1
            report.outcomes[external_id] = Outcome(0, OutcomeState.ACCEPTED, external_id, match_id=match_id)

    def _rejected(self, external_id: str, errors: Sequence[ErrorItem], report: SendReport) -> None:
        kept = self.outbox.mark_rejected(external_id, errors)
        report.rejected += 1
        report.outcomes[external_id] = Outcome(0, OutcomeState.REJECTED, external_id, kept)

    def _sendable(self, matches: Sequence[Entry], report: SendReport) -> list[Entry]:
        """The guard: the entries of `matches` that name no local id. The others are never sent: a match whose
        ghost is queued waits (pending); one naming a local id no ghost entry holds is rejected."""
        out = []
        for entry in matches:
            named = local_ids(entry.match)
            missing = [lid for lid in named if self.outbox.get_ghost(lid) is None]
            if missing:
                item = ErrorItem(
                    UNKNOWN_LOCAL, f"A player of this match was never made: {', '.join(missing)}."
                )
                self._rejected(entry.external_id, [item], report)
            elif named:
                report.waiting += 1
                report.outcomes[entry.external_id] = entry.outcome()
            else:
                out.append(entry)
        return out

    async def _send_batch(self, matches: Sequence[Entry], report: SendReport) -> None:
        """Send `matches` (pending, in order, no ghost between them) in the client's batches, past the guard:
        a match naming a local id is never sent."""
        for batch in batches(
            await self._not_held(self._sendable(matches, report), report), self.client.batch_size
        ):
            await self._post(batch, report)

    async def _not_held(self, matches: list[Entry], report: SendReport) -> list[Entry]:
        """`matches` but those the twin check holds: a match not checked yet that looks like one the service got
        lately from another seat is held (written so), not sent. An earlier attempt does not spare the check:
        a match in doubt gets here only once the service said it does not hold it (`_settle_doubts`). A twin
        the person already said it is not (`Entry.not_twins`) does not hold it."""
        unchecked = [e for e in matches if e.twin_state == UNCHECKED]
        if self.twins is None or not unchecked:
            return matches
        answered = {e.external_id: e.not_twins for e in unchecked}
        found = {
            external_id: twin
            for external_id, twin in (await self.twins([e.match for e in unchecked])).items()
            if external_id in answered and not answered[external_id].covers(twin)  # asked and answered: sent
        }
        for external_id, twin in found.items():
            self.outbox.mark_twin([external_id], twin)
            held = self.outbox.get(external_id)
            if held is not None:
                report.held.append(external_id)
                report.outcomes[external_id] = held.outcome()
        self.outbox.mark_twin(e.external_id for e in unchecked if e.external_id not in found)
        return [e for e in matches if e.external_id not in found]

    async def _post(self, batch: Sequence[Entry], report: SendReport) -> None:
        """One request: the batch written in doubt first, then settled from the answer. An entry fixed or
        discarded since it was read is not sent now (`SendQueue.take_for_sending`)."""
        batch = self.outbox.take_for_sending(batch)
        if not batch:
            return
        try:
            answer = await self.group.add_matches([e.match for e in batch])
        except MatchRejected as exc:  # the request as a whole was refused: nothing of it was recorded
            errors = exc.errors or (ErrorItem(exc.code or "", str(exc)),)
            for entry in batch:
                self._rejected(entry.external_id, errors, report)
            return
        except RanktermError:  # no answer, or not one to settle by: they may be recorded
            for entry in batch:
                report.outcomes[entry.external_id] = Outcome(0, OutcomeState.IN_DOUBT, entry.external_id)
            raise
        sent = {batch[item.index].external_id: item.id for item in answer.accepted}
        refused: list[tuple[str, tuple[ErrorItem, ...]]] = []
        for item in answer.rejected:
            entry = batch[item.index]
            errors = error_items(item)
            if not any(e.code == ALREADY_ACCEPTED for e in errors):
                refused.append((entry.external_id, errors))
            elif entry.attempts > 0 or (ours(entry.external_id) and await self._landed_elsewhere(entry)):
                sent[entry.external_id] = ""  # an earlier attempt landed (its answer was lost), or another's
            else:
                refused.append((entry.external_id, errors))
        self._sent_each(sent, report)  # the batch's accepted matches in one write
        for external_id, errors in refused:
            self._rejected(external_id, errors, report)

    async def _landed_elsewhere(self, entry: Entry) -> bool:
        """After an M003 on the first attempt of an entry whose external id the outbox made (`ours`): whether
        the service holds that id. Made at random, it is no other match's: the match held under it is this
        one, sent by another process of this outbox or a run whose attempt the file did not keep, so it is
        settled as sent, never rejected (re-entering a rejected one would record it twice)."""
        try:
            return await self.client.match_exists(entry.external_id)
        except RanktermError:
            return False

    async def _send_in_order(self, pending: list[Entry | GhostEntry], report: SendReport) -> None:
        """The matches between two ghosts together (`_send_batch`); a ghost on its own, so it is made before
        the matches after it (which are read again: its real id may now stand in them)."""
        run: list[Entry] = []
        reread = bool(report.ghosts)  # a ghost settled from a lost answer has rewritten the matches after it
        for item in pending:
            if isinstance(item, GhostEntry):
                await self._send_batch(run, report)
                run = []
                await self.ghosts.send(item, report)
                reread = True
                continue
            entry = self.outbox.get(item.external_id) if reread else item
            if entry is not None and entry.state is State.PENDING and not entry.held:
                run.append(entry)
        await self._send_batch(run, report)

    async def send_pending(self, *, force: bool = False) -> SendReport:
        """Send every pending entry; retry transient failures after the waits of `retry`, up to its `tries`
        rounds.

        One send at a time (a second caller waits for the first), in this process and across every process
        that opens the outbox file (`Outbox.send_lock`): a ghost's POST is not idempotent, so two sends must
        never both find it pending and post it. What is pending is read once the lock is held. A caller that
        waited in this process is told what the send before it settled (`SendReport.take_in`)."""
        report = SendReport()
        self._waiting[id(report)] = report
        try:
            async with self._one_at_a_time:
                del self._waiting[id(report)]
                async with self.outbox.send_lock.held():  # and one process at a time
                    await self._send_pending(force, report)
                for other in self._waiting.values():
                    other.take_in(report)
        finally:
            self._waiting.pop(id(report), None)  # cancelled while it waited
        return report

    async def _send_pending(self, force: bool, report: SendReport) -> None:
        if self.resume_at is not None and not force and self.client.clock() < self.resume_at:
            report.resume_at = self.resume_at
            report.retry_in = self.resume_at - self.client.clock()
            return
        self.resume_at = None
        rounds = 0
        while True:
            rounds += 1
            report.waiting = 0
            try:
                pending = [e for e in self.outbox.queue(State.PENDING) if not getattr(e, "held", False)]
                await self._send_in_order(await self._settle_doubts(pending, report), report)
            except QuotaError as exc:
                self.resume_at = report.resume_at = next_hour(self.client.clock())
                report.retry_in = self.resume_at - self.client.clock()
                report.stopped = exc
                return
            except AuthError as exc:
                report.stopped = exc
                if exc.token_problem:  # a token refused twice: worth another send later
                    self._failed(report)
                return
            except (Offline, ServiceError) as exc:
                report.failures += 1
                report.stopped = exc
                self._failed(report)
                if self.retry.more(rounds):  # no wait after the last round: `retry_in` says when
                    await self.sleep(self.retry.wait(self._failures))
                    continue
                return
            if isinstance(report.stopped, UnexpectedResponse):  # a ghost's answer not understood
                self._failed(report)
            else:
                report.stopped = None
                self._failures = 0
            return

    def _failed(self, report: SendReport) -> None:
        """Count a failed round; the next send should start after the wait the count calls for (none when
        nothing is left to send)."""
        if not self.outbox.counts()[State.PENDING]:
            self._failures = 0
            report.retry_in = None
            return
        self._failures += 1
        report.retry_in = self.retry.wait(self._failures)
