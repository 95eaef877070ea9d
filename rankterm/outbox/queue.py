"""`SendQueue`: what the senders (`OutboxSender`, `GhostSender`) ask of the queue they send, so that they need
not import the outbox that builds them (`rankterm.outbox.outbox.Outbox` is the one there is).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from rankterm.outbox.entry import Entry
from rankterm.outbox.file import State
from rankterm.outbox.ghosts import GhostEntry
from rankterm.outbox.lock import SendLock
from rankterm.outbox.twins import Twin
from rankterm.wire.errors import ErrorItem


class SendQueue(Protocol):
    """The outbox as its senders see it: the entries to send, and how each is settled."""

    send_lock: SendLock
    """Held by whichever process sends now."""

    def counts(self) -> dict[State, int]: ...

    def queue(self, *states: State) -> list[Entry | GhostEntry]: ...

    def get(self, external_id: str) -> Entry | None: ...

    def mark_twin(self, external_ids: Iterable[str], twin: Twin | None = None) -> None: ...

    def take_for_sending(self, entries: Sequence[Entry]) -> list[Entry]: ...

    def mark_sent_each(self, match_ids: Mapping[str, str]) -> None: ...

    def mark_rejected(self, external_id: str, errors: Sequence[ErrorItem]) -> tuple[ErrorItem, ...]: ...

    def get_ghost(self, local_id: str) -> GhostEntry | None: ...

    def mark_ghost_in_doubt(self, local_id: str, known_before: Iterable[str], *, name: str) -> bool: ...

    def mark_ghost_pending(self, local_id: str) -> None: ...

    def mark_ghost_rejected(self, local_id: str, errors: Sequence[ErrorItem]) -> None: ...

    def mark_ghost_sent(
        self, local_id: str, player_id: str, *, taken: bool = False, spare_id: str = ""
    ) -> list[str]: ...
