"""A folder of ours that cannot be written (a read-only cache dir: the token cache and mirror live there) costs a
headless command one sentence on stderr, never a traceback: the mirror is kept in memory for the run, the token
is not kept, and the command does its work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rankterm.server.store import Store
from tests.outbox.mounts import read_only, tmpfs

from .conftest import league_profile


def test_a_read_only_cache_dir_is_one_sentence_and_rankterm_import_still_records(tmp_path: Path) -> None:
    store = Store(tmp_path / "service.db")
    group = store.create_group("Table")
    key, secret = store.create_client(group)
    csv = tmp_path / "plays.csv"
    csv.write_text(
        "date,game,player,team,rank,score\n2026-11-01,Catan,Ada,,1,10\n2026-11-01,Catan,Ben,,2,8\n"
    )
    with league_profile(tmp_path, store, key, secret), tmpfs(tmp_path / "ro-cache") as cache:
        read_only(cache)
        done = subprocess.run(
            [sys.executable, "-m", "rankterm", "import", str(csv)],
            env={**os.environ, "RANKTERM_CACHE_DIR": str(cache / "rankterm")},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 0, done.stderr
    said = done.stderr.strip().splitlines()
    assert any("kept in memory for this run" in line for line in said), said
    assert "Recorded 1 match" in said[-1]
    store = Store(tmp_path / "service.db")
    assert store.match_status(group).total == 1
    store.close()
