"""The order of a subset's latest standings, kept in Python between the pages of one reading.

Worked out by the database, every page of the latest standings sorts every ranked player to return 25 of
them: paging through 2,000 players sorted them 80 times (~60% of the service's time a page). `LatestOrders`
keeps the order once read, so each further page is a slice of it and a look-up of its 25 rows.

What is kept is checked at every use, in the reading's own transaction: it is served only under the same
subset, latest match number and ``history_version``, the same count of ranked players and the same sums of
their ree and matches played (`fingerprint`: one pass over the subset's ``rating_current`` rows, no sort),
and only when the page's rows, read afresh, carry exactly the kept keys; anything else reads the page the
way the database works it out and drops the entry. As with the snapshots, an order is read only at its
second ask: a lone first page costs what it did.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable

from rankterm.server.db import Conn, in_chunks
from rankterm.server.snapshots import position_key

Key = tuple[int, int, int]
"""(subset id, its latest match number, its history_version)."""

Fingerprint = tuple[int, float, int]
"""(players ranked, the sum of their ree, the sum of their matches played)."""

_FINGERPRINT = (
    "SELECT count(*), coalesce(sum(ree), 0), coalesce(sum(played), 0) FROM rating_current"
    " WHERE subset_id = ? AND bot = 0"
)
_ORDER = "SELECT player, sort_key, ree, played FROM rating_current WHERE subset_id = ? AND bot = 0"
_ROWS = (
    # The page's rows, as the standings statement gives them (`rankings._PAGE`, kind 0).
    "SELECT c.player, c.sort_key, c.ree, c.played, c.best_ree, c.last_date, c.number,"
    " p.ghost, p.username, p.display_name, p.icon FROM rating_current c JOIN players p ON p.id = c.player"
    " WHERE c.subset_id = ? AND c.bot = 0 AND c.player IN ({marks})"
)
_PARTICIPANTS = (
    # The match's listed participants, after it and before it (NULL: new to the subset).
    "SELECT h.player, c.sort_key, h.ree, h.played, b.ree, b.played FROM rating_history h"
    " JOIN rating_current c ON c.subset_id = h.subset_id AND c.player = h.player AND c.bot = 0"
    " LEFT JOIN rating_history b ON b.subset_id = h.subset_id AND b.number = h.prev AND b.player = h.player"
    " WHERE h.subset_id = ? AND h.number = ?"
)


class LatestOrders:
    """The latest standings' order of recent subsets (at most `SIZE`), each read at its second ask."""

    SIZE = 8

    def __init__(self) -> None:
        self._entries: dict[Key, tuple[Fingerprint, list[tuple]]] = {}
        self._asked: dict[Key, Fingerprint] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every order kept or asked for."""
        with self._lock:
            self._entries.clear()
            self._asked.clear()

    def __contains__(self, key: Key) -> bool:
        """Whether an order is kept under `key` (checked only when it is used)."""
        with self._lock:
            return key in self._entries

    def drop(self, key: Key) -> None:
        with self._lock:
            self._entries.pop(key, None)
            self._asked.pop(key, None)

    def get(self, conn: Conn, key: Key) -> tuple[Fingerprint, list[tuple]] | None:
        """(fingerprint, every ranked player's `position_key` in order) of the subset's latest standings as
        `conn` sees them now, or None when they are not kept (the first ask: the caller reads otherwise)."""
        now = fingerprint(conn, key[0])
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] == now:
                self._entries[key] = self._entries.pop(key)  # the most recent last
                return entry
            self._entries.pop(key, None)
            if self._asked.get(key) != now:
                self._asked[key] = now
                while len(self._asked) > 4 * self.SIZE:
                    del self._asked[next(iter(self._asked))]
                return None
        order = sorted(
            position_key(ree, played, name, pid) for pid, name, ree, played in conn.execute(_ORDER, (key[0],))
        )
        entry = (now, order)
        with self._lock:
            self._entries[key] = entry
            while len(self._entries) > self.SIZE:
                del self._entries[next(iter(self._entries))]
        return entry


def fingerprint(conn: Conn, subset_id: int) -> Fingerprint:
    count, ree, played = conn.execute(_FINGERPRINT, (subset_id,)).fetchone()
    return int(count), float(ree), int(played)


def from_latest_order(
    conn: Conn, subset_id: int, number: int, offset: int, limit: int, order: list[tuple]
) -> tuple[int, list[tuple], dict[str, tuple], Callable[[tuple], int]] | None:
    """`rankings._from_statement`'s answer after the subset's latest match `number`, from its kept `order`;
    None when a row of the page no longer carries its kept key (the caller reads it otherwise)."""
    keys = order[offset : offset + limit]
    rows: dict[str, tuple] = {}
    for chunk, marks in in_chunks([k[3] for k in keys]):
        rows.update((r[0], tuple(r)) for r in conn.execute(_ROWS.format(marks=marks), (subset_id, *chunk)))
    page = []
    for key in keys:
        row = rows.get(key[3])
        if row is None or position_key(row[2], row[3], row[1], row[0]) != key:
            return None
        page.append(row)
    moved = {}
    for pid, name, ree, played, old_ree, old_played in conn.execute(_PARTICIPANTS, (subset_id, number)):
        old_key = position_key(old_ree, old_played, name, pid) if old_ree is not None else None
        moved[pid] = (position_key(ree, played, name, pid), old_key, old_ree)
    return len(order), page, moved, lambda key: bisect_left(order, key)
