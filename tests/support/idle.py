"""Textual's wait for an idle app, answered from what the event loop holds instead of by sleeping.

A pilot waits for the app to look idle after every key (`Pilot.press`, twice a key) and at every
`pilot.pause()` (`tests/tui/pilot.py`'s `settle` does three): Textual's `wait_for_idle(0)` sleeps 20 ms at a
time until a 20 ms stretch in which the process used less than 1 ms of CPU. So each wait costs 20 ms at the
least, and 40 ms or more whenever the key did anything, most of it spent asleep after the work is done.

`quick_idle` asks the event loop instead. It lets the loop run whatever is ready, and while something is
(a handle to run, a socket or pipe with something to read, a timer due within the 20 ms Textual would have
slept), it keeps letting it run; the process is idle once nothing is, no other thread of the process is
running or waiting for a core (a thread worker, a served socket's thread, a file being written), and a
millisecond in the selector (the GIL let go: a thread waiting for it runs) used no CPU. That is what a quiet
20 ms stretch showed, known after a millisecond. When the loop cannot say (work that goes on past Textual's
longest wait, a timer due later in the stretch, another thread at work), it waits as Textual does.

`install(monkeypatch)` puts it in place of the wait the pilot and the app's key presses use.
"""

from __future__ import annotations

import asyncio
import glob
import threading
import time
from typing import Any

import pytest
import textual._wait
import textual.app
import textual.pilot

STRETCH = textual._wait.SLEEP_GRANULARITY
"""How long Textual sleeps to see whether the process is idle (20 ms)."""

textual_wait_for_idle = textual._wait.wait_for_idle

LOOK = 0.001
"""How long the loop waits in its selector, without the GIL, before it says it is idle: a thread that was
ready to run Python code (asleep on the GIL, to /proc) runs meanwhile, and its CPU shows."""

ASLEEP = frozenset("SITtZX")
"""A thread's states (/proc's stat) in which it neither runs nor waits for a core."""


async def quick_idle(min_sleep: float = STRETCH, max_sleep: float = 1.0) -> None:
    """Return once the app is idle (see the module's docstring); Textual's own wait when the loop cannot say.
    A wait that asks for a minimum sleep (Textual's default) is Textual's."""
    if min_sleep <= 0 and await loop_went_quiet(asyncio.get_running_loop(), max_sleep):
        return
    await textual_wait_for_idle(min_sleep, max_sleep)


async def loop_went_quiet(loop: Any, max_sleep: float) -> bool:
    """Let `loop` run what is ready until nothing is; False when that cannot be told this way (see the module's
    docstring), or of a loop whose ready handles, timers and selector cannot be read."""
    if not all(hasattr(loop, name) for name in ("_ready", "_scheduled", "_selector")):
        return False
    start = loop.time()
    while loop.time() - start <= max_sleep:
        await asyncio.sleep(0)
        if pending(loop):
            continue
        due = next_timer(loop)
        if due is not None and due < loop.time() + STRETCH:
            if due > start + STRETCH:
                return False  # a timer Textual's first stretch would not have waited for
            await asyncio.sleep(due - loop.time())
            continue
        if not other_threads_asleep():
            return False
        cpu = time.process_time()
        await asyncio.sleep(LOOK)
        if time.process_time() - cpu < LOOK / 4 and not pending(loop) and other_threads_asleep():
            return True
    return False


def pending(loop: Any) -> bool:
    """A handle is ready to run, or a socket, pipe or another thread's call has something for the loop."""
    return bool(loop._ready or loop._selector.select(0))


def next_timer(loop: Any) -> float | None:
    """When the loop's next timer is due (its clock), None without one."""
    return min((timer.when() for timer in loop._scheduled if not timer.cancelled()), default=None)


def other_threads_asleep() -> bool:
    """No thread of this process but the calling one is running or waiting for a core (Linux's /proc; False
    where it cannot be read)."""
    me = str(threading.get_native_id())
    tasks = glob.glob("/proc/self/task/*/stat")
    if not tasks:
        return False
    for path in tasks:
        if path.split("/")[-2] == me:
            continue
        try:
            with open(path, encoding="ascii", errors="replace") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # a thread that ended meanwhile
        if state not in ASLEEP:
            return False
    return True


def install(monkeypatch: pytest.MonkeyPatch) -> None:
    """`quick_idle` as the wait of the pilot and of the app's key presses, for the test."""
    monkeypatch.setattr(textual.pilot, "wait_for_idle", quick_idle)
    monkeypatch.setattr(textual.app, "wait_for_idle", quick_idle)
