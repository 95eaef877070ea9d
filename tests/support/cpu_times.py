"""A pytest plugin that records each test's wall and CPU seconds, to find the tests worth making cheaper.

Load it with ``-p tests.support.cpu_times`` and name a file in ``RANKTERM_TEST_TIMES``: each test (set-up,
call and tear-down together) appends one tab-separated line ``nodeid wall cpu children waited`` to it.
``cpu`` is this process's (``time.process_time``: the xdist worker's); ``children`` the CPU of the child
processes that ended and were waited for during the test (a `rankterm` seat, ssh, a CLI run), not of the ones
still running (a session's PostgreSQL, a module's shared host); ``waited`` the seconds this process's
threads were ready to run but waited for a core (Linux's schedstat; 0 elsewhere). On a loaded machine
``wall - cpu - children - waited`` is still about what the test slept (pilot waits, sleeps, a subprocess
starting): the time in which a quiet machine's core is left idle unless another worker fills it.
``python -m tests.support.times_report FILE`` sums a file up.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Generator

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    target = os.environ.get("RANKTERM_TEST_TIMES")
    wall, cpu, children, waited = time.perf_counter(), time.process_time(), children_cpu(), queue_wait()
    yield
    if target:
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        children, waited = children_cpu() - children, queue_wait() - waited
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{item.nodeid}\t{wall:.3f}\t{cpu:.3f}\t{children:.3f}\t{waited:.3f}\n")


def children_cpu() -> float:
    """User and system seconds of this process's children that have ended and been waited for."""
    times = os.times()
    return times.children_user + times.children_system


def queue_wait() -> float:
    """Seconds this process's live threads have spent ready to run but waiting for a core."""
    total = 0
    for task in glob.glob("/proc/self/task/*/schedstat"):
        try:
            with open(task, encoding="ascii") as stat:
                total += int(stat.read().split()[1])
        except (OSError, IndexError, ValueError):  # a thread that ended meanwhile, or no schedstat
            continue
    return total / 1e9
