"""What `rankterm demo` does on its way to the first data, made cheaper, still does the same.

The demo's copy of the day's group is read from its cache file as bytes (`Store.copy_of`), the demo client's
token is signed by hand (`tokens.mint`, PyJWT only for tokens of another process), and openskill waits for
the first match rated.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import jwt
import pytest

from rankterm.server import seed, tokens
from rankterm.server.db import schema
from rankterm.server.store import Store
from rankterm.server.wire import Fault
from rankterm.wire import rating

ROOT = Path(__file__).resolve().parents[2]


def test_a_minted_token_is_what_pyjwt_writes_and_reads():
    key = tokens.new_signing_key()
    token = tokens.mint(key, 7, 3, 1000.9, 60, client_key="K7")
    claims = {"sub": "7", "grp": 3, "key": "K7", "iat": 1000, "exp": 1060}
    assert token == jwt.encode(claims, key, algorithm="HS256")
    assert jwt.decode(token, key, algorithms=["HS256"], options={"verify_exp": False}) == claims
    assert jwt.get_unverified_header(token) == {"alg": "HS256", "typ": "JWT"}


def test_a_token_not_minted_here_is_checked_by_its_signature(monkeypatch):
    key = tokens.new_signing_key()
    monkeypatch.setattr(tokens, "_verified", {})
    good = jwt.encode({"sub": "7", "grp": 3, "key": "K7", "iat": 1000, "exp": 1060}, key, algorithm="HS256")
    assert tokens.verify(key, good, 1000.0).client_key == "K7"
    forged = good[: good.rindex(".") + 1] + ("A" if good[-1] != "A" else "B") * len(
        good[good.rindex(".") + 1 :]
    )
    with pytest.raises(Fault) as refused:
        tokens.verify(key, forged, 1000.0)
    assert refused.value.code == "A002"
    with pytest.raises(Fault):  # another key's token, even one this process minted
        tokens.verify(tokens.new_signing_key(), tokens.mint(key, 7, 3, 1000.0, 60), 1000.0)


def test_the_initial_skill_is_still_openskills_own():
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    assert rating.initial_skill() == rating.Skill(mu=float(model.mu), sigma=float(model.sigma))


def _written(tmp_path: Path) -> tuple[Path, Store]:
    store = Store(":memory:")
    group = store.create_group("Group", now=0.0)
    store.create_client(group, key="k", secret="s", now=0.0)
    path = tmp_path / "copy.db"
    target = sqlite3.connect(path)
    try:
        store.backup_to(target)
    finally:
        target.close()
    return path, store


def test_copy_of_reads_the_file_as_written_and_leaves_it_untouched(tmp_path):
    path, source = _written(tmp_path)
    before = path.read_bytes()
    copy = Store.copy_of(path)
    assert copy.has_client("k") and copy.path == ":memory:"
    assert copy.signing_key == source.signing_key
    copy.create_client(copy.groups()[0][0], key="k2", secret="s", now=0.0)  # writable, in memory only
    assert copy.has_client("k2")
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["copy.db"]
    assert not Store.copy_of(path).has_client("k2")


def test_copy_of_refuses_another_schema_version_a_missing_file_and_garbage(tmp_path):
    path, _ = _written(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION - 1}")
    conn.close()
    for bad in (path, tmp_path / "missing.db"):
        with pytest.raises(sqlite3.Error):
            Store.copy_of(bad)
    (tmp_path / "garbage.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(sqlite3.Error):
        Store.copy_of(tmp_path / "garbage.db")


CHILD = """
import asyncio, json, sys
from rankterm.cli.app import make_demo_client

async def main():
    client = make_demo_client()
    status = await client.status()
    counts = await client.match_status()
    await client.aclose()
    return counts.total
total = asyncio.run(main())
print(json.dumps({"total": total, "modules": [m for m in ("jwt", "openskill") if m in sys.modules]}))
"""


def test_the_demo_opens_and_reads_without_pyjwt_or_openskill(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(seed, "_template", None)
    seed.demo_store()  # seeds the day's group here (openskill rates it) and writes it where the child reads it
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, check=True, capture_output=True, text=True)
    assert json.loads(done.stdout) == {"total": 300, "modules": []}
