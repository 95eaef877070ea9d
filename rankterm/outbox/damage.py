"""An outbox file that cannot be used as it is: the entries a damaged one still holds, carried into the clean
file `rankterm.localdb` started in its place, and the sentences that say so (`Recovered`, `OutboxUnavailable`).

A damaged file is never deleted and its entries are never dropped silently. See docs/design/local-files.md.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from rankterm.wire.errors import RanktermError

WIRED = (
    "scope",
    "kind",
    "external_id",
    "body",
    "state",
    "in_doubt",
    "attempts",
    "errors",
    "match_id",
    "twin",
    "seat",
    "not_twins",
    "origin",
    "created_at",
    "updated_at",
)
"""The columns of an entry carried over (`seq` too, so the order stays)."""


class OutboxUnavailable(RanktermError):
    """The outbox file cannot be opened or written (a read-only or full data dir); the message says which."""


def unavailable(path: Path, detail: str) -> OutboxUnavailable:
    """The outbox at `path` cannot be written (`detail`: what the system or SQLite said), as one sentence."""
    return OutboxUnavailable(f"the outbox {path} cannot be written ({detail})")


@dataclass(frozen=True, slots=True)
class Recovered:
    """What was done with a damaged outbox file."""

    path: Path
    aside: Path
    why: str
    carried: int
    lost: int | None
    """At most how many entries could not be read (entries discarded before count too: the file cannot tell
    them apart); None when it could not tell how many it held."""

    @property
    def sentence(self) -> str:
        """One line: the file moved aside (where), and what of it the clean outbox holds."""
        if self.lost is None:
            kept = "nothing in it could be read"
        elif self.lost:
            kept = f"{self.carried} entries were carried over and up to {self.lost} more could not be read"
        else:
            kept = f"all {self.carried} of its entries were carried over"
        return (
            f"The outbox {self.path} could not be read ({self.why}): it was moved to {self.aside} and a clean"
            f" outbox started; {kept}."
        )


def readable_rows(aside: Path) -> tuple[list[dict[str, object]], int | None]:
    """The entries of a damaged file that can still be read (each a dict of `WIRED` and `seq`), and at most
    how many could not (None: unknown). Read entry by entry, by its number (`seq`, up to the last one given), so a
    broken page loses only the entries it held."""
    try:
        db = sqlite3.connect(f"file:{aside}?mode=ro", uri=True)
        # a truncated file is shorter than its header says: read the pages it has instead of refusing it
        db.execute("PRAGMA writable_schema = ON")
    except sqlite3.Error:
        return [], None
    try:
        last = _last_seq(db)
        if last is None:
            return [], None
        rows: list[dict[str, object]] = []
        for seq in range(1, last + 1):
            with contextlib.suppress(sqlite3.Error):  # on a page that is gone
                row = _one(db, "SELECT * FROM entries WHERE seq = ?", (seq,))
                if row is not None:  # None: none there (gone, or discarded before), or not whole
                    rows.append(row)
        return rows, last - len(rows)
    finally:
        db.close()


def _last_seq(db: sqlite3.Connection) -> int | None:
    """The highest entry number the file gave, from its sequence table or its last entry; None when neither
    can be read."""
    for sql in ("SELECT seq FROM sqlite_sequence WHERE name = 'entries'", "SELECT max(seq) FROM entries"):
        try:
            row = db.execute(sql).fetchone()
        except sqlite3.Error:
            continue
        if row is not None and isinstance(row[0], int):
            return row[0]
    return None


def _one(db: sqlite3.Connection, sql: str, args: tuple) -> dict[str, object] | None:
    cursor = db.execute(sql, args)
    names = [d[0] for d in cursor.description]
    values = cursor.fetchone()
    return _usable(dict(zip(names, values, strict=True))) if values is not None else None


def _usable(raw: dict[str, object]) -> dict[str, object] | None:
    """An entry as read, if it can be carried over: its scope, id and JSON body are whole (an older file's
    missing columns take their defaults; its `reason`, one error item)."""
    body = raw.get("body")
    if not all(isinstance(raw.get(k), str) for k in ("scope", "external_id", "body")):
        return None
    try:
        json.loads(str(body))
    except ValueError:
        return None
    row = {k: raw[k] for k in WIRED if k in raw}
    row.setdefault("kind", "match")
    row.setdefault("state", "pending")
    row.setdefault("created_at", time.time())
    row.setdefault("updated_at", row["created_at"])
    reason = raw.get("reason")
    if "errors" not in row and isinstance(reason, str) and reason:
        row["errors"] = json.dumps([{"code": "", "message": reason}])
    row["seq"] = raw.get("seq")
    return row


def carry_over(db: sqlite3.Connection, rows: list[dict[str, object]]) -> None:
    """Write the rows read from a damaged file into the clean one, in one transaction."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        for row in rows:
            names = [k for k in (*WIRED, "seq") if k in row and row[k] is not None]
            db.execute(
                f"INSERT OR IGNORE INTO entries ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                [row[k] for k in names],
            )
