"""`rankterm stats` over a history held in part (a first sync within the hourly call quota's share): one line
on stderr and the figures over the matches held; `--wait` syncing hour after hour until whole, then the
figures over everything; Ctrl+C while waiting: exit 130 and one line. Against the embedded service with a
40-calls-an-hour meter and a settable clock (an hour passes when the command sleeps); the Ctrl+C also in a
real process over a real socket."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from rankterm.cli import parser
from rankterm.cli.stats import player_command, run_stats
from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.stats import player_figures
from rankterm.stats.documents import player_document
from rankterm.wire.models import Match
from tests.cli.conftest import league_profile
from tests.support.clock import T0, SettableClock

BASE = "http://in-process.rankterm/"
HOUR = 3600.0
GROUP = 300


class Seat:
    """The demo group on a service whose hourly call meter is 40 calls, and a seat's mirror file."""

    def __init__(self, mirror_path: Path) -> None:
        self.clock = SettableClock(T0 - T0 % HOUR + 60)
        self.app = create_app(
            demo_store(clock=self.clock), clock=self.clock, limits=QuotaLimits(calls_per_hour=40)
        )
        self.mirror_path = mirror_path
        self.slept: list[float] = []

    def client(self, *, interrupt: bool = False) -> Group:
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url=BASE)
        group = Group(
            RankingClient(
                BASE,
                key=DEMO_KEY,
                secret=DEMO_SECRET,
                http=http,
                clock=self.clock,
                backoff=0.0,
            ),
            mirror=Mirror(self.mirror_path, f"{BASE}|{DEMO_KEY}", clock=self.clock),
        )
        group.client._own_http = True

        async def sleep(seconds: float) -> None:
            if interrupt:
                raise KeyboardInterrupt  # what Ctrl+C raises in the sleeping command
            self.slept.append(seconds)
            self.clock.advance(seconds)

        group.client.sleep = sleep
        return group

    def all_matches(self) -> list[Match]:
        """The group's matches as the wire gives them, read on an unlimited service over the same store."""
        app = create_app(
            demo_store(clock=self.clock), clock=self.clock, limits=QuotaLimits(calls_per_hour=None)
        )

        async def read() -> list[Match]:
            async with Group(RankingClient.in_process(app, key=DEMO_KEY, secret=DEMO_SECRET)) as group:
                return await group.all_matches()

        return asyncio.run(read())


@pytest.fixture
def seat(tmp_path) -> Seat:
    return Seat(tmp_path / "mirror.db")


def player(seat: Seat, *extra: str, interrupt: bool = False) -> int:
    args = parser().parse_args(["stats", "player", "Ada", "--format", "json", *extra])
    group = Group.of(seat.client(interrupt=interrupt))
    try:
        return run_stats(args, player_command, group)
    finally:
        group.mirror.close()


def held_count(seat: Seat) -> int:
    mirror = Mirror(seat.mirror_path, f"{BASE}|{DEMO_KEY}", clock=seat.clock)
    try:
        return mirror.held.match_numbers()[0]
    finally:
        mirror.close()


def test_a_partial_history_is_said_on_stderr_and_the_figures_are_over_what_is_held(seat, capsys):
    assert player(seat) == 0
    out, err = capsys.readouterr()
    held = held_count(seat)
    assert 0 < held < GROUP
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"Figures over {held} of {GROUP} matches · the rest within ")
    doc = json.loads(out)
    newest = [m for m in seat.all_matches() if m.number > GROUP - held]  # the newest are held first
    assert doc == player_document(player_figures(newest, doc["player"]["id"]))
    assert doc["played"] < player_document(player_figures(seat.all_matches(), doc["player"]["id"]))["played"]


def test_wait_syncs_each_hour_until_the_whole_history_is_held_then_answers(seat, capsys):
    assert player(seat, "--wait") == 0
    out, err = capsys.readouterr()
    assert held_count(seat) == GROUP
    waits = err.splitlines()
    assert len(waits) == len(seat.slept) > 1  # a line for each hour waited, nothing else
    assert all(
        w.startswith("Waiting for the rest of the history: ") and " of 300 matches" in w for w in waits
    )
    assert all(0 < s <= HOUR + 5 for s in seat.slept)  # to the turn of the hour, not a fixed hour's sleep
    doc = json.loads(out)
    assert doc == player_document(player_figures(seat.all_matches(), doc["player"]["id"]))

    assert player(seat) == 0  # whole: nothing on stderr
    assert capsys.readouterr().err == ""


def test_ctrl_c_while_waiting_exits_130_with_one_line(seat, capsys):
    assert player(seat, "--wait", interrupt=True) == 130
    out, err = capsys.readouterr()
    held = held_count(seat)
    assert out == ""
    assert err.splitlines() == [
        err.splitlines()[0],
        f"rankterm: stopped waiting; {held} of {GROUP} matches held.",
    ]
    assert err.splitlines()[0].startswith("Waiting for the rest of the history: ")
    assert "Traceback" not in err


def hearing_ctrl_c() -> None:
    """In the child: SIGINT as a terminal's program gets it, even when this run ignores it (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_a_real_process_waiting_on_a_served_group_exits_130_with_one_line(tmp_path):
    """`rankterm stats --wait` on the embedded service over a real socket, interrupted by SIGINT while it
    waits for the hour to turn, as a terminal's Ctrl+C does."""
    store = demo_store()
    with league_profile(tmp_path, store, DEMO_KEY, DEMO_SECRET, limits=QuotaLimits(calls_per_hour=40)):
        argv = [sys.executable, "-m", "rankterm", "--profile", "league", "stats", "player", "Ada", "--wait"]
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ,
            preexec_fn=hearing_ctrl_c,
        )
        try:
            assert proc.stderr is not None
            waiting = proc.stderr.readline()
            assert (
                waiting.startswith("Waiting for the rest of the history: ") and " of 300 matches" in waiting
            )
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 130
    assert out == ""
    assert re.fullmatch(r"rankterm: stopped waiting; \d+ of 300 matches held\.\n", err)
