"""`SendReport`: what one send of the outbox did (sent, rejected, held, in doubt, paused), with one `Outcome`
for each match it settled. Filled in by `OutboxSender` (rankterm/outbox/sender.py) and `GhostSender`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rankterm.outbox.outcome import Outcome
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import Player


@dataclass
class SendReport:
    """What one `send_pending` run did."""

    sent: int = 0
    """Matches sent (ghost players made: `ghosts`)."""
    rejected: int = 0
    """Matches rejected (ghost players refused: `ghost_refusals`)."""
    confirmed_by_exists: int = 0
    failures: int = 0
    stopped: RanktermError | None = None
    resume_at: float | None = None
    retry_in: float | None = None
    """Seconds after which the next send should start, when this one stopped on something that passes (no
    answer, an error of the service, the quota: then until `resume_at`); None when nothing is to be retried
    (all went through, or a key or secret was refused)."""
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    """The matches this run settled (sent or rejected), left in doubt, or held back for a ghost, by external
    id (with those a send it waited for settled)."""
    waiting: int = 0
    """Matches left pending because they name a ghost player not made yet (queued, in doubt or rejected)."""
    ghosts: dict[str, Player] = field(default_factory=dict)
    """The ghost players this run made (or found made), by local id."""
    ghost_refusals: dict[str, RanktermError] = field(default_factory=dict)
    """The service's refusal of each ghost this run rejected, by local id."""
    held: list[str] = field(default_factory=list)
    """The matches this run held, not sent: each looks like one the service got lately from another seat."""

    @property
    def paused(self) -> bool:
        return self.resume_at is not None

    def take_in(self, other: SendReport) -> None:
        """Add what `other` (a send this one waited for) settled: its outcomes and ghosts."""
        self.outcomes.update(other.outcomes)
        self.held += other.held
        self.ghosts.update(other.ghosts)
        self.ghost_refusals.update(other.ghost_refusals)
