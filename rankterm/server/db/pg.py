"""The service's database on PostgreSQL: a psycopg 3 connection pool, shared by threads, workers and machines.

Why psycopg 3 + psycopg_pool and not SQLAlchemy Core: the service's modules are plain SQL on a DB-API
connection, written once in words both engines know; rewriting them as Core expressions would slow the
SQLite path (the default) for nothing. What PostgreSQL says its own way is said here:

- placeholders: the modules' ``?`` is psycopg's ``%s`` (`placeholders`, once per statement text);
- text: PostgreSQL text cannot hold NUL, SQLite's can (names and notes are kept verbatim, NUL included):
  a text parameter holding NUL or `MARK` is escaped (NUL -> MARK "0", MARK -> MARK "1") and every text
  value read back holding MARK is unescaped, so both engines answer the same strings; names are ordered
  through the escape (`PgDialect.name_order`);
- migrations: the very texts of `schema.MIGRATIONS`, their SQLite types mapped by `ddl` (``INTEGER
  PRIMARY KEY`` -> identity, ``BLOB`` -> ``bytea``, ``REAL`` -> ``double precision``, ``TEXT`` -> ``text
  COLLATE "C"`` so names compare byte-wise as in SQLite); the version lives in the table ``schema_version``.

Concurrency (several workers, several machines), by PostgreSQL itself, not by a process-wide lock:

- a transaction that records matches or creates a game first takes ``pg_advisory_xact_lock(LOCK_GROUP,
  group_id)``. Every match enters its group's main subset, so a per-group lock is the per-subset lock of
  the main subset: it serializes the rater of a group (rating history in match order, match numbers
  without gaps) while groups go on in parallel. Under it, READ COMMITTED statements see every match
  committed before, so M003 is judged on fresh data; the unique index on (group_id, external_id) holds in
  any case;
- quota counters are bumped with ``INSERT … ON CONFLICT DO UPDATE … RETURNING count`` and checked after,
  so two workers never both slip under a limit (`quota.charge`);
- migrations, the catalogue and the token signing key are set up under a session advisory lock, the key
  inserted with ``ON CONFLICT DO NOTHING``: every worker reads the one key from the database;
- reads run in one REPEATABLE READ, READ ONLY transaction: one snapshot per request, as SQLite's WAL gives.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg
from psycopg.types.string import TextLoader
from psycopg_pool import ConnectionPool

from rankterm.server.db import schema
from rankterm.server.db.conn import Conn, Dialect
from rankterm.server.db.engine import Engine

LOCK_SETUP = 7300
"""Advisory lock class of the one-time setup (migrations, catalogue, signing key)."""
LOCK_GROUP = 7301
"""Advisory lock class of a group's writes that must run in order (matches, games)."""

DISK_FULL = "53100"
"""PostgreSQL's SQLSTATE for a full disk (``disk_full``)."""

MARK = "\uf8ff"
"""The escape of text PostgreSQL cannot hold (a private-use character)."""


def escape(text: str) -> str:
    """`text` as stored on PostgreSQL (no NUL); the identity for any text without NUL or MARK."""
    return text.replace(MARK, MARK + "1").replace("\x00", MARK + "0")


def unescape(text: str) -> str:
    """The text `escape` was given."""
    out, i = [], 0
    while (j := text.find(MARK, i)) >= 0:
        out.append(text[i:j])
        out.append("\x00" if text[j + 1 : j + 2] == "0" else MARK)
        i = j + 2
    out.append(text[i:])
    return "".join(out)


def _param(value: Any) -> Any:
    if type(value) is str and ("\x00" in value or MARK in value):
        return escape(value)
    return value


class _Loader(TextLoader):
    """Text as read from PostgreSQL, unescaped (see `escape`)."""

    def load(self, data: Any) -> str:
        text = str(super().load(data))
        return unescape(text) if MARK in text else text


def _configure(raw: psycopg.Connection[Any]) -> None:
    raw.adapters.register_loader("text", _Loader)


