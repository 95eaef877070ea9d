"""An import sent: the plan's new games made, its new ghosts and its matches queued in the outbox and sent
from there, a chunk at a time, oldest first.

    report = await send_plan(plan, client, outbox, sender.send_pending, progress=bar.update)

Every match is on disk with its external id before it is sent, so a dropped connection loses nothing and sends
nothing twice. Games cannot wait in the outbox: they are made first. `send` is whatever sends the outbox's
pending entries. Memory stays flat: `CHUNK` matches at a time, one sync to disk a chunk. See docs/importing.md
("Sending").
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rankterm.importing.plan import Plan
from rankterm.outbox.ghosts import with_ids
from rankterm.wire.errors import ApiError, BadRequest, NotFound, Offline, RanktermError

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.outbox.outbox import Outbox, SendReport
    from rankterm.wire.models import NewMatch

CHUNK = 100
"""Matches queued between two sends (the sender splits them into the client's batches)."""


@dataclass
class ImportReport:
    """What sending a plan did."""

    recorded: int = 0
    rejected: int = 0
    rejected_codes: Counter[str] = field(default_factory=Counter)
    """How many matches the service rejected, by its code (or its message when it gave none)."""
    waiting: int = 0
    """Matches of this import left pending in the outbox (sent later)."""
    ghosts_made: int = 0
    games_made: int = 0
    games_refused: dict[str, str] = field(default_factory=dict)
    """Game name -> the service's reason, for the new games it would not make."""
    left_out: int = 0
    """Matches not queued because their game could not be made."""
    stopped: RanktermError | None = None
    requests: int = 0
    seconds: float = 0.0

    @property
    def queued(self) -> int:
        return self.recorded + self.rejected + self.waiting


Progress = Callable[[int, int], None]
"""Called with (matches settled or queued so far, matches to send)."""


async def make_games(plan: Plan, group: Group, report: ImportReport) -> dict[int, int]:
    """Make the plan's new games; the stand-in id of each made game -> its id. `Offline` is raised (nothing
    queued yet: the import can simply be run again)."""
    made: dict[int, int] = {}
    for choice in plan.new_games:
        try:
            game = None
            if choice.bgg_id is not None:
                try:
                    game = await group.create_game(bgg_id=choice.bgg_id)
                except (
                    NotFound,
                    BadRequest,
                ):  # a BGG id the catalogue does not know: by name, keeping the id
                    try:
                        game = await group.create_game(name=choice.name, bgg_id=choice.bgg_id)
                    except BadRequest:  # a service that takes a name or an id, not both
                        game = None
            if game is None:
                game = await group.create_game(name=choice.name)
        except Offline:
            raise
        except ApiError as exc:
            report.games_refused[choice.name] = str(exc)
            continue
        made[choice.game_id] = game.id
        report.games_made += 1
    return made


def queue_ghosts(plan: Plan, group: Group, outbox: Outbox) -> dict[str, str]:
    """Queue the plan's new ghosts in the outbox (held in the mirror under their local ids, so the app and a
    later import offer them at once); the plan's stand-in id of each -> the outbox's local id."""
    ids: dict[str, str] = {}
    for choice in plan.new_players:
        entry = outbox.add_ghost(choice.name)
        group.hold_player(entry.player)
        ids[choice.player_id] = entry.local_id
    return ids


async def send_plan(
    plan: Plan,
    group: Group,
    outbox: Outbox,
    send: Callable[[], Awaitable[SendReport]],
    *,
    chunk: int = CHUNK,
    progress: Progress | None = None,
) -> ImportReport:
    """Make the new games, queue the ghosts, then queue and send the matches a chunk at a time."""
    started, calls = time.perf_counter(), group.client.calls
    report = ImportReport()
    games = await make_games(plan, group, report)
    ghosts = queue_ghosts(plan, group, outbox)
    total = plan.to_record
    held: list[NewMatch] = []  # queued a chunk at a time: one write to disk a chunk, not one a match
    unsent = 0
    for done, match in enumerate(plan.matches(), start=1):
        game = match.game if match.game is None or match.game >= 0 else games.get(match.game)
        if game is None:
            report.left_out += 1
        else:
            held.append(with_ids(match.model_copy(update={"game": game}), ghosts))
        if len(held) >= chunk:
            outbox.add_many(held)
            unsent, held = unsent + len(held), []
        if unsent >= chunk and report.stopped is None:
            await _send(send, plan, report)
            unsent = 0
        if progress is not None and done % chunk == 0:
            progress(done, total)
    if held:
        outbox.add_many(held)
        unsent += len(held)
    if report.stopped is None and (unsent or plan.queued or ghosts):
        await _send(send, plan, report)  # the rest, and what an earlier run left queued
    report.waiting = _waiting(outbox, plan)
    if progress is not None:
        progress(total, total)
    report.requests = group.client.calls - calls
    report.seconds = time.perf_counter() - started
    return report


async def _send(send: Callable[[], Awaitable[SendReport]], plan: Plan, report: ImportReport) -> None:
    """Send what is pending; count the outcomes of this file's matches."""
    sent = await send()
    for ext, outcome in sent.outcomes.items():
        if not plan.holds(ext):
            continue
        if outcome.accepted:
            report.recorded += 1
        elif outcome.rejected:
            report.rejected += 1
            first = outcome.errors[0] if outcome.errors else None
            report.rejected_codes[(first.code or first.message) if first else "rejected"] += 1
    report.ghosts_made += len(sent.ghosts)
    if sent.stopped is not None:
        report.stopped = sent.stopped


def _waiting(outbox: Outbox, plan: Plan) -> int:
    """Matches of this file still pending in the outbox (queued now or by an earlier run)."""
    from rankterm.outbox.outbox import State

    return sum(1 for entry in outbox.entries(State.PENDING) if plan.holds(entry.external_id))
