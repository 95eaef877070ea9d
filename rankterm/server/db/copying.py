"""Row-by-row copies between a service database and a SQLite file of the same schema: how a PostgreSQL
database is backed up to a file and restored from one (a SQLite database copies itself with SQLite's
online backup API instead).

The backup file is a SQLite database of the service, whichever engine wrote it, so it can be served,
inspected or restored into either engine. See docs/design/server.md.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from pathlib import Path

from rankterm.server.db import schema
from rankterm.server.db.conn import Conn

TABLES: tuple[str, ...] = (
    "meta",
    "groups",
    "clients",
    "players",
    "games",
    "matches",
    "factions",
    "faction_players",
    "subsets",
    "subset_matches",
    "rating_current",
    "rating_history",
    "rating_snapshot",
    "quota_counters",
    "quota_limits",
    "group_quota_limits",
)
"""Every table of the schema, parents before children (the order rows are copied in)."""

IDENTITIES: tuple[str, ...] = ("groups", "clients", "games", "matches", "subsets")
"""The tables whose ``id`` the database numbers (``INTEGER PRIMARY KEY``)."""

BATCH = 5000
"""Rows read and written at a time."""


class NotABackup(ValueError):
    """The file is not a backup this rankterm can restore (one sentence says why)."""


def open_backup(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """The backup file at `path`, opened read-only and checked: a service database of this schema version.

    Raises:
        NotABackup: the file is missing, not a SQLite database, or of another schema version.
    """
    file = Path(path)
    if not file.is_file():
        raise NotABackup(f"{file}: no such file.")
    source = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    try:
        version = source.execute("PRAGMA user_version").fetchone()[0]
        names = {r[0] for r in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        source.close()
        raise NotABackup(f"{file}: not a rankterm backup ({exc}).") from None
    if version != schema.SCHEMA_VERSION or not set(TABLES) <= names:
        source.close()
        if version > schema.SCHEMA_VERSION:
            raise NotABackup(
                f"{file}: written by a newer rankterm (schema {version}, this one reads {schema.SCHEMA_VERSION})."
            )
        if not version:
            raise NotABackup(f"{file}: not a rankterm backup (no service schema in it).")
        raise NotABackup(
            f"{file}: schema {version}, not {schema.SCHEMA_VERSION}: upgrade it first"
            f" (`rankterm serve --db {file} --show-quota` opens and upgrades it)."
        )
    return source


def columns(file: sqlite3.Connection, table: str) -> list[str]:
    """The columns of `table` in the SQLite file, in their order."""
    return [r[1] for r in file.execute(f"PRAGMA table_info({table})")]


def copy_rows(source: Conn | sqlite3.Connection, target: Conn, file: sqlite3.Connection) -> int:
    """Copy every row of every table from `source` into `target` (empty), with the columns the SQLite
    `file` (one of the two) has; the rows copied."""
    copied = 0
    for table in TABLES:
        names = columns(file, table)
        listed = ", ".join(names)
        insert = f"INSERT INTO {table} ({listed}) VALUES ({', '.join('?' * len(names))})"
        rows = iter(source.execute(f"SELECT {listed} FROM {table}"))
        while batch := list(itertools.islice(rows, BATCH)):
            target.executemany(insert, [tuple(r) for r in batch])
            copied += len(batch)
    return copied
