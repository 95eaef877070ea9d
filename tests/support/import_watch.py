"""The child Python of the tests that ask which thread began a module's import: `rankterm demo` built
headless at 80x24, an import hook noting for each watched module whether the main thread (the event loop's)
began its import, and `until(pilot, ready)`, which waits for the app's workers and a condition. The test
gives what to watch and its own `async def drive(pilot)`, which prints its JSON line and exits the app;
`tests.support.terminal.child_says` runs it."""

from __future__ import annotations

import textwrap

_PRELUDE = """
import json, sys, threading

first = {}

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in WATCHED and name not in first:
            first[name] = threading.current_thread() is threading.main_thread()
        return None

sys.meta_path.insert(0, Watch())

from rankterm.cli import build_app

app = build_app(demo=True, profile=None)

async def until(pilot, ready):
    for _ in range(1200):  # the demo opens in a thread: up to 60 s on a busy machine
        busy = [w for w in app.workers if w.is_running]
        if busy:
            await app.workers.wait_for_complete(busy)
        if not busy and ready():
            return
        await pilot.pause(0.05)
"""


def import_watch_child(watched: tuple[str, ...], drive: str) -> str:
    """The child's code: `watched` module names noted in `first` (name -> began on the main thread), then
    `drive` (the source of `async def drive(pilot)`), run as the app's auto pilot."""
    return (
        f"WATCHED = {watched!r}\n"
        + _PRELUDE
        + textwrap.dedent(drive)
        + "\napp.run(headless=True, size=(80, 24), auto_pilot=drive)\n"
    )
