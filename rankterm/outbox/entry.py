"""`Entry`: one match in the outbox, as read from its file, and where it stands (its `Outcome`).

The queue that keeps entries is rankterm/outbox/outbox.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rankterm.outbox.file import State
from rankterm.outbox.outcome import Outcome, OutcomeState
from rankterm.outbox.twins import LOOKS_LIKE, UNCHECKED, NotTwins, Twin
from rankterm.wire.errors import ErrorItem
from rankterm.wire.models import NewMatch


@dataclass(frozen=True, slots=True)
class Entry:
    """One match in the outbox."""

    external_id: str
    match: NewMatch
    state: State
    in_doubt: bool
    attempts: int
    errors: tuple[ErrorItem, ...]
    """The service's errors when rejected (an old file's reason: one item with an empty code)."""
    created_at: float
    updated_at: float
    match_id: str = ""
    """The service's id of the recorded match, once sent (empty when it did not say)."""
    twin_state: str = UNCHECKED
    """Its `twin` column: checked for a twin or not, or held (rankterm/outbox/twins.py)."""
    seat: str = ""
    """The guest seat that queued it ('' : the host's own app, or a file older than seats' marks)."""
    not_twins: NotTwins = field(default_factory=NotTwins)
    """The matches the person said it is not ("send anyway"): the twin check never holds it for them."""
    origin: str = ""
    """The open outbox (one process's) that queued it (`Outbox.origin`; '' for a file older than these marks)."""
    body: str = field(default="", repr=False, compare=False)
    """Its match as the file held it when read (to tell whether it was changed since)."""

    @property
    def twin(self) -> Twin | None:
        """The recorded match this one looks like, while it is held (not sent until answered)."""
        return Twin.read(self.twin_state) if self.state is State.PENDING else None

    @property
    def held(self) -> bool:
        return self.twin is not None

    def outcome(self, index: int = 0) -> Outcome:
        """Where this entry stands, as the one outcome type; `index` is its place in a batch."""
        twin = self.twin
        if twin is not None:
            item = ErrorItem(LOOKS_LIKE, twin.sentence)
            return Outcome(index, OutcomeState.HELD, self.external_id, (item,), number=None)
        state = OutcomeState.of_entry(self.state.value, self.in_doubt)
        return Outcome(index, state, self.external_id, self.errors, match_id=self.match_id)
