"""The cyclic garbage collector held off while the app starts (`pause_gc`), given back once it is up.

Nearly everything made while the app starts lives as long as the app, yet the collector walks the young objects
every 700 allocations, hundreds of passes on the way to the first screen. So the app is built with the
collector paused, and one full collection runs in a timer thread once the app is up: a second after its first
service is open, at most `LONGEST` seconds after the pause. A collector the process had disabled itself stays
disabled. See docs/performance.md ("Startup").
"""

from __future__ import annotations

import gc
import threading

AFTER_OPEN = 1.0
"""Seconds between the first service being open and the collection (the first screen's reads and paint)."""

LONGEST = 10.0
"""Seconds the collector stays paused at most, whatever happens."""


class GcPause:
    """The collector held off from `pause_gc()` until `resume()` (idempotent, any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()
            self.resume_in(LONGEST)

    def resume_in(self, seconds: float) -> None:
        """Collect and give the collector back in `seconds` (a daemon timer: never holds the exit)."""
        if not self.paused:
            return
        timer = threading.Timer(seconds, self.resume)
        timer.name = "rankterm-gc"
        timer.daemon = True
        timer.start()

    def resume(self) -> None:
        """One full collection of what the start left, then the collector runs as usual again."""
        with self._lock:
            if not self.paused:
                return
            self.paused = False
        gc.enable()
        gc.collect()


def pause_gc() -> GcPause:
    """Pause the cyclic collector while the app is built and started (see the module's docstring)."""
    return GcPause()
