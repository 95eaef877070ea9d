"""A full-screen rankterm (the app, the board, a guest's seat) ends when its terminal goes away.

With SIGHUP ignored (`nohup`, some supervisors), Textual would read end-of-file from a dead terminal at full
speed for ever. So a thread sleeps in poll() on the terminal, wakes only on its hangup, asks the app to exit,
and ends the process if the app has not finished within a few seconds (nothing recorded is lost by ending).
See docs/design/seats.md.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
from collections.abc import Callable
from typing import Any

GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL
GRACE_SECONDS = 3.0
"""How long the app has to exit by itself once its terminal is gone, before the process is ended."""
EXIT_CODE = 129
"""What a shell reports for a process ended by SIGHUP (128 + 1)."""


def terminal_gone(fd: int) -> None:
    """Return when the terminal on `fd` hangs up (at once if it already has); sleeps meanwhile."""
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: poll() still reports a hangup, and never reads the keys
    while True:
        try:
            events = poller.poll()
        except InterruptedError:  # pragma: no cover - Python retries poll() itself (PEP 475)
            continue
        if any(mask & GONE for _, mask in events):
            return


def end_with_terminal(exit_app: Callable[[], None], fd: int | None = None) -> threading.Thread | None:
    """Watch the terminal on `fd` (default: standard input) from a daemon thread: on its hangup call
    `exit_app` (from that thread; it must hand the exit to the app's loop), then end the process with
    `EXIT_CODE` if it is still there `GRACE_SECONDS` later. Nothing is watched when `fd` is not a terminal."""
    if fd is None:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):
            return None
    if not os.isatty(fd):
        return None

    def watch() -> None:
        terminal_gone(fd)
        deadline = threading.Timer(GRACE_SECONDS, os._exit, (EXIT_CODE,))
        deadline.daemon = True
        deadline.start()  # before asking the app: a stuck app must not keep the process
        with contextlib.suppress(Exception):  # the app not yet running, or already stopping
            exit_app()

    thread = threading.Thread(target=watch, name="rankterm-hangup", daemon=True)
    thread.start()
    return thread


def app_ends_with_terminal(app: Any) -> None:
    """`end_with_terminal` for a Textual app: its exit is handed to the app's loop."""
    end_with_terminal(lambda: app.call_from_thread(app.exit))


def run_on_terminal(app: Any) -> int:
    """Run a Textual app full-screen on this terminal until it exits, or the terminal goes; its exit code."""
    app_ends_with_terminal(app)
    app.run()
    return app.return_code or 0
