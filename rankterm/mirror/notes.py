"""Notes: small JSON values kept beside the group in the mirror file under a key (a quota ledger, the panels a
Service screen last showed), shared by every seat of the profile.

A note of megabytes (the story of a big group) is read in pieces (`get_in_pieces`, `items`): SQLite takes the
text apart, which it does without holding Python's GIL, and each piece is parsed on its own. One `json.loads`
of 4 MB holds the GIL for a quarter of a second, and the app's event loop with it, though it runs in a
worker thread."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from rankterm.mirror.file import MirrorFile, dumps

PIECE = 64 * 1024
"""A note's object or array longer than this (characters of JSON) is read item by item (`get_in_pieces`)."""
BATCH = 200
"""Rows taken from SQLite at a time while a note is read in pieces (the GIL is let go between batches)."""
_SCALARS = {"true": True, "false": False, "null": None}


class Notes:
    """The notes of one mirror file."""

    def __init__(self, file: MirrorFile) -> None:
        self._file = file

    def get(self, key: str) -> Any:
        """A small JSON value kept beside the group under `key` (None when absent), e.g. a quota ledger."""
        row = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT value FROM meta WHERE key = ?", (f"note:{key}",)
            ).fetchone(),
            None,
        )
        try:
            return json.loads(row[0]) if row else None
        except ValueError:
            return None

    def set(self, key: str, value: Any) -> None:
        """Keep a small JSON value under `key` (see `get`)."""

        def write() -> None:
            self._file.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"note:{key}", dumps(value)))

        self._file.guard(write, None)

    def get_in_pieces(self, key: str) -> Any:
        """The value `get` gives, read so that no single parse holds the GIL long: an object or an array
        longer than `PIECE` is taken apart by SQLite and its items parsed one by one (the same way down)."""
        name = f"note:{key}"

        def read() -> Any:
            head = self._file.db.execute(
                "SELECT json_valid(value), json_type(value), length(value) FROM meta WHERE key = ?", (name,)
            ).fetchone()
            if head is None or not head[0]:
                return None
            if head[1] not in ("object", "array") or head[2] <= PIECE:
                return self.get(key)
            rows = self._file.db.execute(
                "SELECT e.key, e.type, e.value FROM meta, json_each(meta.value) AS e WHERE meta.key = ?",
                (name,),
            )
            return _assemble(self._file.db, head[1], rows)

        return self._file.guard(read, None)

    def items(self, key: str, field: str, *, at: int | None = None, at_least: Any = None) -> list[Any] | None:
        """The items of the array under `field` of an object note, each parsed on its own; with `at`, only
        the items (arrays) whose element `at` is at least `at_least`, chosen by SQLite. None when the note is
        missing or not JSON, or its field is not an array."""
        if not field.isidentifier():
            raise ValueError(f"{field!r}: a note's field is a plain name")
        name = f"note:{key}"
        where, args = "", [name]
        if at is not None:
            where, args = f" AND json_extract(e.value, '$[{int(at)}]') >= ?", [name, at_least]

        def read() -> list[Any] | None:
            valid = self._file.db.execute(
                "SELECT json_valid(value) AND json_type(value, '$.' || ?) = 'array' FROM meta WHERE key = ?",
                (field, name),
            ).fetchone()
            if valid is None or not valid[0]:
                return None
            rows = self._file.db.execute(
                f"SELECT e.type, e.value FROM meta, json_each(meta.value, '$.{field}') AS e"
                f" WHERE meta.key = ?{where}",
                args,
            )
            out: list[Any] = []
            while batch := rows.fetchmany(BATCH):
                out.extend(_parsed(kind, value) for kind, value in batch)
            return out

        return self._file.guard(read, None)

    def field(self, key: str, field: str) -> Any:
        """One field of an object note (None when missing), parsed alone: SQLite finds it in the text."""
        if not field.isidentifier():
            raise ValueError(f"{field!r}: a note's field is a plain name")
        row = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT json_type(value, '$.' || ?), json_extract(value, '$.' || ?) FROM meta"
                " WHERE key = ? AND json_valid(value)",
                (field, field, f"note:{key}"),
            ).fetchone(),
            None,
        )
        return None if row is None or row[0] is None else _parsed(row[0], row[1])


def _parsed(kind: str, value: Any) -> Any:
    """An item SQLite's JSON functions gave as its type and value, as `json.loads` would give it."""
    if kind in ("object", "array"):
        return json.loads(value)
    return _SCALARS.get(kind, value)


def _assemble(db: sqlite3.Connection, kind: str, rows: sqlite3.Cursor) -> Any:
    """An object or an array from the rows of `json_each` over it (key, type, value), a long item taken
    apart the same way."""
    out: Any = {} if kind == "object" else []
    while batch := rows.fetchmany(BATCH):
        for label, item_kind, value in batch:
            if item_kind in ("object", "array") and len(value) > PIECE:
                item = _assemble(
                    db, item_kind, db.execute("SELECT key, type, value FROM json_each(?)", (value,))
                )
            else:
                item = _parsed(item_kind, value)
            if kind == "object":
                out[label] = item
            else:
                out.append(item)
    return out
