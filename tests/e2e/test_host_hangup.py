"""Every full-screen rankterm ends when its terminal goes away, whoever serves it: here a plain pseudo-terminal
whose other side is closed, as a terminal window closing or sshd losing its client does, with SIGHUP ignored
(as under `nohup` and some session managers), so that only the hangup itself can end it. Before, the app ran
on after the hangup with its input thread reading end-of-file at full speed (100 % of a core)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from rankterm.testing.terminal import PtySeat

ROOT = Path(__file__).resolve().parents[2]


def seat_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
    env.update(
        TERM="xterm-256color",
        PYTHONPATH=str(ROOT),
        RANKTERM_CONFIG=str(tmp_path / "config.toml"),
        RANKTERM_CACHE_DIR=str(tmp_path / "cache"),
        RANKTERM_DATA_DIR=str(tmp_path / "data"),
        RANKTERM_LIVE_EVERY="0",
    )
    return env


def ended_within(pid: int, limit: float) -> int | None:
    """The process's exit status once it has ended (at most `limit` seconds), else None."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.1)
    return None


@pytest.mark.parametrize(("args", "shown"), [(["demo"], "Dashboard"), (["board", "--demo"], "Scoreboard")])
def test_a_seat_whose_terminal_hangs_up_ends_even_with_sighup_ignored(tmp_path, args, shown) -> None:
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # inherited by the seat: only the hangup remains
    try:
        seat = PtySeat(args, seat_env(tmp_path))
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
