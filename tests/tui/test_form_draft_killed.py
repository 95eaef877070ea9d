"""A seat killed right after a burst keeps the burst: the real `rankterm --profile room` process on a
pseudo-terminal (80x24) gets a match typed in one write, is killed with SIGKILL 0.15 s after it drew the last
key, and the draft it left (mode 0600) holds the whole form; the next seat offers it."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app
from rankterm.tui.widgets.match_form.draft import parse_draft
from tests.support.live import serve_in_thread
from tests.support.terminal import PtySeat, room_env

ROOT = Path(__file__).resolve().parents[2]

BURST = b"nCat\rEl\t\t10\rAd\t\t8\tQuokkaz"
"""`n C a t ⏎ E l Tab Tab 1 0 ⏎ A d Tab Tab 8 Tab Quokkaz`: Elena 10 points, Ada 8 as "Quokkaz", not sent."""
KILL_AFTER = 0.15
"""Seconds between the seat drawing the last key and SIGKILL."""


@pytest.fixture
def served() -> Iterator[str]:
    asgi, _, _ = demo_app()
    with serve_in_thread(asgi) as base_url:
        yield base_url


@pytest.mark.slow
def test_a_seat_killed_right_after_a_burst_leaves_the_burst_in_its_draft(served, tmp_path):
    env = room_env(tmp_path, served, DEMO_KEY, DEMO_SECRET, RANKTERM_LIVE_EVERY="0", PYTHONPATH=str(ROOT))
    seat = PtySeat(["--profile", "room"], env)
    try:
        assert seat.wait_for("Home", 30), seat.seen[-500:]
        seat.settle()
        seat.press(BURST)
        assert seat.wait_for("Quokkaz", 20), seat.seen[-800:]
        time.sleep(KILL_AFTER)
        os.kill(seat.pid, signal.SIGKILL)
    finally:
        seat.close()
    drafts = tmp_path / "data" / "drafts" / "drafts.db"
    assert stat.S_IMODE(drafts.stat().st_mode) == 0o600
    db = sqlite3.connect(drafts)
    [row] = db.execute("SELECT saved_at, body FROM drafts").fetchall()
    db.close()
    kept = parse_draft(*row)
    assert kept is not None and kept.form is not None
    form = kept.form
    assert form["game"]["name"] == "Catan"
    assert [
        ([p["display_name"] for p in row["players"]], row["points"], row["name"]) for row in form["rows"][:2]
    ] == [(["Elena"], "10", ""), (["Ada"], "8", "Quokkaz")]

    again = PtySeat(["--profile", "room"], env)
    try:
        assert again.wait_for("Home", 30), again.seen[-500:]
        again.settle()
        again.press(b"n")
        assert again.wait_for("was not sent", 10), again.seen[-800:]
    finally:
        again.close()
