"""`rankterm serve`'s SQLite file read by another process while the service runs (a backup, `sqlite3`, a
second rankterm, a look at the table's evening) leaves the service's write-ahead log in place: what the
service writes after is in the file every other process reads.

Before, opening the database's second connection opened and closed the file once more, which drops every
POSIX lock the process held on it (the first connection's too). The next process to close the file found it
unlocked, checkpointed it and deleted the log the service was still writing to: the matches recorded after
that (a table's outbox said "sent") were in a deleted file, seen by no one else and lost with the service."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rankterm.server.store import Store

READ = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute({sql!r}).fetchone()[0]); c.close()"


def read_elsewhere(path: Path, sql: str) -> str:
    """What another process reads from the file with `sql` (its connection opened, read and closed)."""
    done = subprocess.run(
        [sys.executable, "-c", READ.format(sql=sql), str(path)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_read_by_another_process_leaves_the_services_log_and_its_writes(tmp_path: Path) -> None:
    path = tmp_path / "service.db"
    first = Store(str(path))
    first.create_group("before")
    first.close()
    store = Store(str(path))  # the service started again on its file, as each evening
    try:
        assert read_elsewhere(path, "SELECT count(*) FROM groups") == "1"
        assert (tmp_path / "service.db-wal").exists()  # the service's log, still there

        store.create_group("after the read")
        assert read_elsewhere(path, "SELECT group_concat(name, '|') FROM groups") == "before|after the read"
    finally:
        store.close()
    assert read_elsewhere(path, "SELECT count(*) FROM groups") == "2"
