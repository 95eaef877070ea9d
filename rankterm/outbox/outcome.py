"""One outcome for a match (DESIGN.md "One outcome"): what became of it, the same for a dry run and a send.

An `Outcome` is one typed value from the outbox (or a dry run) to the screen: its `state` (accepted,
rejected, pending, in doubt, held: looks like a match another seat recorded), the service's errors as `ErrorItem`s (code and message, never flattened to
text), the external id, and what the service told about it when known (its id, number, rating changes).
Screens read `state` and codes (`has_code`), never search the messages. `BatchOutcome` holds the outcomes
of one batch in submission order, and what stopped the send when something did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rankterm.wire.errors import ErrorItem, MatchRejected, RanktermError
from rankterm.wire.models import MatchOutcome, NewMatch, NewMatchAnswer

ALREADY_ACCEPTED = "M003"
"""The code for "a match with this external id was already accepted" (WIRE.md)."""
NOT_KEPT = "outbox-write"
"""rankterm's own code of a match that could not be written to the outbox (a full disk): nothing was sent,
the match stays where it was typed."""


class OutcomeState(StrEnum):
    """Where a match stands."""

    ACCEPTED = "accepted"
    """Recorded by the service (or, for a dry run, would be)."""
    REJECTED = "rejected"
    """Refused by the service, with its errors; the match can be fixed and sent again."""
    PENDING = "pending"
    """Kept in the outbox: not sent yet, sent when the service can be reached."""
    IN_DOUBT = "in_doubt"
    """Sent, no answer came back: the service is asked before it is sent again."""
    HELD = "held"
    """Kept in the outbox, not sent: it looks like a match the service got lately from another seat (its one
    error item, code "looks-like", says which); sent or discarded when the seat that recorded it answers."""

    @classmethod
    def of_entry(cls, stored: str, in_doubt: bool) -> OutcomeState:
        """The outcome of an outbox entry from its stored state ("pending", "sent", "rejected")."""
        if stored == "sent":
            return cls.ACCEPTED
        if stored == "rejected":
            return cls.REJECTED
        return cls.IN_DOUBT if in_doubt else cls.PENDING


@dataclass(frozen=True, slots=True)
class RatingChange:
    """How one player's rating moved with a match (filled once the service tells; not yet)."""

    player_id: str
    ree: float | None = None
    delta_ree: float | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one match of a batch."""

    index: int
    """The match's place in the batch it was submitted with (0 first)."""
    state: OutcomeState
    external_id: str | None = None
    errors: tuple[ErrorItem, ...] = ()
    """The service's errors for a rejected match (or a request refused as a whole), code and message."""
    match_id: str = ""
    """The service's id of the recorded match, when it said."""
    number: int | None = None
    """The match's number in the group, when known. The answer to a send does not carry it (WIRE.md: index,
    id, name, errors), so an outcome from the outbox or a send has none: `effect.number_for` finds it."""
    rating_changes: tuple[RatingChange, ...] | None = None
    """Rating changes the match caused, when known (None: not known)."""
    dry_run: bool = False

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(e.code for e in self.errors if e.code)

    def has_code(self, code: str) -> bool:
        """Whether the service gave this code (e.g. "M003") for the match."""
        return code in self.codes

    @property
    def accepted(self) -> bool:
        return self.state is OutcomeState.ACCEPTED

    @property
    def rejected(self) -> bool:
        return self.state is OutcomeState.REJECTED

    @property
    def waiting(self) -> bool:
        """Kept in the outbox, pending, in doubt or held: it will be sent (or asked about) later."""
        return self.state in (OutcomeState.PENDING, OutcomeState.IN_DOUBT, OutcomeState.HELD)


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """The outcomes of one batch, in submission order, and the error that stopped the send, if any."""

    outcomes: tuple[Outcome, ...] = ()
    failure: RanktermError | None = None
    dry_run: bool = False

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def accepted_count(self) -> int:
        return sum(o.accepted for o in self.outcomes)

    @property
    def rejected_count(self) -> int:
        return sum(o.rejected for o in self.outcomes)

    def __getitem__(self, index: int) -> Outcome:
        return self.outcomes[index]


def not_kept(matches: Sequence[NewMatch], why: str) -> BatchOutcome:
    """The outcomes of a batch the outbox could not write (`why`: the system's reason, e.g. a full disk):
    each match rejected with `NOT_KEPT`, so the form keeps it; nothing was sent."""
    item = ErrorItem(NOT_KEPT, f"Not kept: the outbox could not be written ({why}); nothing was sent")
    return BatchOutcome(
        tuple(Outcome(i, OutcomeState.REJECTED, m.external_id, (item,)) for i, m in enumerate(matches))
    )


def error_items(outcome: MatchOutcome) -> tuple[ErrorItem, ...]:
    """The wire's errors of one judged match as `ErrorItem`s."""
    return tuple(ErrorItem(e.code, e.message) for e in outcome.errors)


def from_answer(
    matches: Sequence[NewMatch],
    answer: NewMatchAnswer | None,
    *,
    dry_run: bool = False,
    failure: RanktermError | None = None,
    uncovered: OutcomeState | None = None,
) -> BatchOutcome:
    """A service's answer to a batch as outcomes, one per match in order.

    A match the answer does not cover (the batch was cut short by `failure`) is rejected with the
    failure's errors when the request was refused as a whole (M001/M002); else it takes the state
    `uncovered` (default pending; rejected gives it the failure as its one error).
    """
    by_index: dict[int, Outcome] = {}
    if answer is not None:
        for item in answer.accepted:
            ext = matches[item.index].external_id if 0 <= item.index < len(matches) else None
            by_index[item.index] = Outcome(
                item.index, OutcomeState.ACCEPTED, ext, match_id=item.id, dry_run=dry_run
            )
        for item in answer.rejected:
            ext = matches[item.index].external_id if 0 <= item.index < len(matches) else None
            by_index[item.index] = Outcome(
                item.index, OutcomeState.REJECTED, ext, error_items(item), dry_run=dry_run
            )
    state = uncovered or OutcomeState.PENDING
    errors: tuple[ErrorItem, ...] = ()
    if isinstance(failure, MatchRejected) and failure.errors:
        state, errors = OutcomeState.REJECTED, failure.errors
    elif state is OutcomeState.REJECTED and failure is not None:
        errors = (ErrorItem(getattr(failure, "code", None) or "", str(failure)),)
    outcomes = [
        by_index.get(index) or Outcome(index, state, match.external_id, errors, dry_run=dry_run)
        for index, match in enumerate(matches)
    ]
    return BatchOutcome(tuple(outcomes), failure, dry_run)
