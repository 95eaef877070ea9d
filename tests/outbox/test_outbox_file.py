"""The outbox's file across versions: a file written by the rankterm before `rankterm.localdb` (schema 4, kept in
tests/outbox/fixtures/outbox-v4.db) opens with every queued entry as it was; a file of a newer rankterm is
moved aside and its entries carried over."""

from __future__ import annotations

import shutil
import sqlite3
import stat
from pathlib import Path

from rankterm.outbox.file import SCHEMA_VERSION
from rankterm.outbox.outbox import Outbox, State
from rankterm.outbox.outcome import OutcomeState
from rankterm.wire.errors import ErrorItem

FIXTURES = Path(__file__).parent / "fixtures"
SCOPE = "https://rank.example/|key"


def copy_of(name: str, tmp_path: Path) -> Path:
    path = tmp_path / "outbox.db"
    shutil.copyfile(FIXTURES / name, path)
    path.chmod(0o644)
    return path


def test_an_outbox_written_before_localdb_keeps_every_entry_as_it_was(tmp_path: Path) -> None:
    path = copy_of("outbox-v4.db", tmp_path)
    box = Outbox(path, SCOPE)
    assert box.problem is None and list(tmp_path.glob("*.damaged-*")) == []
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # a looser file is made the owner's only
    [ghost] = box.ghosts()
    assert ghost.name == "Zoë" and ghost.state is State.PENDING
    entries = {e.external_id: e for e in box.entries()}
    assert list(entries) == [f"m-{i}" for i in range(1, 7)]
    assert all(e.match.notes == f"note {e.external_id[2:]}" for e in entries.values())
    assert entries["m-1"].state is State.PENDING and not entries["m-1"].in_doubt
    assert entries["m-2"].state is State.REJECTED
    assert entries["m-2"].errors == (ErrorItem("game_unknown", "no such game"),)
    assert entries["m-3"].state is State.SENT and entries["m-3"].match_id == "77"
    assert entries["m-4"].in_doubt and entries["m-4"].outcome().state is OutcomeState.IN_DOUBT
    twin = entries["m-5"].twin
    assert twin is not None and twin.number == 12 and twin.match_id == "55"
    assert ghost.local_id in entries["m-6"].match.factions[0].players
    assert [type(e).__name__ for e in box.queue()][:2] == [
        "GhostEntry",
        "Entry",
    ]  # the ghost still goes first
    box.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_an_outbox_of_a_newer_rankterm_is_moved_aside_and_its_entries_carried_over(tmp_path: Path) -> None:
    path = copy_of("outbox-v4.db", tmp_path)
    newer = sqlite3.connect(path)
    newer.executescript(
        "ALTER TABLE entries ADD COLUMN future TEXT NOT NULL DEFAULT '';"
        f" PRAGMA user_version = {SCHEMA_VERSION + 1};"
    )
    newer.close()
    box = Outbox(path, SCOPE)
    [aside] = [p for p in tmp_path.glob("outbox.db.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert box.problem is not None and str(aside) in box.problem
    assert f"written by a newer rankterm, version {SCHEMA_VERSION + 1}" in box.problem
    assert "all 7 of its entries were carried over" in box.problem
    assert [e.external_id for e in box.entries()] == [f"m-{i}" for i in range(1, 7)]
    assert len(box.ghosts()) == 1
    box.close()
