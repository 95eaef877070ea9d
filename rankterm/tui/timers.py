"""A wall against Textual's timers given no time to wait: every `Timer` waits at least `SHORTEST` seconds.

Textual's `Timer` loops without ever yielding when its interval is below zero (with `skip`, the default, the
count it works out goes negative and stays under the repeat limit) and divides by zero when it is zero, and
its toasts can hand it such an interval: `ToastRack` checks that a notification has not expired, and the
`Toast` it then builds reads the time left a moment later, which at the end of a toast's life can be just
below zero. At the table this froze a seat for good (100 % CPU, not even ctrl+q) when a dialog opened as a
toast ran out. An interval below `SHORTEST` is taken as `SHORTEST`: "at once", as it was meant.
"""

from __future__ import annotations

from typing import Any

from textual.timer import Timer

SHORTEST = 0.001
"""Seconds: the shortest wait a timer is given (below it, Textual's loop cannot run)."""

_textual_init = Timer.__init__


def _init_waiting(self: Timer, event_target: Any, interval: float, *args: Any, **kwargs: Any) -> None:
    _textual_init(self, event_target, max(interval, SHORTEST), *args, **kwargs)


def guard_timers() -> None:
    """Make every Timer made from now on wait at least `SHORTEST` seconds (idempotent)."""
    Timer.__init__ = _init_waiting  # type: ignore[method-assign]
