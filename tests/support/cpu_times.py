"""A pytest plugin that records each test's wall and CPU seconds, to find the tests worth making cheaper.

Load it with ``-p tests.support.cpu_times`` and name a file in ``RANKTERM_TEST_TIMES``: each test (set-up,
call and tear-down together) appends one tab-separated line ``nodeid wall cpu`` to it. CPU is this
process's (``time.process_time``: the xdist worker's), not the child programs' a test starts (sshd,
chromium, PostgreSQL). Without the variable it does nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    target = os.environ.get("RANKTERM_TEST_TIMES")
    wall, cpu = time.perf_counter(), time.process_time()
    yield
    if target:
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{item.nodeid}\t{wall:.3f}\t{cpu:.3f}\n")
