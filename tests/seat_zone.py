"""The autouse fixture that runs a test folder in UTC (`TZ=UTC`): a table or screen for people shows times in
the seat's time zone, the machine's unless the config names one, so that what is shown does not depend on the
machine. A folder's conftest.py imports `utc_seat` to put its tests under it."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def utc_seat() -> Iterator[None]:
    """This machine's time zone is UTC for the test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", "UTC")
        time.tzset()
        yield
    time.tzset()
