"""The service's database in one SQLite file (or ``":memory:"``): a writer and a reader connection.

Every write is one ``BEGIN IMMEDIATE … COMMIT`` under the writer's lock; a file runs in WAL mode, so reads
go to a second connection and answer from the last committed state while a long write runs. The files are
the owner's only (0600). See docs/design/server.md.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rankterm.server.db import schema
from rankterm.server.db.conn import Conn, Dialect
from rankterm.server.db.copying import open_backup
from rankterm.server.db.engine import Engine

CACHE_KIB = -32 * 1024
"""SQLite's page cache of a file database (negative: KiB), per connection; the memory is taken as used."""

MEMORY = ":memory:"

PRIVATE = 0o600
"""The mode of the service's files: the owner reads and writes, nobody else anything."""


class SqliteDialect(Dialect):
    """SQLite's words for what the modules cannot write once."""

    def name_order(self, text: str) -> str:
        """`text` itself: SQLite compares text byte-wise (UTF-8: code point order, NUL included), as Python
        orders strings."""
        return text


DIALECT = SqliteDialect()


class SqliteConnection(sqlite3.Connection):
    """A sqlite3 connection that names its dialect (`conn.Conn`)."""

    __slots__ = ()

    dialect: Dialect = DIALECT


def _files(path: str) -> list[str]:
    return [path, path + "-wal", path + "-shm"]


def _make_private(path: str) -> None:
    """Make the database file, owner-only, if it does not exist yet: SQLite gives its -wal and -shm the
    database's mode."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if not os.path.exists(path):  # closing any descriptor of an open database drops SQLite's locks on it
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, PRIVATE))


def _connect(path: str) -> SqliteConnection:
    if path != MEMORY:
        _make_private(path)
    conn = sqlite3.connect(
        path, isolation_level=None, check_same_thread=False, timeout=10.0, factory=SqliteConnection
    )
    conn.execute("PRAGMA foreign_keys = ON")
    if path != MEMORY:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        # 32 MiB of page cache instead of 2: at 100,000 matches the pages the standings read (a subset's
        # current rows, snapshot and recent history) no longer fit in the default, and each miss is a
        # read from the OS.
        conn.execute(f"PRAGMA cache_size = {CACHE_KIB}")
    return conn


class SqliteEngine(Engine):
    """One SQLite database: a writer connection and (for a file) a reader connection, each behind its
    own lock (so one process serves it)."""

    name = "sqlite"
    many_processes = False
    errors = (sqlite3.Error,)

    def __init__(self, conn: SqliteConnection, reader: SqliteConnection | None = None) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self._reader = reader or conn
        self._read_lock = threading.RLock() if reader is not None else self._lock
        self._path: str | None = None

    @classmethod
    def open(cls, name: str) -> SqliteEngine:
        writer = _connect(name)
        if name == MEMORY:
            return cls(writer)
        try:
            engine = cls(writer, _connect(name))
        except BaseException:
            writer.close()
            raise
        engine._path = name
        return engine

    def disk_full(self, exc: BaseException) -> bool:
        if isinstance(exc, sqlite3.Error):
            code = getattr(exc, "sqlite_errorcode", None)
            return code is not None and code & 0xFF == sqlite3.SQLITE_FULL
        return super().disk_full(exc)

    def private(self) -> list[str]:
        if self._path is None:
            return []
        looser = []
        for file in _files(self._path):
            try:
                mode = os.stat(file).st_mode & 0o777
                if mode & ~PRIVATE:
                    os.chmod(file, PRIVATE)
                    looser.append(file)
            except FileNotFoundError:
                continue
        return looser

    @classmethod
    def copy_of(cls, path: str | os.PathLike[str]) -> SqliteEngine:
        """An in-memory copy of the file at `path`, which is only read, as `backup_to` wrote it: neither
        migrated nor its catalogue synced (opening it as a service's database made the WAL files, checked
        the schema and compared the catalogue: most of the demo's start).

        Raises:
            sqlite3.Error: the file is missing, not a database, or of another schema version.
        """
        uri = f"{Path(path).resolve().as_uri()}?mode=ro"
        source = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            version = source.execute("PRAGMA user_version").fetchone()[0]
            if version != schema.SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"schema version {version}, not {schema.SCHEMA_VERSION}")
            copy = cls(_connect(MEMORY))
            source.backup(copy._conn)
        finally:
            source.close()
        return copy

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        with self._read_lock:
            self._reader.close()

    @contextmanager
    def write(self, lock_group: int | None = None) -> Iterator[Conn]:
        """One ``BEGIN IMMEDIATE`` transaction under the lock, which every transaction takes: groups are
        written one after the other whatever `lock_group` says."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def write_if_free(self) -> Iterator[Conn | None]:
        if not self._lock.acquire(blocking=False):
            yield None
            return
        try:
            with self.write() as conn:
                yield conn
        finally:
            self._lock.release()

    @contextmanager
    def read(self, snapshot: bool = True) -> Iterator[Conn]:
        with self._read_lock:
            conn = self._reader
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    @contextmanager
    def setup(self) -> Iterator[None]:
        with self._lock:
            yield

    def schema_version(self, conn: Conn) -> int:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def set_schema_version(self, conn: Conn, version: int) -> None:
        conn.execute(f"PRAGMA user_version = {int(version)}")

    def statements(self, script: str) -> list[str]:
        return schema.statements(script)

    def free_now(self) -> bool:
        # The reads' lock only: the call's quota count never waits for a write (`Store.charge`).
        if not self._read_lock.acquire(blocking=False):
            return False
        self._read_lock.release()
        return True

    @property
    def connection(self) -> Conn:
        return self._conn

    def copy(self) -> SqliteEngine:
        copy = SqliteEngine(_connect(MEMORY))
        with self._lock:
            self._conn.backup(copy._conn)
        return copy

    def backup_to(self, target: str | os.PathLike[str] | Conn) -> None:
        if isinstance(target, sqlite3.Connection):
            with self._lock:
                self._conn.backup(target)
            return
        if not isinstance(target, str | os.PathLike):
            raise TypeError(f"a SQLite database is copied to a file or a sqlite3 connection, not {target!r}")
        _make_private(os.fspath(target))
        file = sqlite3.connect(target)
        try:
            with self._lock:
                self._conn.backup(file)
        finally:
            file.close()

    def restore_from(self, path: str | os.PathLike[str]) -> None:
        source = open_backup(path)
        try:
            with self._lock, self._read_lock:
                source.backup(self._conn)
        finally:
            source.close()
