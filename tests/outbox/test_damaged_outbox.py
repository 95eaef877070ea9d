"""An outbox file that cannot be used as it is: a damaged one is moved aside beside itself and what can still
be read of it is carried into a clean one, said in one sentence; a read-only or full data dir is said in one
sentence (never a traceback), by the outbox and by `rankterm import`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rankterm.outbox.damage import OutboxUnavailable
from rankterm.outbox.outbox import Outbox, State
from rankterm.wire.models import NewFaction, NewMatch
from tests.outbox.mounts import fill, read_only, tmpfs

ENTRIES = 300


def match(i: int) -> NewMatch:
    return NewMatch(
        game=1,
        weight="normal",
        external_id=f"m-{i:03d}",
        notes="a note long enough to spread the entries over many pages " * 5,
        factions=[NewFaction(players=["a"], rank=1), NewFaction(players=["b"], rank=2)],
    )


@pytest.fixture
def full_outbox(tmp_path: Path) -> Path:
    """An outbox file of 300 pending entries, checkpointed (the WAL is folded in at close)."""
    path = tmp_path / "outbox.db"
    box = Outbox(path, "s")
    box.add_many(match(i) for i in range(ENTRIES))
    box.close()
    return path


def asides(path: Path) -> list[Path]:
    """The damaged copies of `path` set aside (their WAL and shared-memory files beside them left out)."""
    return sorted(
        p for p in path.parent.glob(f"{path.name}.damaged-*") if not p.name.endswith(("-wal", "-shm"))
    )


def test_a_truncated_outbox_is_moved_aside_and_what_can_be_read_is_carried_over(full_outbox: Path) -> None:
    original = full_outbox.read_bytes()
    with open(full_outbox, "r+b") as f:
        f.truncate(len(original) // 2)
    box = Outbox(full_outbox, "s")
    [aside] = asides(full_outbox)
    assert aside.read_bytes() == original[: len(original) // 2]  # kept as it was, beside itself
    kept = [e.external_id for e in box.entries()]
    assert 0 < len(kept) < ENTRIES
    assert kept == sorted(kept) and set(kept) <= {f"m-{i:03d}" for i in range(ENTRIES)}  # in order
    assert all(e.state is State.PENDING and e.match == match(int(e.external_id[2:])) for e in box.entries())
    problem = box.problem or ""
    assert str(aside) in problem and "\n" not in problem and problem.endswith(".")
    assert (
        f"{len(kept)} entries were carried over and up to {ENTRIES - len(kept)} more could not be read"
        in problem
    )
    box.add(match(999))  # the clean file works
    box.close()
    again = Outbox(full_outbox, "s")
    assert again.problem is None and len(again.entries()) == len(kept) + 1


def test_a_garbage_outbox_is_moved_aside_and_a_clean_one_started(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    garbage = b"this is not a database at all " * 300
    path.write_bytes(garbage)
    box = Outbox(path, "s")
    [aside] = asides(path)
    assert aside.read_bytes() == garbage
    assert box.entries() == [] and box.problem is not None
    assert str(aside) in box.problem and "nothing in it could be read" in box.problem
    box.add(match(1))
    assert [e.external_id for e in box.entries()] == ["m-001"]


def test_an_undamaged_outbox_is_left_as_it_is(full_outbox: Path) -> None:
    box = Outbox(full_outbox, "s")
    assert box.problem is None and len(box.entries()) == ENTRIES and asides(full_outbox) == []


def test_a_read_only_data_dir_is_one_sentence(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "data") as data:
        read_only(data)
        with pytest.raises(OutboxUnavailable) as raised:
            Outbox(data / "rankterm" / "outbox.db", "s")
    said = str(raised.value)
    assert said == f"the outbox {data / 'rankterm' / 'outbox.db'} cannot be written (Read-only file system)"


def test_a_full_disk_at_start_is_one_sentence(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "data") as data:
        fill(data)
        with pytest.raises(OutboxUnavailable) as raised:
            Outbox(data / "outbox.db", "s")
    assert "cannot be written (database or disk is full)" in str(raised.value)


def import_in(home: Path, data: Path, csv: Path) -> subprocess.CompletedProcess[str]:
    """`rankterm import --demo`'s sibling on a profile: the outbox opened under `data`, before any request."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(data), "XDG_CONFIG_HOME": str(home / "cfg")}
    (home / "cfg" / "rankterm").mkdir(parents=True, exist_ok=True)
    (home / "cfg" / "rankterm" / "config.toml").write_text(
        '[profiles.p]\nbase_url = "http://127.0.0.1:9/"\nkey = "k"\nsecret = "s"\n'
    )
    return subprocess.run(
        [sys.executable, "-m", "rankterm", "import", str(csv)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("kind", ["read-only", "full"])
def test_rankterm_import_says_a_data_dir_it_cannot_write_in_one_line(tmp_path: Path, kind: str) -> None:
    csv = tmp_path / "plays.csv"
    csv.write_text(
        "date,game,player,team,rank,score\n2026-11-01,Catan,Ada,,1,10\n2026-11-01,Catan,Ben,,2,8\n"
    )
    with tmpfs(tmp_path / "data") as data:
        (data / "rankterm").mkdir()
        if kind == "read-only":
            read_only(data)
        else:
            fill(data)
        done = import_in(tmp_path, data, csv)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"rankterm: the outbox {data / 'rankterm' / 'outbox.db'} cannot be written (")


def test_rankterm_import_says_where_a_damaged_outbox_went(tmp_path: Path) -> None:
    csv = tmp_path / "plays.csv"
    csv.write_text("date,game,player,team,rank,score\n2026-11-01,Catan,Ada,,1,10\n")
    (tmp_path / "data" / "rankterm").mkdir(parents=True)
    outbox = tmp_path / "data" / "rankterm" / "outbox.db"
    outbox.write_bytes(b"garbage " * 500)
    done = import_in(tmp_path, tmp_path / "data", csv)
    assert "Traceback" not in done.stderr
    [aside] = asides(outbox)
    assert (
        f"rankterm: The outbox {outbox} could not be read (file is not a database): it was moved to {aside}"
        in (done.stderr)
    )
