"""The store on PostgreSQL: a psycopg 3 connection pool behind the same `Store`, through a small dialect seam.

Why psycopg 3 + psycopg_pool and not SQLAlchemy Core: every module of the service (`players`, `games`,
`matches`, `rankings`, `reads`, `quota`) is written as plain SQL on a DB-API connection (``conn.execute(sql,
params)``, ``?`` placeholders, ``fetchone``/``fetchall``, ``lastrowid``), and that SQL is already nearly
portable. Rewriting ~80 statements as Core expressions would touch every module and slow the SQLite path
(the default) for nothing. Instead `PgConnection` wraps a psycopg connection with the few differences
between the two dialects, translated once per statement text and cached:

- ``?`` placeholders become ``%s`` (a literal ``%`` is doubled);
- ``instr(a, b)`` becomes ``strpos(a, b)``;
- an ``INSERT`` into a table with a generated ``id`` gets ``RETURNING id``, read back as ``lastrowid``;
- PostgreSQL text cannot hold NUL, SQLite's can (names and notes are kept verbatim, NUL included): a text
  parameter holding NUL or `MARK` is escaped (NUL -> MARK "0", MARK -> MARK "1") and every text value read
  back holding MARK is unescaped, so both engines answer the same bytes.

The migrations are `schema.MIGRATIONS`, the very same texts as for SQLite, with the types mapped by
`ddl` (``INTEGER PRIMARY KEY`` -> identity, ``BLOB`` -> ``bytea``, ``REAL`` -> ``double precision``,
``TEXT`` -> ``text COLLATE "C"`` so names sort byte-wise as in SQLite); the version lives in the table
``schema_version``.

Concurrency (several workers, several machines), by PostgreSQL itself, not by a process-wide lock:

- a transaction that records matches or creates a game first takes ``pg_advisory_xact_lock(LOCK_GROUP,
  group_id)``. Every match enters its group's main subset, so a per-subset lock would in fact always
  include this one: a per-group lock is the per-subset lock of the main subset, and it serializes the
  rater of a group (rating history in match order, match numbers without gaps) while groups go on in
  parallel. Under it, READ COMMITTED statements see every match committed before, so M003 is judged on
  fresh data; the unique index on (group_id, external_id) holds in any case;
- quota counters are bumped with ``INSERT … ON CONFLICT DO UPDATE … RETURNING count`` and checked after,
  so two workers never both slip under a limit (`quota.charge`);
- migrations, the catalogue and the token signing key are set up under a session advisory lock, the key
  inserted with ``ON CONFLICT DO NOTHING``: every worker reads the one key from the database;
- reads run in one REPEATABLE READ, READ ONLY transaction: one snapshot per request, as SQLite's WAL gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg
from psycopg.types.string import TextLoader
from psycopg_pool import ConnectionPool

from rankterm.server import schema
from rankterm.server.conn import PG_MARK

LOCK_SETUP = 7300
"""Advisory lock class of the one-time setup (migrations, catalogue, signing key)."""
LOCK_GROUP = 7301
"""Advisory lock class of a group's writes that must run in order (matches, games)."""

_RETURNING_ID = re.compile(r"^\s*INSERT INTO (groups|clients|games|matches|subsets)\b", re.IGNORECASE)


MARK = PG_MARK
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


def is_url(path: str) -> bool:
    """Whether `--db` names a PostgreSQL database rather than a SQLite file."""
    return path.startswith(("postgresql://", "postgres://"))


@lru_cache(maxsize=512)
def translate(sql: str) -> tuple[str, bool]:
    """(the statement in PostgreSQL's dialect, whether it returns the new row's id)."""
    out = sql.replace("%", "%%").replace("?", "%s").replace("instr(", "strpos(")
    returning = bool(_RETURNING_ID.match(out)) and "RETURNING" not in out.upper()
    if returning:
        out += " RETURNING id"
    return out, returning


def ddl(script: str) -> str:
    """A migration written for SQLite, in PostgreSQL's types (see the module docstring)."""
    out = script.replace("INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
    out = re.sub(r"\)\s*WITHOUT ROWID", ")", out)
    out = re.sub(r"\bINTEGER\b", "BIGINT", out)
    out = re.sub(r"\bBLOB\b", "BYTEA", out)
    out = re.sub(r"\bREAL\b", "DOUBLE PRECISION", out)
    return re.sub(r"\bTEXT\b", 'TEXT COLLATE "C"', out)


class Result:
    """A statement's rows (iterable, `fetchone`, `fetchall`) and, for an insert, `lastrowid`."""

    __slots__ = ("_cursor", "lastrowid")

    def __init__(self, cursor: psycopg.Cursor[Any], lastrowid: int | None) -> None:
        self._cursor = cursor
        self.lastrowid = lastrowid

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor)


class PgConnection:
    """A psycopg connection that speaks the SQL the service's modules are written in (sqlite3's API)."""

    __slots__ = ("raw",)

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        text, returning = translate(sql)
        cursor = self.raw.execute(text, tuple(map(_param, params)))
        if returning:
            return Result(cursor, int(cursor.fetchone()[0]))  # type: ignore[index]
        return Result(cursor, None)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        text, _ = translate(sql)
        with self.raw.cursor() as cursor:
            cursor.executemany(text, [tuple(map(_param, row)) for row in rows])


class PgEngine:
    """A pool of connections on one PostgreSQL database, with write and read transactions."""

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

    def close(self) -> None:
        self.pool.close()

    @contextmanager
    def write(self, lock_group: int | None = None) -> Iterator[PgConnection]:
        """One READ COMMITTED transaction, committed at the end or rolled back whole on any error.

        With `lock_group`, the group's advisory lock is taken first (see the module docstring).
        """
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
    def read(self, snapshot: bool = True) -> Iterator[PgConnection]:
        """One REPEATABLE READ, READ ONLY transaction: a consistent snapshot for the whole read.

        Without `snapshot` (a read of one statement, already its own snapshot) no transaction is opened:
        two round trips fewer.
        """
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
    def setup_lock(self) -> Iterator[PgConnection]:
        """A connection holding the setup lock (session level) for the block: one worker sets up at a time."""
        with self.pool.connection() as raw:
            raw.execute("SELECT pg_advisory_lock(%s, 0)", (LOCK_SETUP,))
            try:
                yield PgConnection(raw)
            finally:
                raw.execute("SELECT pg_advisory_unlock(%s, 0)", (LOCK_SETUP,))

    def migrate(self, notice: Callable[[str], None] | None = None) -> int:
        """Bring the database up to `schema.SCHEMA_VERSION`, one transaction per migration; the version.

        The caller holds the setup lock, so workers starting together migrate once. `notice` is told, once,
        before an existing database is upgraded (`schema.upgrade_notice`).
        """
        with self.pool.connection() as raw:
            raw.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = raw.execute("SELECT max(version) FROM schema_version").fetchone()
            version = int(row[0]) if row and row[0] is not None else 0
            if version > schema.SCHEMA_VERSION:
                raise schema.SchemaTooNew(
                    f"database schema version {version} is newer than this rankterm ({schema.SCHEMA_VERSION})"
                )
            if notice is not None and (text := schema.upgrade_notice(version)) is not None:
                notice(text)
            while version < schema.SCHEMA_VERSION:
                with raw.transaction():
                    script, then = schema.parts(schema.MIGRATIONS[version])
                    for statement in schema.statements(ddl(script)):
                        raw.execute(statement)
                    if then is not None:
                        then(PgConnection(raw))
                    version += 1
                    raw.execute("DELETE FROM schema_version")
                    raw.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
            return version
