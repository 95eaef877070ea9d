"""A full disk on the service is R004 (507, "the service's disk is full"), never R001: nothing is written, and
the same request succeeds once there is room again. On both engines, on a real full filesystem: a 2 MB tmpfs
(mounted here, as root) holding the SQLite file, or a PostgreSQL tablespace holding the match tables."""

from __future__ import annotations

import contextlib
import errno
import os
import pwd
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest

from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.wire.errors import CODES, ServiceDiskFull, error_from_response
from tests.server.conftest import Api, _client, duel

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")

MOVED = ("matches", "factions", "faction_players", "subset_matches")
"""The tables a new match is written to, put on the small filesystem (PostgreSQL)."""


@contextlib.contextmanager
def small_disk(owner: str | None = None) -> Iterator[Path]:
    """A 2 MB tmpfs, mounted for the block (right under the temp dir, so another user can reach it)."""
    where = Path(tempfile.mkdtemp(prefix="rk-small-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], check=True)
    try:
        if owner is not None:
            user = pwd.getpwnam(owner)
            os.chown(where, user.pw_uid, user.pw_gid)
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        where.rmdir()


def fill(where: Path) -> Path:
    """Take every byte left on the filesystem at `where`; the filler file (delete it to make room)."""
    filler = where / "filler"
    with open(filler, "wb", buffering=0) as out:
        size = 65536
        while size:
            try:
                out.write(b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                size //= 2
    return filler


async def _send_with_a_full_disk(store: Store, where: Path) -> None:
    group = store.create_group("Full")
    key, secret = store.create_client(group)
    async for http in _client(create_app(store)):
        api = Api(http, key, secret)
        await api.login()
        a, b = await api.player("Ann"), await api.player("Bob")
        game = await api.game("Go")
        filler = fill(where)
        match = duel(game, a, b, id="on-a-full-disk")
        response = await api.post("matches/match", json=[match])
        message = api.check_error(response, "R004", 507)
        assert message == "The service's disk is full; nothing was written. Send it again later."
        assert store.match_status(group).total == 0
        filler.unlink()
        assert (await api.add(match))["acceptedCount"] == 1
        assert (await api.ok("matches/status"))["total"] == 1


async def test_sqlite_on_a_full_disk_is_r004_and_loses_nothing():
    with small_disk() as where:
        store = Store(where / "service.db")
        try:
            await _send_with_a_full_disk(store, where)
        finally:
            store.close()


async def test_postgresql_on_a_full_disk_is_r004_and_loses_nothing():
    from tests.conftest import postgres_url

    url = postgres_url()
    with small_disk(owner="postgres") as where:
        name = urlparse(url).path.lstrip("/")
        admin_url = url.replace(f"/{name}?", "/postgres?")
        space = f"full_{name}"
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"CREATE TABLESPACE {space} LOCATION '{where}'")
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                for table in MOVED:
                    conn.execute(f"ALTER TABLE {table} SET TABLESPACE {space}")
            store = Store(url)
            try:
                await _send_with_a_full_disk(store, where)
            finally:
                store.close()
        finally:
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
                admin.execute(f"DROP TABLESPACE {space}")


def test_the_client_reads_r004_as_one_sentence():
    assert CODES["R004"][0] == 507
    error = error_from_response("matches/match", 507, {"errors": [{"code": "R004", "message": ""}]})
    assert isinstance(error, ServiceDiskFull)
    assert str(error) == "matches/match: the service's disk is full (R004)."
