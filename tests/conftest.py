"""What every folder of the tests shares: the markers a local run can leave out, and PostgreSQL.

Markers (registered in pyproject.toml, ``--strict-markers``): ``e2e`` is put here on every test under
tests/e2e/, ``postgres`` on every test that runs on the throwaway PostgreSQL (its ``engine`` parameter is
``postgresql``, or it is marked by hand), ``slow`` by hand on a test that takes more than about 5 s. A run in
a loop leaves them out with ``-m "not e2e and not slow"``; CI and README's command run them all, slow tests
first and the rest of tests/e2e next, so that the workers end together.

A test module that drives one of the machine's programs (chromium, ssh, PostgreSQL's server) says so with
``pytest.mark.needs(NAME)``; what the collected tests need is installed from Debian's packages when missing,
before they run (tests/needs.py), and a need that cannot be met fails those tests with one sentence.

The cyclic collector waits for more new objects than Python's default, and what is loaded once the tests
are collected is frozen (tests/support/collector.py): a fifth of an app test's CPU went to it otherwise.

Hypothesis runs the ``suite`` profile: its default 100 examples, no deadline (the machine is shared, and
speed is measured in benchmarks/, not asserted). ``HYPOTHESIS_PROFILE=loop`` tries ten times as many, for
a long run of the property tests alone (``-m "not e2e"``); a test that names its own count scales with it
through tests/support/examples.py.

Before any worker starts, the run's first process compiles rankterm/ and tests/ to bytecode (`compiled`):
with PYTHONDONTWRITEBYTECODE set (as on this machine and CI), each worker compiled again every module that
is not a test module (tests/support, pilot.py, ...) and every child `python -m rankterm` its imports.

`postgres_url` hands a test a fresh database of the run's PostgreSQL (tests/server/pg_cluster.py); the wire's
key sets the tests hold answers to are tests/wire_contract.py's, taken from the models.
"""

from __future__ import annotations

import compileall
import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import needs
from tests.support import collector
from tests.support.examples import SUITE_EXAMPLES

settings.register_profile("suite", max_examples=SUITE_EXAMPLES, deadline=None)
settings.register_profile(
    "loop", max_examples=10 * SUITE_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
collector.tune()

E2E = Path(__file__).parent / "e2e"
ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers): before any worker
        compiled()


def compiled() -> None:
    """Write the bytecode of rankterm/ and tests/ where it is missing or stale, whatever
    PYTHONDONTWRITEBYTECODE says: the workers and the children read it (they write none when it is set).
    The test modules themselves are compiled by pytest's assertion rewriting, which keeps its own."""
    compileall.compile_dir(ROOT / "rankterm", quiet=1, workers=1)
    compileall.compile_dir(ROOT / "tests", quiet=1, workers=1, rx=TEST_MODULE)


TEST_MODULE = re.compile(r"(^|[/\\])(test_[^/\\]*|conftest)\.py$")
"""What pytest's assertion rewriting compiles (into a bytecode file of its own)."""


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("engine") == "postgresql":
            item.add_marker(pytest.mark.postgres)
    items.sort(key=started_first)


def started_first(item: pytest.Item) -> int:
    """Slow tests, then the other end-to-end ones, then the rest (each kept in its order): xdist hands tests
    out in this order, so the long ones start first and the short ones fill the workers' ends, not the
    other way round (a run's length is then about its work over the workers, not a long test started last)."""
    if item.get_closest_marker("slow") is not None:
        return 0
    return 1 if item.get_closest_marker("e2e") is not None else 2


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (README's command): half as many workers again as cores, not one a core. A test of the app
    sleeps for about a third of its time (Textual's pilot waits for the app to look idle after each key, 20 ms
    at the least; seats and servers start in subprocesses): with one worker a core, the cores stayed idle that
    long (a quiet run kept 1.4 of 2 cores busy); a third worker fills those waits (tests/support/times_report.py
    works out from a measured run how busy a worker keeps a core). The machine's own count still wins when
    PYTEST_XDIST_AUTO_NUM_WORKERS is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + cores // 2


UNMET = pytest.StashKey[str]()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Install what the tests this run will execute need (after `-m` and `-k` have deselected the rest)."""
    wanted: dict[str, list[pytest.Item]] = {}
    for item in session.items:
        names = [name for marker in item.iter_markers("needs") for name in marker.args]
        if item.get_closest_marker("postgres") is not None:
            names.append("postgresql")
        for name in names:
            wanted.setdefault(name, []).append(item)
    for name, needing in wanted.items():
        try:
            needs.ensure(name)
        except needs.Unmet as exc:
            for item in needing:
                item.stash[UNMET] = str(exc)
    collector.freeze_loaded()  # the test modules and items stay loaded to the end: out of every collection


def pytest_sessionfinish(session: pytest.Session) -> None:
    pg_cluster = sys.modules.get("tests.server.pg_cluster")
    if pg_cluster is not None:
        pg_cluster.stop_started()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if UNMET in item.stash:
        pytest.fail(item.stash[UNMET], pytrace=False)


def postgres_url() -> str:
    """A fresh database on the run's PostgreSQL (its server installed first when missing)."""
    from tests.server.pg_cluster import cluster  # it imports the service: only when asked for

    try:
        needs.ensure("postgresql")
    except needs.Unmet as exc:
        pytest.fail(str(exc), pytrace=False)
    return cluster().fresh_url()