class PgDialect(Dialect):
    """PostgreSQL's words for what the modules cannot write once."""

    def name_order(self, text: str) -> str:
        """`text` escaped (`escape`) with NUL's escape written chr(1) chr(1) and chr(1) written chr(1)
        chr(2): ``COLLATE "C"`` then orders the names as Python orders them (the escape put NUL, the
        smallest character, as MARK, larger than most; equality needs nothing, the escape is one-to-one)."""
        return f"replace(replace({text}, chr(1), chr(1) || chr(2)), '{MARK}0', chr(1) || chr(1))"


DIALECT = PgDialect()


@lru_cache(maxsize=512)
def placeholders(sql: str) -> str:
    """A statement written with ``?`` placeholders, in psycopg's (``%s``; a literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


def ddl(script: str) -> str:
    """A migration written in SQLite's types, in PostgreSQL's (see the module docstring)."""
    out = script.replace("INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
    out = re.sub(r"\)\s*WITHOUT ROWID", ")", out)
    out = re.sub(r"\bINTEGER\b", "BIGINT", out)
    out = re.sub(r"\bBLOB\b", "BYTEA", out)
    out = re.sub(r"\bREAL\b", "DOUBLE PRECISION", out)
    return re.sub(r"\bTEXT\b", 'TEXT COLLATE "C"', out)


class PgConnection:
    """A psycopg connection that takes the modules' statements (``?`` placeholders) and names its dialect."""

    __slots__ = ("raw",)

    dialect: Dialect = DIALECT

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self.raw.execute(placeholders(sql), tuple(map(_param, params)))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(placeholders(sql), [tuple(map(_param, row)) for row in rows])


class PgEngine(Engine):
    """A pool of connections on one PostgreSQL database."""

    name = "postgresql"
    many_processes = True
    errors = (psycopg.Error,)

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8) -> None:
        self.url = url
        psycopg.connect(url, connect_timeout=10).close()  # a wrong URL fails now, with the server's reason
        self.pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True},
            configure=_configure,
            open=False,
            name="rankterm",
        )
        self.pool.open(wait=True, timeout=15.0)

    @classmethod
    def open(cls, name: str) -> PgEngine:
        return cls(name)

    def close(self) -> None:
        self.pool.close()

    def disk_full(self, exc: BaseException) -> bool:
        return (isinstance(exc, psycopg.Error) and exc.sqlstate == DISK_FULL) or super().disk_full(exc)

    @contextmanager
    def write(self, lock_group: int | None = None) -> Iterator[Conn]:
        """One READ COMMITTED transaction; with `lock_group`, the group's advisory lock is taken first (see
        the module docstring)."""
        with self.pool.connection() as raw:
            raw.execute("BEGIN")
            try:
                if lock_group is not None:
                    raw.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_GROUP, lock_group))
                yield PgConnection(raw)
            except BaseException:
                raw.execute("ROLLBACK")
                raise
            raw.execute("COMMIT")

    @contextmanager
    def read(self, snapshot: bool = True) -> Iterator[Conn]:
        """One REPEATABLE READ, READ ONLY transaction; without `snapshot`, none at all (two round trips
        fewer)."""
        with self.pool.connection() as raw:
            if not snapshot:
                yield PgConnection(raw)
                return
            raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield PgConnection(raw)
            finally:
                raw.execute("COMMIT")

    @contextmanager
    def setup(self) -> Iterator[None]:
        """The setup lock (session level) held on a connection of its own for the block."""
        with self.pool.connection() as raw:
            raw.execute("SELECT pg_advisory_lock(%s, 0)", (LOCK_SETUP,))
            try:
                yield
            finally:
                raw.execute("SELECT pg_advisory_unlock(%s, 0)", (LOCK_SETUP,))

    def schema_version(self, conn: Conn) -> int:
        if conn.execute("SELECT to_regclass('schema_version')").fetchone()[0] is None:
            return 0
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def set_schema_version(self, conn: Conn, version: int) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        conn.execute("DELETE FROM schema_version")
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    def statements(self, script: str) -> list[str]:
        return schema.statements(ddl(script))

    def copy(self) -> Engine:
        raise TypeError("rankterm copies SQLite databases only; copy a PostgreSQL database with pg_dump")

    def backup_to(self, target: str | os.PathLike[str] | Conn) -> None:
        raise TypeError("rankterm copies SQLite databases only; copy a PostgreSQL database with pg_dump")
