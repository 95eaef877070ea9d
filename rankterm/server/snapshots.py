"""The standings' snapshots read into Python: `SnapshotCache` and the page worked out from one.

A snapshot never changes while its subset's ``history_version`` stays the same (the cache is keyed by it);
the standings after a match nearer the next snapshot are worked out from it in Python
(`from_snapshot_above`). See docs/design/server.md.
"""

from __future__ import annotations

import secrets
import threading
from bisect import bisect_left
from collections.abc import Callable

from rankterm.server.db import Conn, in_chunks

Snapshot = tuple[dict[str, tuple], list[tuple]]
"""(row of each player by id, every key in the order of positions)."""


def new_history_version() -> int:
    """A ``history_version`` for a new subset or one whose history just moved: drawn at random (1 to
    2**31 - 1, an INTEGER on every engine), never counted up, so no subset ever takes a version another one
    had under the same id: not one made after a purge that frees ids (SQLite gives them again), nor one a
    restore brings back from another database or an earlier day."""
    return secrets.randbelow(2**31 - 1) + 1


def position_key(ree: float, played: int, name: str, pid: str) -> tuple:
    """A player's place in the order of positions (smaller is higher): the order of the standings statement's ORDER BY (`rankings`)."""
    return (-ree, -played, name, pid)


class SnapshotCache:
    """Recent snapshots of a store's standings, read once each into Python (a snapshot never changes under
    one ``history_version`` of its subset, part of the key).

    Each entry is a subset's snapshot after one of its matches: every listed player's row, by id, and their
    keys in the order of positions. `standings_page` starts from the first snapshot after n and undoes the
    matches in between; at most `SIZE` snapshots are kept (~500 players each: ~100 KB). Reading one costs
    more than one page worked out by the database (`_from_statement`), so a snapshot is read only when it is
    asked for a second time (`get` answers None the first time): a lone page after a far-away match costs
    what the statement costs, the pages after nearby matches that follow (paging, stepping back through
    the matches) share the snapshot read.
    """

    SIZE = 8

    def __init__(self) -> None:
        self._entries: dict[tuple[int, int, int], Snapshot] = {}
        self._asked: dict[tuple[int, int, int], None] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every snapshot read or asked for (the benchmark's cold standings)."""
        with self._lock:
            self._entries.clear()
            self._asked.clear()

    def get(self, conn: Conn, subset_id: int, at: int, version: int = 0) -> Snapshot | None:
        """(row of each player by id, every key in order) of the subset's snapshot after match `at`; None
        the first time it is asked for (not read: the caller works the page out otherwise).

        `version` is the subset's ``history_version`` as read in the caller's transaction: a match placed
        before others renumbers and rates again what follows it and raises the version, so a snapshot read
        under another version (by this process or before another one changed the database) is never served.
        """
        key = (subset_id, at, version)
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is not None:
                self._entries[key] = entry  # the most recent last
                return entry
            if key not in self._asked:
                self._asked[key] = None
                while len(self._asked) > 4 * self.SIZE:
                    del self._asked[next(iter(self._asked))]
                return None
        entry = _read_snapshot(conn, subset_id, at)
        with self._lock:
            self._entries[key] = entry
            while len(self._entries) > self.SIZE:
                del self._entries[next(iter(self._entries))]
        return entry


_SNAPSHOT = (
    # Rows of (player, sort key, ree, played, best ree, last date, number of their latest match).
    "SELECT p.player, c.sort_key, p.ree, p.played, p.best_ree, p.last_date, p.number FROM rating_snapshot p"
    " JOIN rating_current c ON c.subset_id = p.subset_id AND c.player = p.player"
    " WHERE p.subset_id = ? AND p.at_number = ?"
)
_UNDONE = (
    # Each participant's first match in (n, S] (prev <= n) and the row before it (NULL: new after n).
    "SELECT h.player, b.ree, b.played, b.best_ree, b.last_date, b.number FROM rating_history h"
    " LEFT JOIN rating_history b ON b.subset_id = h.subset_id AND b.number = h.prev AND b.player = h.player"
    " WHERE h.subset_id = ? AND h.number > ? AND h.number <= ? AND h.prev <= ?"
)
_AT_N = (
    # The participants of match n: after it, and before it (NULL: new to the subset then).
    "SELECT h.player, h.ree, h.played, b.ree, b.played FROM rating_history h"
    " LEFT JOIN rating_history b ON b.subset_id = h.subset_id AND b.number = h.prev AND b.player = h.player"
    " WHERE h.subset_id = ? AND h.number = ?"
)
_PAGE_PLAYERS = "SELECT id, ghost, username, display_name, icon FROM players WHERE id IN ({marks})"


def _read_snapshot(conn: Conn, subset_id: int, at: int) -> Snapshot:
    rows = {r[0]: tuple(r) for r in conn.execute(_SNAPSHOT, (subset_id, at))}
    return rows, sorted(position_key(r[2], r[3], r[1], r[0]) for r in rows.values())


def from_snapshot_above(
    conn: Conn,
    subset_id: int,
    number: int,
    at: int,
    offset: int,
    limit: int,
    snapshot: Snapshot,
) -> tuple[int, list[tuple], dict[str, tuple], Callable[[tuple], int]]:
    """`_from_statement`'s answer from `snapshot`, the one after match `at` (> n) as `SnapshotCache` holds
    it, in Python: the players who played in (n, at] stand as the row before their first match after n (or
    are left out, new after n), the others as the snapshot says."""
    rows, order = snapshot
    undone = {r[0]: r for r in conn.execute(_UNDONE, (subset_id, number, at, number))}
    state = dict(rows)
    changed = []
    for pid, *row in undone.values():
        listed = state.pop(pid, None)
        if listed is not None and row[0] is not None:  # bots are in no snapshot
            state[pid] = (pid, listed[1], *row)
            changed.append(position_key(row[0], row[1], listed[1], pid))
    keys = [k for k in order if k[3] not in undone]
    keys += sorted(changed)
    keys.sort()  # two sorted runs: merged
    page = [state[k[3]] for k in keys[offset : offset + limit]]
    moved = {}
    for pid, ree, played, old_ree, old_played in conn.execute(_AT_N, (subset_id, number)):
        if pid in state:
            name = state[pid][1]
            old_key = position_key(old_ree, old_played, name, pid) if old_ree is not None else None
            moved[pid] = (position_key(ree, played, name, pid), old_key, old_ree)
    people: dict[str, tuple] = {}
    for chunk, marks in in_chunks([r[0] for r in page]):
        people.update((r[0], tuple(r[1:])) for r in conn.execute(_PAGE_PLAYERS.format(marks=marks), chunk))
    page = [(*r, *people[r[0]]) for r in page if r[0] in people]
    return len(keys), page, moved, lambda key: bisect_left(keys, key)
