"""Each open outbox marks the entries it queues with its origin and holds a mark file while it is open, so that
two processes of one seat (two apps of a profile on one machine) are told apart: the newest match "recorded
here" is this outbox's own, or an ended one's, never one another outbox still open has queued."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from rankterm.outbox.outbox import Outbox
from rankterm.wire.models import NewFaction, NewMatch


def duel(external_id: str) -> NewMatch:
    return NewMatch(
        game=1,
        weight="normal",
        external_id=external_id,
        factions=[NewFaction(players=["a"], rank=1), NewFaction(players=["b"], rank=2)],
    )


def _recorded_here(box: Outbox) -> str | None:
    entry = box.recorded_here()
    return entry.external_id if entry is not None else None


def test_another_open_outbox_of_the_seat_is_not_here_until_it_closes(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    mine, other = Outbox(path, "s"), Outbox(path, "s")
    assert mine.origin != other.origin
    assert _recorded_here(mine) is None
    mine.add(duel("mine-1"))
    other.add(duel("other-1"))
    assert _recorded_here(mine) == "mine-1"
    assert _recorded_here(other) == "other-1"
    other.close()
    assert _recorded_here(mine) == "other-1"  # an earlier session's now: the newest
    assert list(tmp_path.glob("*.open")) == [path.with_name(f"outbox.db.{mine.origin}.open")]
    mine.close()
    assert list(tmp_path.glob("*.open")) == []


KILLED = """
import os, signal, sys
from rankterm.outbox.outbox import Outbox
from rankterm.wire.models import NewFaction, NewMatch
box = Outbox(sys.argv[1], "s")
box.add(NewMatch(game=1, weight="normal", external_id="gone-1",
                 factions=[NewFaction(players=["a"], rank=1), NewFaction(players=["b"], rank=2)]))
print(box.origin, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_mark_left_by_a_killed_process_counts_as_ended_and_goes(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    run = subprocess.run(
        [sys.executable, "-c", KILLED, str(path)], capture_output=True, text=True, check=False
    )
    assert run.returncode == -signal.SIGKILL
    left = path.with_name(f"outbox.db.{run.stdout.strip()}.open")
    assert left.exists()  # killed: the kernel let its lock go, its mark file stays
    assert _recorded_here(Outbox(path, "s")) == "gone-1"
    assert not left.exists()


def test_an_older_files_entries_are_an_earlier_sessions(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    old = Outbox(path, "s")
    old.add(duel("old-1"))
    old._db.execute("UPDATE entries SET origin = ''")
    old.close()
    assert _recorded_here(Outbox(path, "s")) == "old-1"
    assert _recorded_here(Outbox(path, "s", seat="guest")) is None  # a guest seat's are its own only
