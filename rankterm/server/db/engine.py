"""`Engine`: one database of the service, SQLite (`sqlite`) or PostgreSQL (`pg`), behind one interface.

An engine owns everything that differs between the two: its connections and how a transaction is opened
and locked, its SQL dialect (`conn.Dialect`), how the migrations of `schema` are applied and the version
kept, and copies of the database. The `Store` and the modules by role talk to this interface only and never
ask which database it is; `engines.engine_type` is the one place that tells them apart, from the name of
the database.
"""

from __future__ import annotations

import errno
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import ClassVar

from rankterm.server.db import schema
from rankterm.server.db.conn import Conn


class Engine(ABC):
    """A database of the service: transactions, setup and migrations, copies.

    Every method is safe to call from several threads at once.
    """

    name: ClassVar[str]
    """The engine's name, as said to a person (``"sqlite"``, ``"postgresql"``)."""
    many_processes: ClassVar[bool]
    """Whether several processes may serve one database at once (``rankterm serve --workers``)."""
    errors: ClassVar[tuple[type[Exception], ...]]
    """The exceptions of the database itself (a file that is no database, a server that cannot be reached)."""

    @classmethod
    @abstractmethod
    def open(cls, name: str) -> Engine:
        """Connect to the database, creating a SQLite file when there is none yet (not migrated yet).

        Args:
            name: the database: a SQLite file or ``":memory:"``, or a PostgreSQL URL.

        Returns:
            The engine, open.

        Raises:
            OSError: the file's folder cannot be made.
            Exception: one of `errors` when the database cannot be opened.
        """

    @abstractmethod
    def close(self) -> None:
        """Close every connection (idempotent)."""

    @abstractmethod
    def write(self, lock_group: int | None = None) -> AbstractContextManager[Conn]:
        """One write transaction, committed at the end of the block or rolled back whole on any error.

        Args:
            lock_group: a group whose writes must run one after the other (matches, games): its lock is
                taken first. Writes of other groups may go on meanwhile where the engine allows it.

        Returns:
            A context manager giving the connection inside the transaction.
        """

    @contextmanager
    def write_if_free(self) -> Iterator[Conn | None]:
        """`write` when it can begin at once; else the block gets None (and nothing is written).

        Returns:
            A context manager giving the connection in a write transaction, or None when another write
            holds the database (only an engine that writes one transaction at a time says so).
        """
        with self.write() as conn:
            yield conn

    @abstractmethod
    def read(self, snapshot: bool = True) -> AbstractContextManager[Conn]:
        """One read: a consistent snapshot of the database for the whole block.

        Args:
            snapshot: False for a read of one statement (already its own snapshot), which the engine may
                then run without a transaction.

        Returns:
            A context manager giving the connection.
        """

    @abstractmethod
    def setup(self) -> AbstractContextManager[None]:
        """Hold the database for the one-time setup (`migrate`, the catalogue, the signing key), so that
        processes opening it together set it up one after the other.

        Returns:
            A context manager holding the database for the block.
        """

    @abstractmethod
    def schema_version(self, conn: Conn) -> int:
        """The schema version the database is at (0: a new database).

        Args:
            conn: a connection of this engine.

        Returns:
            The version.
        """

    @abstractmethod
    def set_schema_version(self, conn: Conn, version: int) -> None:
        """Say the database is at schema `version` (inside the caller's transaction).

        Args:
            conn: a connection of this engine, in a write transaction.
            version: the version reached.
        """

    @abstractmethod
    def statements(self, script: str) -> list[str]:
        """The statements of a migration script of `schema` (written in SQLite's types), in this dialect.

        Args:
            script: statements separated by semicolons.

        Returns:
            The statements to run, one by one.
        """

    def migrate(self, notice: Callable[[str], None] | None = None, work: schema.Work | None = None) -> int:
        """Bring the database up to `schema.SCHEMA_VERSION`, one transaction per migration.

        Args:
            notice: told, once, before an existing database is upgraded (`schema.upgrade_notice`).
            work: the work of the migrations SQL alone cannot do, by name (`schema.Migration.then`);
                every one a pending migration names must be there.

        Returns:
            The version reached.

        Raises:
            schema.SchemaTooNew: the database was written by a newer rankterm.
            LookupError: a pending migration names work that was not handed in (nothing is migrated).
        """
        with self.read() as conn:
            version = self.schema_version(conn)
        if version > schema.SCHEMA_VERSION:
            raise schema.SchemaTooNew(
                f"database schema version {version} is newer than this rankterm ({schema.SCHEMA_VERSION})"
            )
        pending = [schema.parts(m) for m in schema.MIGRATIONS[version:]]
        missing = sorted({then for _, then in pending if then is not None and then not in (work or {})})
        if missing:
            raise LookupError(
                f"the database's migrations need work that was not handed in: {', '.join(missing)}"
            )
        if notice is not None and (text := schema.upgrade_notice(version)) is not None:
            notice(text)
        for script, then in pending:
            with self.write() as conn:
                for statement in self.statements(script):
                    conn.execute(statement)
                if then is not None:
                    assert work is not None
                    work[then](conn)
                version += 1
                self.set_schema_version(conn, version)
        return version

    def disk_full(self, exc: BaseException) -> bool:
        """Whether `exc` says the database's disk (or its space) is full.

        Args:
            exc: an exception raised by this engine's connections.

        Returns:
            True for a full disk, in any of the ways the database says it.
        """
        return isinstance(exc, OSError) and exc.errno == errno.ENOSPC

    def private(self) -> list[str]:
        """Make the database's files readable and writable by their owner only.

        Returns:
            The files that were open to others before (none for a database that is not a file).
        """
        return []

    def free_now(self) -> bool:
        """Whether a short read may run on the caller's thread at once: True only for an engine of one
        connection (where a worker thread adds no concurrency) that nobody is using at this moment."""
        return False

    @property
    def connection(self) -> Conn | None:
        """The engine's one connection when it has exactly one (tests and benchmarks look inside), else None."""
        return None

    @abstractmethod
    def copy(self) -> Engine:
        """An independent copy of the whole database, in memory.

        Returns:
            A new engine holding the copy.

        Raises:
            TypeError: the engine keeps no copies of its databases.
        """

    @abstractmethod
    def backup_to(self, target: str | os.PathLike[str] | Conn) -> None:
        """Copy the whole database into a file (made or replaced) or an open connection of the same kind.

        Args:
            target: the file, or the connection.

        Raises:
            TypeError: the target is a connection the engine cannot copy into.
            Exception: one of `engines.copy_errors()` when the file cannot be written.
        """

    @abstractmethod
    def restore_from(self, path: str | os.PathLike[str]) -> None:
        """Replace the whole database with the backup file at `path` (`backup_to` wrote it, on either
        engine), in one go: a reader sees the database before or after, never between.

        Args:
            path: the backup file, a SQLite database of this schema version.

        Raises:
            copying.NotABackup: the file is missing, no backup, or of another schema version.
        """
