"""A pytest plugin that records each test's wall and CPU seconds, to find the tests worth making cheaper.

Load it with ``-p tests.support.cpu_times`` and name a file in ``RANKTERM_TEST_TIMES``: each test (set-up,
call and tear-down together) appends one tab-separated line ``nodeid wall cpu children waited running`` to it.
``cpu`` is this process's (``time.process_time``: the xdist worker's); ``children`` the CPU of the child
processes that ended and were waited for during the test (a `rankterm` seat, ssh, a CLI run), not of the ones
still running (a session's PostgreSQL, a module's shared host); ``waited`` the seconds this process's
threads were ready to run but waited for a core (Linux's schedstat; 0 elsewhere); ``running`` the CPU the
descendants still running when the test ended used during it, with what their own ended children used (a
host's seats, a served service's workers; Linux's /proc, 0 elsewhere; not the session's PostgreSQL, which
is no descendant). ``wall - cpu - children - waited`` is about what the test slept (pilot waits, sleeps, a
subprocess starting) and its running descendants worked: the time in which a quiet machine's core is left
idle unless another worker fills it, less what those descendants kept busy.
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
    running = descendants_cpu() if target else {}
    yield
    if target:
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        children, waited = children_cpu() - children, queue_wait() - waited
        now = descendants_cpu()
        worked = sum(spent - running.get(process, 0.0) for process, spent in now.items())
        worked -= sum(
            spent for process, spent in running.items() if process not in now
        )  # counted in children
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{item.nodeid}\t{wall:.3f}\t{cpu:.3f}\t{children:.3f}\t{waited:.3f}\t{worked:.3f}\n")


def children_cpu() -> float:
    """User and system seconds of this process's children that have ended and been waited for."""
    times = os.times()
    return times.children_user + times.children_system


TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def descendants_cpu() -> dict[tuple[int, int], float]:
    """The CPU seconds of this process's live descendants, each with its ended and waited-for children's, by
    (pid, start time): a pid used again is another process."""
    found: dict[tuple[int, int], float] = {}
    parents = [os.getpid()]
    while parents:
        pid = parents.pop()
        for task in glob.glob(f"/proc/{pid}/task/*/children"):
            try:
                with open(task, encoding="ascii") as listed:
                    children = [int(child) for child in listed.read().split()]
            except (OSError, ValueError):
                continue
            for child in children:
                try:
                    with open(f"/proc/{child}/stat", encoding="ascii", errors="replace") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if fields[0] == "Z":  # ended, not yet waited for: counted in `children` once it is
                    continue
                found[child, int(fields[19])] = sum(int(f) for f in fields[11:15]) / TICK
                parents.append(child)
    return found


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
