"""The cyclic garbage collector of a test process, set for a run of many tests, and Python's own for a test of
when the product lets the collector run.

A test process keeps everything its test modules imported and collected, and each app test makes and drops
thousands of widgets, styles and strips. With Python's thresholds (a young collection every 700 new
objects), about a fifth of an app test's CPU went to the collector, mostly to full collections walking the
same long-lived objects again and again. So once the tests are collected, what is loaded is collected once
and frozen (`gc.freeze`: no later collection walks it), and a young collection waits for `RUN`'s new
objects. What a test leaves behind as garbage is still collected, only in fewer, larger batches.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

PYTHONS = gc.get_threshold()
"""The thresholds the process started with (Python's own unless something set them before the tests)."""
RUN = (20_000, 10, 10)


def tune() -> None:
    """The run's thresholds for this process."""
    gc.set_threshold(*RUN)


def freeze_loaded() -> None:
    """Collect once, then keep every object still alive out of later collections."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def pythons_collector() -> Iterator[None]:
    """Python's own thresholds while the test runs (a test that no collection starts during some work must
    not pass only because the run's young generation is larger); afterwards what the test froze is given back
    to the collector, and the run's thresholds and freeze are set again."""
    gc.set_threshold(*PYTHONS)
    try:
        yield
    finally:
        gc.unfreeze()
        tune()
        freeze_loaded()


@pytest.fixture
def collections_seen(pythons_collector: None) -> Iterator[list[tuple[int, bool]]]:
    """Every collection the cyclic collector starts while the test runs, with Python's own thresholds:
    (generation, enabled then); what the test froze is given back to the collector after it."""
    seen: list[tuple[int, bool]] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append((info["generation"], gc.isenabled()))

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)
        gc.unfreeze()
