"""The outbox's SQLite file: its schema, the states an entry is stored in, the migration of older files, and
error items as stored (JSON).

The schema has a version (`PRAGMA user_version`); older files are migrated when opened (version 1 kept a
`reason` text: it becomes one error item with an empty code; version 2 had no `kind`: every entry is a
match; version 3 had no `twin`: its matches are checked when sent). rankterm/outbox/outbox.py is the queue that uses it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from enum import StrEnum

from rankterm.wire.errors import ErrorItem

SCHEMA_VERSION = 4


class State(StrEnum):
    """An entry's `state` column (a match's or a ghost's); whether it is in doubt is a column apart."""

    PENDING = "pending"
    SENT = "sent"
    REJECTED = "rejected"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'match',
    external_id TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    in_doubt INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    errors TEXT NOT NULL DEFAULT '[]',
    match_id TEXT NOT NULL DEFAULT '',
    twin TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (scope, external_id)
);
"""


def _migrate(db: sqlite3.Connection) -> None:
    """Bring an outbox file to `SCHEMA_VERSION`. Version 1 had a `reason` text column and no `errors`:
    each non-empty reason becomes one error item with an empty code (the column stays, unused). Version 2
    had no `kind` (ghost entries came with 3): every entry it holds is a match. Version 3 had no `twin`
    (rankterm/outbox/twins.py): its unsent matches are checked for a twin when sent."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version >= SCHEMA_VERSION:
        return
    columns = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
    with db:
        db.execute("BEGIN IMMEDIATE")
        if "errors" not in columns:
            db.execute("ALTER TABLE entries ADD COLUMN errors TEXT NOT NULL DEFAULT '[]'")
        if "match_id" not in columns:
            db.execute("ALTER TABLE entries ADD COLUMN match_id TEXT NOT NULL DEFAULT ''")
        if "kind" not in columns:
            db.execute("ALTER TABLE entries ADD COLUMN kind TEXT NOT NULL DEFAULT 'match'")
        if "twin" not in columns:
            db.execute("ALTER TABLE entries ADD COLUMN twin TEXT NOT NULL DEFAULT ''")
        if "reason" in columns:
            rows = db.execute("SELECT seq, reason FROM entries WHERE reason != ''").fetchall()
            db.executemany(
                "UPDATE entries SET errors = ?, reason = '' WHERE seq = ?",
                [(_dump_errors([ErrorItem("", reason)]), seq) for seq, reason in rows],
            )
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _dump_errors(errors: Iterable[ErrorItem]) -> str:
    return json.dumps([{"code": e.code, "message": e.message} for e in errors])


def _load_errors(text: str) -> tuple[ErrorItem, ...]:
    try:
        raw = json.loads(text or "[]")
    except ValueError:
        return (ErrorItem("", text),)
    if not isinstance(raw, list):
        return ()
    return tuple(
        ErrorItem(str(e.get("code", "")), str(e.get("message", ""))) for e in raw if isinstance(e, dict)
    )
