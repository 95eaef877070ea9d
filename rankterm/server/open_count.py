"""How many connections one address may hold open to a server of this machine, and their count: `rankterm
serve`'s listener, the SSH host and the browser seats' server each keep one `OpenCount` and close a connection
past `PER_ADDRESS` at once.

Without it one machine holding a thousand idle connections took every file the server may open: nobody else
could connect, and the terminal filled with "Too many open files".
"""

from __future__ import annotations

from collections import Counter

PER_ADDRESS = 64
"""Open connections one address may hold (a table's twelve seats from one machine use a few each)."""


class OpenCount:
    """The connections open from each address to one server (one event loop: no lock needed)."""

    def __init__(self, limit: int = PER_ADDRESS) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def enter(self, address: str) -> bool:
        """Count a new connection from `address`; False when it is one past `limit` (to be closed; it is still
        counted until `leave`)."""
        self._open[address] += 1
        return self._open[address] <= self.limit

    def leave(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]
