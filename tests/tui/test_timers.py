"""A timer given no time to wait (a toast read just after its end: below zero) must not freeze the app.

Textual's own `Timer` loops forever without yielding on such an interval, so a failure here would block the
event loop of the test itself: each case runs in a child process, killed after `LIMIT` seconds."""

from __future__ import annotations

import subprocess
import sys

import pytest

LIMIT = 30

CHILD = """
import sys
from textual.app import App
from rankterm.tui.app import RanktermApp  # building it puts up the wall

RanktermApp()

class Bare(App):
    def on_mount(self) -> None:
        self.set_timer({delay}, self.next)

    def next(self) -> None:
        self.exit("fired")

result = Bare().run(headless=True)
print(result)
"""


@pytest.mark.parametrize("delay", [-0.000112, 0.0, -5.0])
def test_a_timer_given_no_time_fires_at_once_instead_of_freezing_the_app(delay):
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD.format(delay=delay)], capture_output=True, text=True, timeout=LIMIT
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"a timer of {delay} s froze the app (no answer in {LIMIT} s)")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "fired"


CHILD_TOAST = """
import time
from textual.app import App
from textual.notifications import Notification
from textual.widgets._toast import Toast
from rankterm.tui.app import RanktermApp

RanktermApp()

class Bare(App):
    async def on_mount(self) -> None:
        ending = Notification("the end of a toast", timeout=0.01)
        ending.raised_at = time.time() - 0.0105  # the rack saw it alive; the toast reads the time just after
        await self.mount(Toast(ending))
        self.set_timer(0.2, lambda: self.exit("still answering"))

print(Bare().run(headless=True))
"""


def test_a_toast_built_just_after_its_end_does_not_freeze_the_app():
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD_TOAST], capture_output=True, text=True, timeout=LIMIT
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"a toast past its end froze the app (no answer in {LIMIT} s)")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "still answering"
