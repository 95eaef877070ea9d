"""What every folder of the tests shares: the markers a local run can leave out, and PostgreSQL.

Markers (registered in pyproject.toml, ``--strict-markers``): ``e2e`` is put here on every test under
tests/e2e/, ``postgres`` on every test that runs on the throwaway PostgreSQL (its ``engine`` parameter is
``postgresql``, or it is marked by hand), ``slow`` by hand on a test that takes more than about 5 s. A run in
a loop leaves them out with ``-m "not e2e and not slow"``; CI and README's command run them all.

`postgres_url` hands a test a fresh database of the run's PostgreSQL (tests/server/pg_cluster.py); the wire's
key sets the tests hold answers to are tests/wire_contract.py's, taken from the models.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

E2E = Path(__file__).parent / "e2e"


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("engine") == "postgresql":
            item.add_marker(pytest.mark.postgres)


def postgres_url() -> str:
    """A fresh database on the run's PostgreSQL; skipped loudly (failed under CI) when there is none."""
    from tests.server.pg_cluster import Missing, cluster  # it imports the service: only when asked for

    try:
        return cluster().fresh_url()
    except Missing as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required under CI: {exc}")
        warnings.warn(f"PostgreSQL tests SKIPPED: {exc}", pytest.PytestWarning, stacklevel=1)
        pytest.skip(f"PostgreSQL tests SKIPPED: {exc}")
