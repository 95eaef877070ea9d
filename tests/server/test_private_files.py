"""The service's SQLite files (database, -wal, -shm) and the cached demo are the owner's only (0600)."""

from __future__ import annotations

import io
import os
import stat

import pytest

from rankterm.server import seed, serve
from rankterm.server.store import Store
from tests.support.clock import SettableClock


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def no_uvicorn(monkeypatch):
    def run(self, sockets=None):
        for sock in sockets or ():
            sock.close()

    monkeypatch.setattr(serve.uvicorn.Server, "run", run)


def test_serve_makes_its_database_and_wal_files_owner_only(tmp_path, no_uvicorn, capsys):
    db = tmp_path / "data" / "service.db"
    os.umask(0o022)
    assert serve.main(["--db", str(db), "--port", "0"], out=io.StringIO()) == 0
    with Store(db) as store:  # the -wal and -shm exist while a connection is open
        store.groups()
        files = [db, db.with_name("service.db-wal"), db.with_name("service.db-shm")]
        assert [_mode(f) for f in files] == [0o600] * 3
    assert "0600" not in capsys.readouterr().err  # nothing was looser: nothing said


def test_a_looser_database_is_tightened_with_one_line(tmp_path, no_uvicorn, capsys):
    db = tmp_path / "service.db"
    Store(db).close()
    for file in tmp_path.iterdir():
        file.chmod(0o644)
    assert serve.main(["--db", str(db), "--port", "0"], out=io.StringIO()) == 0
    err = capsys.readouterr().err
    assert f"rankterm serve: {db} could be read by other users: made it owner-only (0600).\n" in err
    assert [_mode(f) for f in tmp_path.iterdir()] == [0o600] * len(list(tmp_path.iterdir()))


def test_the_cached_demo_is_written_owner_only_and_an_old_one_tightened(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(seed, "_template", None)
    os.umask(0o022)
    seed.demo_store(clock=SettableClock())
    [cached] = tmp_path.glob("demo-*.db")
    assert _mode(cached) == 0o600
    cached.chmod(0o644)
    monkeypatch.setattr(seed, "_template", None)
    seed.demo_store(clock=SettableClock())
    assert _mode(cached) == 0o600
