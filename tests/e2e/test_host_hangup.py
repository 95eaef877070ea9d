"""Every full-screen rankterm ends when its terminal goes away, whoever serves it: here a plain pseudo-terminal
whose other side is closed, as a terminal window closing or sshd losing its client does, with SIGHUP ignored
(as under `nohup` and some session managers), so that only the hangup itself can end it. Before, the app ran
on after the hangup with its input thread reading end-of-file at full speed (100 % of a core)."""

from __future__ import annotations

import os
import signal
import time

import pytest

from tests.support.terminal import PtySeat, home_env


def ended_within(pid: int, limit: float) -> int | None:
    """The process's exit status once it has ended (at most `limit` seconds), else None."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.1)
    return None


@pytest.mark.parametrize(("args", "shown"), [(["demo"], "Home"), (["board", "--demo"], "Scoreboard")])
def test_a_seat_whose_terminal_hangs_up_ends_even_with_sighup_ignored(tmp_path, args, shown) -> None:
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # inherited by the seat: only the hangup remains
    try:
        seat = PtySeat(args, home_env(tmp_path, RANKTERM_LIVE_EVERY="0"))
    finally:
        signal.signal(signal.SIGHUP, before)
    status = None
    try:
        assert seat.wait_for(shown, 30), seat.seen[-500:]
        seat.settle()
        os.close(seat.fd)  # the terminal goes away
        status = ended_within(seat.pid, 10)
        assert status is not None, "the app runs on without its terminal"
    finally:
        if status is None:
            os.kill(seat.pid, signal.SIGKILL)
            os.waitpid(seat.pid, 0)
