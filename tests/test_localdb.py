"""`rankterm.localdb`: a private SQLite file made owner-only, migrated by `user_version`, and one it cannot use
(damaged, not a database, newer) moved aside once with one sentence; a folder it cannot write raises one
sentence or falls back to memory when asked."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from rankterm.localdb import LocalDb, Unavailable, statements
from tests.outbox.mounts import read_only, tmpfs


def _fill_notes(db: sqlite3.Connection) -> None:
    """A step in Python: every note gets its length."""
    rows = db.execute("SELECT id, body FROM notes").fetchall()
    db.executemany("UPDATE notes SET size = ? WHERE id = ?", [(len(body), i) for i, body in rows])


STEPS = (
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
    "ALTER TABLE notes ADD COLUMN size INTEGER NOT NULL DEFAULT 0",
    _fill_notes,
)
NOTES = LocalDb("the notes", STEPS)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def asides(path: Path) -> list[Path]:
    return sorted(
        p for p in path.parent.glob(f"{path.name}.damaged-*") if not p.name.endswith(("-wal", "-shm"))
    )


def test_a_new_file_is_private_in_a_private_folder_and_fully_migrated(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "notes.db"
    opened = NOTES.open(path)
    opened.db.execute("INSERT INTO notes (body) VALUES ('x')")
    assert opened.path == path and opened.found == 0 and opened.problem is None and opened.moved is None
    assert opened.db.execute("PRAGMA user_version").fetchone()[0] == NOTES.version == 3
    assert mode(path.parent) == 0o700
    assert mode(path) == 0o600 and mode(Path(f"{path}-wal")) == 0o600
    opened.db.close()


def test_a_looser_file_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    NOTES.open(path).db.close()
    path.chmod(0o644)
    opened = NOTES.open(path)
    assert mode(path) == 0o600 and path in opened.tightened and opened.found == 3
    opened.db.close()


def test_an_older_file_runs_only_the_steps_it_has_not_seen_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL); PRAGMA user_version = 1;"
    )
    old.executemany("INSERT INTO notes (body) VALUES (?)", [("ab",), ("abcd",)])
    old.commit()
    old.close()
    opened = NOTES.open(path)
    assert opened.found == 1 and opened.problem is None
    assert opened.db.execute("SELECT body, size FROM notes ORDER BY id").fetchall() == [
        ("ab", 2),
        ("abcd", 4),
    ]
    opened.db.close()
    again = NOTES.open(path)
    assert again.found == 3
    again.db.close()


def test_a_failing_callable_step_rolls_its_transaction_back(tmp_path: Path) -> None:
    def boom(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO notes (body) VALUES ('half')")
        raise RuntimeError("not this time")

    path = tmp_path / "notes.db"
    with pytest.raises(RuntimeError):
        LocalDb("the notes", (*STEPS, boom)).open(path)
    opened = NOTES.open(path)
    assert opened.db.execute("SELECT count(*) FROM notes").fetchone()[0] == 0
    assert opened.found == 3 and asides(path) == []
    opened.db.close()


def test_a_step_that_fails_in_sqlite_keeps_the_file_as_it_was_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    NOTES.open(path).db.close()
    broken = LocalDb("the notes", (*STEPS, "ALTER TABLE nowhere ADD COLUMN x"))
    with pytest.raises(Unavailable) as raised:
        broken.open(path)
    assert str(raised.value) == f"The notes {path} cannot be used (no such table: nowhere)."
    assert asides(path) == []
    opened = NOTES.open(path)
    assert opened.found == 3
    opened.db.close()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"this is not a database at all " * 300, "file is not a database"),
        (b"", "written by a newer rankterm, version 9; this one knows 3"),
    ],
    ids=["garbage", "newer"],
)
def test_a_file_it_cannot_use_is_moved_aside_once_with_one_sentence(
    tmp_path: Path, content: bytes, why: str
) -> None:
    path = tmp_path / "notes.db"
    if content:
        path.write_bytes(content)
    else:
        newer = sqlite3.connect(path)
        newer.executescript("CREATE TABLE future (x); PRAGMA user_version = 9;")
        newer.close()
    kept = path.read_bytes()
    opened = NOTES.open(path, clock=lambda: 0.0)
    [aside] = asides(path)
    assert aside.name == "notes.db.damaged-19700101T000000Z" and aside.read_bytes() == kept
    assert opened.moved is not None and opened.moved.aside == aside and opened.found == 0
    assert opened.problem == (
        f"The notes {path} could not be read ({why}): it was moved to {aside} and a fresh one started."
    )
    opened.db.execute("INSERT INTO notes (body) VALUES ('fresh')")
    opened.db.close()
    again = NOTES.open(path)
    assert again.problem is None and asides(path) == [aside]
    assert again.db.execute("SELECT body FROM notes").fetchall() == [("fresh",)]
    again.db.close()


def test_a_damaged_page_is_found_on_open_when_checked(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    opened = NOTES.open(path)
    opened.db.executemany("INSERT INTO notes (body) VALUES (?)", [("n" * 500,) for _ in range(200)])
    opened.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    opened.db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 3 : page * 4] = b"\xff" * page  # a page of the table overwritten
    path.write_bytes(bytes(data))
    checked = LocalDb("the notes", STEPS, check=True).open(path)
    assert checked.moved is not None and "malformed" in checked.moved.why
    checked.db.close()


def test_a_read_only_folder_is_one_sentence_or_memory_when_asked(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "data") as data:
        read_only(data)
        path = data / "rankterm" / "notes.db"
        with pytest.raises(Unavailable) as raised:
            NOTES.open(path)
        assert str(raised.value) == f"The notes {path} cannot be used (Read-only file system)."
        opened = NOTES.open(path, memory_fallback=True)
    assert opened.path is None and opened.problem == (
        f"The notes {path} cannot be used (Read-only file system); it is kept in memory for this run."
    )
    opened.db.execute("INSERT INTO notes (body) VALUES ('kept')")
    assert opened.db.execute("SELECT body, size FROM notes").fetchall() == [("kept", 0)]
    opened.db.close()


def test_a_path_of_none_is_in_memory_and_migrated(tmp_path: Path) -> None:
    opened = NOTES.open(None)
    assert opened.path is None and opened.problem is None and opened.found == 0
    assert opened.db.execute("PRAGMA user_version").fetchone()[0] == 3
    opened.db.close()


def test_statements_keep_a_trigger_body_and_a_quoted_semicolon_whole() -> None:
    script = """
    CREATE TABLE t (x TEXT);
    CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN UPDATE t SET x = x || ';'; SELECT 1; END;
    INSERT INTO t VALUES ('a;b')
    """
    parts = statements(script)
    assert len(parts) == 3
    assert parts[1].startswith("CREATE TRIGGER") and parts[1].endswith("END")
    assert parts[2] == "INSERT INTO t VALUES ('a;b')"
