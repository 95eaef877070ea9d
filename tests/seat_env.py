"""A seat's surroundings in the tests: its files in a folder of the test's own (`use_home`), and this machine's
time zone UTC (`utc_seat`: a table or screen for people shows times in the seat's time zone, the machine's
unless the config names one, so that what is shown does not depend on the machine). A folder's conftest.py
imports `utc_seat` to put its tests under it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def use_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point the RANKTERM_* directories (config, cache, data) at `home`: no test reads or writes the user's
    files, and each seat of a test can have its own."""
    monkeypatch.setenv("RANKTERM_CONFIG", str(home / "config" / "config.toml"))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(home / "data"))


@pytest.fixture(autouse=True)
def utc_seat() -> Iterator[None]:
    """This machine's time zone is UTC for the test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", "UTC")
        time.tzset()
        yield
    time.tzset()
