"""The mirror's SQLite file: opened (created 0600), its schema made or upgraded, and started afresh when it
cannot be used (another version, another scope, damage), with one sentence in `problem` instead of a
traceback. Every part of the mirror reads and writes through `MirrorFile.guard`. See docs/design/mirror.md.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rankterm.localdb import move_aside
from rankterm.mirror.stat_sql import (
    ROWS_KEPT_FROM,
    STATS_DROP,
    STATS_FILL,
    STATS_SCHEMA,
    STATS_SHAPE,
    TRIGGERS_DROP,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

SCHEMA_VERSION = 2
UPGRADABLE = frozenset({1})
"""Schemas whose files are kept and brought to `SCHEMA_VERSION` (what they lack is created and filled)."""

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lists (
    name TEXT PRIMARY KEY,
    synced_at REAL NOT NULL,
    stale INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS items (
    list TEXT NOT NULL,
    id TEXT NOT NULL,
    pos INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (list, id)
);
CREATE TABLE IF NOT EXISTS matches (
    number INTEGER PRIMARY KEY,
    game_id TEXT,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_by_game ON matches (game_id, number);
CREATE TABLE IF NOT EXISTS rankings (
    subset TEXT NOT NULL,
    match INTEGER NOT NULL,
    page INTEGER NOT NULL,
    final INTEGER NOT NULL,
    fetched_at REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (subset, match, page)
);
PRAGMA user_version = {SCHEMA_VERSION};
"""

_PASSING = [
    ["SQLITE", code] for code in ("BUSY", "LOCKED", "FULL", "READONLY", "IOERR", "CANTOPEN", "NOMEM", "PERM")
]
"""SQLite failures that pass (another seat holding a lock, a full disk): the mirror is kept as it is."""


def dumps(value: Any) -> str:
    """JSON text as the mirror stores it (compact, UTF-8 kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class MirrorFile:
    """The SQLite file of one group (one service scope): its connection, opened, repaired or started afresh."""

    def __init__(
        self, path: Path | str | None, scope: str = "", *, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.scope = scope
        self.clock = clock
        self.problem: str | None = None
        """One sentence when the file could not be used as it was (replaced, or kept in memory instead)."""
        self.db = self._open()

    # ------------------------------------------------------------------ opening, and starting afresh

    def _connect(self) -> sqlite3.Connection:
        if self.path is None:
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=5)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a cache: losing the last write to a power cut is fine
        return db

    def _init(self, db: sqlite3.Connection) -> sqlite3.Connection:
        db.executescript(_SCHEMA)
        shape = db.execute("SELECT value FROM meta WHERE key = 'stats'").fetchone()
        if shape is not None and shape[0] in ROWS_KEPT_FROM:
            db.executescript(
                f"BEGIN IMMEDIATE; {TRIGGERS_DROP}"
                f" INSERT OR REPLACE INTO meta VALUES ('stats', '{STATS_SHAPE}'); COMMIT;"
            )
        elif shape is None or shape[0] != str(STATS_SHAPE):  # new, older, or of other stats rows: made again
            db.executescript(
                f"BEGIN IMMEDIATE; {STATS_DROP} {STATS_SCHEMA} {STATS_FILL}"
                f" INSERT OR REPLACE INTO meta VALUES ('stats', '{STATS_SHAPE}'); COMMIT;"
            )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('scope', ?)", (self.scope,))
        return db

    def _open(self) -> sqlite3.Connection:
        """The connection: to the file as it is when it can be used, else to a new file, else in memory."""
        if self.path is None:
            return self._init(self._connect())
        try:
            return self._open_file()
        except sqlite3.Error as exc:
            why = f"could not be read ({exc})"
        except OSError as exc:
            why = f"could not be opened ({exc.strerror or exc})"
        try:
            self._discard(why, damaged=True)
            return self._init(self._connect())
        except (sqlite3.Error, OSError):
            path, self.path = self.path, None
            self._say(f"The offline copy of the group {path} {why}; it is kept in memory for this run.")
            return self._init(self._connect())

    def _open_file(self) -> sqlite3.Connection:
        db = self._connect()
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            held_scope = None
            known = version == SCHEMA_VERSION or version in UPGRADABLE
            if tables and known:
                row = db.execute("SELECT value FROM meta WHERE key = 'scope'").fetchone()
                held_scope = row[0] if row else None
        except sqlite3.Error:
            db.close()
            raise
        if tables and (not known or held_scope != self.scope):
            db.close()
            if not known:
                self._discard(f"was written by another version of rankterm (schema {version})")
            else:
                self._discard("holds another service's group")
            db = self._connect()
        return self._init(db)

    def _discard(self, why: str, *, damaged: bool = False) -> None:
        """Make way for an empty mirror: a `damaged` file is moved aside (kept, to be looked at), one of
        another version or scope removed (and its WAL)."""
        assert self.path is not None
        if damaged:
            aside = move_aside(self.path, self.clock)
            self._say(
                f"The offline copy of the group {self.path} {why}: it was moved to {aside} and started afresh"
                " (it is read again from the service)."
            )
            return
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self._say(f"The offline copy of the group {self.path} {why}; it was started afresh.")

    def _say(self, sentence: str) -> None:
        self.problem = sentence
        log.warning("%s", sentence)

    def guard(self, action: Callable[[], T], fallback: T) -> T:
        """Run a read or write; a SQLite failure (a file broken under us) starts an empty mirror instead."""
        try:
            return action()
        except sqlite3.Error as exc:
            if getattr(exc, "sqlite_errorname", "").split("_")[:2] in _PASSING:
                self._say(f"The offline copy of the group {self.path} could not be used just now ({exc}).")
                return fallback
            with contextlib.suppress(sqlite3.Error):  # damaged under us (or its tables gone): start afresh
                self.db.close()
            if self.path is not None:
                with contextlib.suppress(OSError):
                    self._discard(f"was found damaged ({exc})", damaged=True)
            self.db = self._open()
            return fallback

    def close(self) -> None:
        self.db.close()
