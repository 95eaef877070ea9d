"""The list cache: the group's games, players and subsets as the service last listed them, each replaced
whole when read, with when it was read and a stale mark a write from this seat sets. `players` also keeps the
ghosts this seat made offline (local ids) until the outbox sends them."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from rankterm.mirror.file import MirrorFile, dumps

LISTS = ("games", "players", "subsets")


class ListCache:
    """The lists `games`, `players`, `subsets` (and the time of each sync, `matches` too) in the mirror file."""

    def __init__(self, file: MirrorFile) -> None:
        self._file = file

    # ------------------------------------------------------------------ lists: games, players, subsets

    def synced_at(self, name: str) -> float | None:
        """When list `name` was last read from the service (clock seconds), None if never."""
        row = self._file.guard(
            lambda: self._file.db.execute("SELECT synced_at FROM lists WHERE name = ?", (name,)).fetchone(),
            None,
        )
        return row[0] if row else None

    def is_fresh(self, name: str, max_age: float) -> bool:
        """True when list `name` was read less than `max_age` seconds ago and no write has made it stale."""
        row = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT synced_at, stale FROM lists WHERE name = ?", (name,)
            ).fetchone(),
            None,
        )
        return bool(row) and not row[1] and self._file.clock() - row[0] < max_age

    def is_stale(self, name: str) -> bool:
        """True when a write from this seat marked list `name` stale and no read has cleared the mark since."""
        row = self._file.guard(
            lambda: self._file.db.execute("SELECT stale FROM lists WHERE name = ?", (name,)).fetchone(), None
        )
        return bool(row and row[0])

    def items(self, name: str) -> list[Any] | None:
        """List `name` in the order the service gave it (wire-form JSON), None if it was never read."""

        def read() -> list[Any] | None:
            if self._file.db.execute("SELECT 1 FROM lists WHERE name = ?", (name,)).fetchone() is None:
                return None
            rows = self._file.db.execute("SELECT body FROM items WHERE list = ? ORDER BY pos", (name,))
            return [json.loads(body) for (body,) in rows]

        return self._file.guard(read, None)

    def replace(
        self, name: str, items: Sequence[tuple[str, Any]], *, keep: Callable[[str], bool] | None = None
    ) -> list[Any]:
        """Put list `name` as just read: (id, wire-form item) pairs in order; marks it synced now.

        `keep`: held items whose id it accepts stay, after the new ones (ghost players this seat made that
        the service does not have yet: `ids.is_local_id`); returned (wire form), so that the caller need not
        read the whole list back to find them."""

        def write() -> list[Any]:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                kept: list[tuple[str, Any]] = []
                if keep is not None:
                    rows = self._file.db.execute(
                        "SELECT id, body FROM items WHERE list = ? ORDER BY pos", (name,)
                    )
                    given = {key for key, _ in items}
                    kept = [(key, json.loads(body)) for key, body in rows if keep(key) and key not in given]
                self._file.db.execute("DELETE FROM items WHERE list = ?", (name,))
                self._file.db.executemany(
                    "INSERT OR REPLACE INTO items (list, id, pos, body) VALUES (?, ?, ?, ?)",
                    [(name, key, pos, dumps(body)) for pos, (key, body) in enumerate([*items, *kept])],
                )
                self._file.db.execute(
                    "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES (?, ?, 0)",
                    (name, self._file.clock()),
                )
            return [body for _, body in kept]

        return self._file.guard(write, [])

    def add_item(self, name: str, key: str, item: Any) -> None:
        """Put one item just made by this seat at the end of list `name` (only if the list is held)."""

        def write() -> None:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                if self._file.db.execute("SELECT 1 FROM lists WHERE name = ?", (name,)).fetchone() is None:
                    return
                self._file.db.execute(
                    "INSERT OR REPLACE INTO items (list, id, pos, body) VALUES (?, ?,"
                    " (SELECT coalesce(max(pos), -1) + 1 FROM items WHERE list = ?), ?)",
                    (name, key, name, dumps(item)),
                )

        self._file.guard(write, None)

    def remove_item(self, name: str, key: str) -> None:
        """Take one item out of list `name` (a local ghost player the service has now made, or that was dropped)."""

        def write() -> None:
            self._file.db.execute("DELETE FROM items WHERE list = ? AND id = ?", (name, key))

        self._file.guard(write, None)

    def mark_stale(self, *names: str) -> None:
        """The next read of these lists (all when none is named) asks the service; what is held stays."""
        chosen = list(names or LISTS)

        def write() -> None:
            self._file.db.executemany("UPDATE lists SET stale = 1 WHERE name = ?", [(n,) for n in chosen])

        self._file.guard(write, None)
