"""Which `engine.Engine` a database's name means: the one place that tells SQLite and PostgreSQL apart.

A name starting with one of `URL_SCHEMES` is a PostgreSQL database (`pg`, which needs the optional
psycopg); any other name is a SQLite file, or ``":memory:"`` (`sqlite`).
"""

from __future__ import annotations

import os

from rankterm.server.db.engine import Engine
from rankterm.server.db.sqlite import SqliteEngine

URL_SCHEMES = ("postgresql://", "postgres://")
"""A database named by one of these is on PostgreSQL."""


def engine_type(name: str | os.PathLike[str]) -> type[Engine]:
    """The engine of a database, from its name.

    Args:
        name: ``postgresql://…`` or ``postgres://…``; any other name is a SQLite file (``":memory:"``
            included).

    Returns:
        The engine's class (nothing is opened).

    Raises:
        ImportError: the URL names PostgreSQL and psycopg is not installed (the message says how to
            install it).
    """
    if not os.fspath(name).startswith(URL_SCHEMES):
        return SqliteEngine
    try:
        from rankterm.server.db.pg import PgEngine  # psycopg is needed only for PostgreSQL
    except ImportError as exc:
        raise ImportError(f"PostgreSQL needs psycopg: pip install 'rankterm[postgres]' ({exc})") from exc
    return PgEngine


def shown(name: str | os.PathLike[str]) -> str:
    """A database's name as printed: a URL without its password."""
    text = os.fspath(name)
    if not text.startswith(URL_SCHEMES):
        return text
    scheme, _, rest = text.partition("://")
    who, at, where = rest.rpartition("@")
    if not at:
        return text
    return f"{scheme}://{who.split(':', 1)[0]}@{where}"


def open_engine(name: str | os.PathLike[str]) -> Engine:
    """The database `name` (see `engine_type`), open; not migrated yet (`Engine.migrate`).

    Raises:
        ImportError: see `engine_type`.
        Exception: what `Engine.open` raises.
    """
    path = os.fspath(name)
    return engine_type(path).open(path)


def copy_of_file(path: str | os.PathLike[str]) -> Engine:
    """An in-memory copy of a database file that `Engine.backup_to` wrote, which is only read: neither
    migrated nor set up, as this very code wrote it.

    Raises:
        Exception: one of `copy_errors()` when the file is missing, not a database, or of another schema
            version.
    """
    return SqliteEngine.copy_of(path)


def copy_errors() -> tuple[type[Exception], ...]:
    """What writing a database's copy to a file (`Engine.backup_to`) or reading it back (`copy_of_file`)
    may raise."""
    return (OSError, ValueError, *SqliteEngine.errors)
