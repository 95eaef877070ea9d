"""The outbox's SQLite file: its migrations, the states an entry is stored in, and error items as stored (JSON).

`OUTBOX` opens it through `rankterm.localdb` (owner-only, synced in full, its pages checked on open); the
queue that uses it is `rankterm.outbox.outbox.Outbox`. See docs/design/local-files.md.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from enum import StrEnum

from rankterm.localdb import LocalDb, Step
from rankterm.wire.errors import ErrorItem


class State(StrEnum):
    """An entry's `state` column (a match's or a ghost's); whether it is in doubt is a column apart."""

    PENDING = "pending"
    SENT = "sent"
    REJECTED = "rejected"


_V1 = """
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL,
    external_id TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    in_doubt INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (scope, external_id)
)
"""
"""The first outbox, which kept no version (its files read 0): `IF NOT EXISTS` leaves such a file's table be."""


def _errors_as_items(db: sqlite3.Connection) -> None:
    """Version 2: the service's errors as items. Each non-empty `reason` of version 1 becomes one error item
    with an empty code (the column stays, unused)."""
    db.execute("ALTER TABLE entries ADD COLUMN errors TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE entries ADD COLUMN match_id TEXT NOT NULL DEFAULT ''")
    rows = db.execute("SELECT seq, reason FROM entries WHERE reason != ''").fetchall()
    db.executemany(
        "UPDATE entries SET errors = ?, reason = '' WHERE seq = ?",
        [(dump_errors([ErrorItem("", reason)]), seq) for seq, reason in rows],
    )


MIGRATIONS: tuple[Step, ...] = (
    _V1,
    _errors_as_items,
    # Version 3: ghost players queued beside the matches; every entry of an older file is a match.
    "ALTER TABLE entries ADD COLUMN kind TEXT NOT NULL DEFAULT 'match'",
    # Version 4: the twin check (rankterm/outbox/twins.py); an older file's unsent matches are checked when sent.
    "ALTER TABLE entries ADD COLUMN twin TEXT NOT NULL DEFAULT ''",
    # Version 5: the guest seat that queued each entry (`Outbox.seat`); '' for the host's own app and older files.
    "ALTER TABLE entries ADD COLUMN seat TEXT NOT NULL DEFAULT ''",
    # Version 6: the matches a person said an entry is not, answering "send anyway" (twins.NotTwins).
    "ALTER TABLE entries ADD COLUMN not_twins TEXT NOT NULL DEFAULT ''",
    # Version 7: the open outbox (one process's) that queued each entry (`Outbox.origin`); '' for older files.
    "ALTER TABLE entries ADD COLUMN origin TEXT NOT NULL DEFAULT ''",
)
"""Step ``i`` takes an outbox file from version i to i + 1. Never edit a step that has shipped: append one."""

SCHEMA_VERSION = len(MIGRATIONS)

OUTBOX = LocalDb("the outbox", MIGRATIONS, synchronous="FULL", check=True)
"""The outbox file: every write synced (a queued match survives a power cut), checked whole on open."""


def dump_errors(errors: Iterable[ErrorItem]) -> str:
    """Error items as the `errors` column keeps them."""
    return json.dumps([{"code": e.code, "message": e.message} for e in errors])


def load_errors(text: str) -> tuple[ErrorItem, ...]:
    """The `errors` column read back (text that is not JSON: one item with an empty code)."""
    try:
        raw = json.loads(text or "[]")
    except ValueError:
        return (ErrorItem("", text),)
    if not isinstance(raw, list):
        return ()
    return tuple(
        ErrorItem(str(e.get("code", "")), str(e.get("message", ""))) for e in raw if isinstance(e, dict)
    )
