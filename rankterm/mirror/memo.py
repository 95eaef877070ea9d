"""`Memo`: what readers of a group's held matches remember between reads (stats/'s parsed matches, compact
rows, rosters, figures), each under a name of theirs; owned by the `Group`, so it goes when the group does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class Memo:
    """Named slots, each made on first use."""

    def __init__(self) -> None:
        self._slots: dict[str, Any] = {}

    def slot(self, name: str, make: Callable[[], T]) -> T:
        """The slot `name`, made by `make()` the first time."""
        if name not in self._slots:
            self._slots[name] = make()
        return self._slots[name]

    def put(self, name: str, value: Any) -> None:
        """Replace slot `name`."""
        self._slots[name] = value

    def get(self, name: str) -> Any:
        """Slot `name`, None when never made."""
        return self._slots.get(name)
