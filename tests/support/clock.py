"""A settable clock for tests and benchmarks: the service, its app and the clients read one time."""

from __future__ import annotations

T0 = 1_780_000_000.0
"""2026-05-28 20:26:40 UTC: the moment the tests freeze time at."""


class SettableClock:
    """A clock (seconds since the epoch) that moves only when told to."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
