"""Soak: 500 matches through the outbox, random faults on every request, the sender killed and restarted.

The service (the embedded one, on a real socket) must end up holding exactly the 500 matches, each once by
external id, and the outbox must show every one sent. Bounded: the test gives up after 60 s.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rankterm.outbox.outbox import Outbox, State
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.live import serve_in_thread

SENDER = Path(__file__).with_name("soak_sender.py")
TOTAL = 500


def _matches(players: list[str], game: int) -> list[NewMatch]:
    out = []
    for i in range(TOTAL):
        a, b, c = players[i % 6], players[(i + 1) % 6], players[(i + 2) % 6]
        out.append(
            NewMatch(
                game=game,
                weight="normal",
                external_id=f"soak-{i:04d}",
                factions=[
                    NewFaction(players=[a], rank=1, points="10"),
                    NewFaction(players=[b], rank=2, points="8"),
                    NewFaction(players=[c], rank=2 + i % 2, points="8" if i % 2 == 0 else "5"),
                ],
            )
        )
    return out


def _start(outbox: Path, url: str, key: str, secret: str, seed: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(SENDER), str(outbox), url, key, secret, str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_soak_exactly_once_through_faults_and_a_kill(tmp_path):
    store = Store(tmp_path / "service.db")
    group = store.create_group("Soak")
    key, secret = store.create_client(group)
    players = [store.create_player(group, f"P{i}").id for i in range(6)]
    game = store.create_game(group, name="Catan").id
    big = 10**9
    limits = QuotaLimits(
        calls_per_year=big,
        calls_per_hour=big,
        matches_per_year=big,
        matches_per_day=big,
        matches_per_hour=big,
    )
    app = create_app(store, limits=limits)
    deadline = time.monotonic() + 60
    with serve_in_thread(app) as url:
        outbox_path = tmp_path / "outbox.db"
        box = Outbox(outbox_path, scope=url + key)
        for m in _matches(players, game):
            box.add(m)
        box.close()

        first = _start(outbox_path, url, key, secret, seed=1)
        while store.match_status(group).total < 150 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert first.poll() is None, "the sender finished before it could be killed"
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        recorded_at_kill = store.match_status(group).total
        assert 0 < recorded_at_kill < TOTAL

        second = _start(outbox_path, url, key, secret, seed=2)
        try:
            out, _ = second.communicate(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            second.kill()
        assert second.returncode == 0, out[-2000:]

    faults_seen = out.splitlines()[-1]
    print(f"killed at {recorded_at_kill} recorded; after restart: {faults_seen}")
    assert "reset_after" in faults_seen and "timeout" in faults_seen and "quota_429" in faults_seen
    recorded = [m.external_id for p in range(1, 100) for m in store.matches_page(group, None, p).data]
    assert len(recorded) == TOTAL, f"{len(recorded)} matches recorded"
    assert sorted(recorded) == [f"soak-{i:04d}" for i in range(TOTAL)]  # each once: no loss, no duplicate
    box = Outbox(outbox_path, scope=url + key)
    assert box.counts() == {State.PENDING: 0, State.SENT: TOTAL, State.REJECTED: 0}
    assert not any(e.in_doubt for e in box.entries())
