"""The held matches: the group's matches by number as the service listed them, appended to by a sync, written
in parts below the held ones by a first sync (on a worker thread's connection), staged aside and swapped in
whole by a full read, and rewritten from the earliest change when a backdated match renumbered those after it
(the history's generation goes up). Each write keeps the stats rows in the same transaction.
See docs/design/mirror.md.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable
from typing import Any

from rankterm.mirror.file import MirrorFile, dumps
from rankterm.mirror.lease import take_lease
from rankterm.mirror.rankings import LAST
from rankterm.mirror.stat_sql import STAGED_TABLES, STATS_OF_STAGED_ODD, put_stat_rows, temp_tables

log = logging.getLogger(__name__)


def _put_older(
    db: sqlite3.Connection,
    rows: list[tuple[int, str | None, str]],
    held_from: int,
    holder: str,
    now: float,
    lease: float,
) -> bool:
    """`Mirror.put_older_matches` on `db`."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        if not take_lease(db, holder, now, lease):
            return False
        db.executemany("INSERT OR REPLACE INTO matches VALUES (?, ?, ?)", rows)
        put_stat_rows(db, rows, fresh=False)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('held-from', ?)", (str(held_from),))
        return True


class OlderMatchesWriter:
    """`Mirror.put_older_matches` on a connection of its own (`Mirror.older_matches_writer`), for one worker
    thread at a time. A SQLite failure writes nothing and answers False (the mirror's own connection finds
    and reports a damaged file)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def put(
        self,
        rows: list[tuple[int, str | None, str]],
        *,
        held_from: int,
        holder: str,
        now: float,
        lease: float,
    ) -> bool:
        try:
            return _put_older(self._db, rows, held_from, holder, now, lease)
        except sqlite3.Error as exc:
            log.warning("The offline copy of the group could not take the matches read: %s", exc)
            return False

    def close(self) -> None:
        self._db.close()


class HeldMatches:
    """The group's matches held in the mirror file, and how much of its history they are."""

    def __init__(self, file: MirrorFile) -> None:
        self._file = file

    def held_history(self) -> tuple[int, int | None]:
        """(the lowest number from which the held matches run unbroken to the highest: 1 when every match
        is held, or none yet; how many matches the service said it held at the last sync: None if unknown)."""

        def read() -> tuple[int, int | None]:
            rows = dict(
                self._file.db.execute(
                    "SELECT key, value FROM meta WHERE key IN ('held-from', 'held-total')"
                ).fetchall()
            )
            total = rows.get("held-total")
            return int(rows.get("held-from") or 1), None if total is None else int(total)

        nothing: tuple[int, int | None] = (1, None)
        return self._file.guard(read, nothing)

    def set_held_history(self, *, held_from: int | None = None, total: int | None = None) -> None:
        """Keep the lowest number held unbroken to the top and the service's count (see `held_history`)."""
        values = [
            (key, str(v)) for key, v in (("held-from", held_from), ("held-total", total)) if v is not None
        ]

        def write() -> None:
            self._file.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values)

        if values:
            self._file.guard(write, None)

    def put_older_matches(
        self,
        matches: Iterable[tuple[int, str | None, str]],
        *,
        held_from: int,
        holder: str,
        now: float,
        lease: float,
    ) -> bool:
        """Add dumped (number, game id, JSON) rows read below the held ones (a first sync, newest first) and
        the new `held_from`, renewing `holder`'s lease, in one transaction; False, writing nothing, when
        another seat has taken the lease meanwhile. The held matches' time of sync is left as it is."""
        rows = list(matches)
        return self._file.guard(lambda: _put_older(self._file.db, rows, held_from, holder, now, lease), False)

    def older_matches_writer(self) -> OlderMatchesWriter | None:
        """`put_older_matches` on a connection of its own to the file, for a worker thread: a first sync writes
        a part while the next pages arrive. None for a mirror in memory, or a file that cannot be opened."""
        if self._file.path is None:
            return None
        try:
            db = sqlite3.connect(
                str(self._file.path), isolation_level=None, check_same_thread=False, timeout=5
            )
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error:
            return None
        return OlderMatchesWriter(db)

    # ------------------------------------------------------------------ matches

    def match_numbers(self) -> tuple[int, int]:
        """(how many matches are held, the highest number held: 0 when none)."""
        row = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT (SELECT count(*) FROM matches), (SELECT coalesce(max(number), 0) FROM matches)"
            ).fetchone(),  # apart, each is quick (the count from the small index, the max from the key)
            (0, 0),
        )
        return int(row[0]), int(row[1])

    def put_matches(
        self,
        matches: Iterable[tuple[int, str | None, Any]],
        *,
        replace_all: bool = False,
        dumped: bool = False,
        held_from: int | None = None,
    ) -> None:
        """Store (number, game id, wire-form match) rows; with `replace_all` they become the only ones. With
        `dumped`, each wire form is already JSON text (`dumps`). `held_from`: the lowest number held unbroken
        to the top from now on (`held_history`), kept with them."""
        rows = [(number, game, body if dumped else dumps(body)) for number, game, body in matches]

        def write() -> None:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                if replace_all:
                    self._file.db.execute("DELETE FROM matches")
                    self._file.db.execute("DELETE FROM stat_matches")
                    self._file.db.execute("DELETE FROM stat_seats")
                self._file.db.executemany("INSERT OR REPLACE INTO matches VALUES (?, ?, ?)", rows)
                put_stat_rows(
                    self._file.db, rows, fresh=replace_all and len({r[0] for r in rows}) == len(rows)
                )
                if held_from is not None:
                    self._file.db.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('held-from', ?)", (str(held_from),)
                    )
                self._file.db.execute(
                    "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES ('matches', ?, 0)",
                    (self._file.clock(),),
                )

        self._file.guard(write, None)

    def stage_matches(self, matches: Iterable[tuple[int, str | None, str]], *, first: bool = False) -> None:
        """Set dumped (number, game id, JSON) rows aside, in a temporary table of this connection, until
        `replace_matches_with_staged`: a full read of a large group's matches is written as it arrives instead
        of held in memory to its end, so memory stays flat on a large group. `first` empties the table."""
        rows = list(matches)

        def write() -> None:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                temp_tables(self._file.db)
                if first:
                    for table in STAGED_TABLES:
                        self._file.db.execute(f"DELETE FROM temp.{table}")
                self._file.db.executemany("INSERT OR REPLACE INTO temp.staged_matches VALUES (?, ?, ?)", rows)
                put_stat_rows(
                    self._file.db, rows, fresh=first and len({r[0] for r in rows}) == len(rows), staged=True
                )

        self._file.guard(write, None)

    def replace_matches_with_staged(self, changed_from: int | None = None) -> tuple[int, int | None]:
        """The staged rows become the held matches, in one transaction (offline meanwhile, the old ones
        stayed whole); return how many were staged, and the first number whose match changed (another id,
        or held before and gone now, or `changed_from` if lower: the caller knows the history changed there;
        None when the staged rows only add to the held ones). From that number on, the held standings are
        dropped and the history's generation goes up, as `rewrite_matches_from` does."""

        def write() -> tuple[int, int | None]:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                temp_tables(self._file.db)
                changed = self._file.db.execute(
                    "SELECT min(m.number) FROM matches m LEFT JOIN temp.staged_matches s ON s.number = m.number"
                    " WHERE s.number IS NULL OR json_extract(s.body, '$.id') IS NOT json_extract(m.body, '$.id')"
                ).fetchone()[0]
                if changed_from is not None:
                    changed = changed_from if changed is None else min(int(changed), changed_from)
                self._file.db.execute("DELETE FROM matches")
                self._file.db.execute("DELETE FROM stat_matches")
                self._file.db.execute("DELETE FROM stat_seats")
                staged = self._file.db.execute(
                    "INSERT INTO matches SELECT number, game_id, body FROM temp.staged_matches"
                ).rowcount
                self._file.db.execute("INSERT INTO stat_matches SELECT * FROM temp.staged_stat_matches")
                self._file.db.execute("INSERT INTO stat_seats SELECT * FROM temp.staged_stat_seats")
                for statement in STATS_OF_STAGED_ODD:
                    self._file.db.execute(statement)
                for table in STAGED_TABLES:
                    self._file.db.execute(f"DELETE FROM temp.{table}")
                if changed is not None:
                    self._history_changed(int(changed))
                self._file.db.execute(
                    "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES ('matches', ?, 0)",
                    (self._file.clock(),),
                )
                return int(staged), None if changed is None else int(changed)

        nothing: tuple[int, int | None] = (0, None)
        return self._file.guard(write, nothing)

    def matches_key(self) -> tuple[int, int, int]:
        """(how many matches are held, the highest number held, the history's generation): what tells two
        states of the held matches apart. The generation goes up whenever held matches are rewritten rather
        than appended to (a backdated match renumbered those after it), so that a copy parsed from them is
        dropped even when the counts alone cannot tell."""
        row = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT (SELECT count(*) FROM matches), (SELECT coalesce(max(number), 0) FROM matches),"
                " (SELECT value FROM meta WHERE key = 'history')"
            ).fetchone(),
            (0, 0, None),
        )
        return int(row[0]), int(row[1]), int(row[2] or 0)

    def history_generation(self) -> int:
        """The history's generation alone (`matches_key`): one look-up, whatever the number of matches."""
        row = self._file.guard(
            lambda: self._file.db.execute("SELECT value FROM meta WHERE key = 'history'").fetchone(), None
        )
        return int(row[0]) if row else 0

    def match_ids(self, numbers: Iterable[int]) -> dict[int, str]:
        """The service's id of each held match among `numbers`, by number (look-ups by number; no match
        parsed). A match held without an id maps to ""."""
        wanted = sorted({int(n) for n in numbers})
        if not wanted:
            return {}
        sql = (
            "SELECT number, json_extract(body, '$.id') FROM matches"
            f" WHERE number IN ({','.join('?' * len(wanted))})"
        )
        rows: list[Any] = self._file.guard(lambda: self._file.db.execute(sql, wanted).fetchall(), [])
        return {int(number): "" if mid is None else str(mid) for number, mid in rows}

    def rewrite_matches_from(self, first: int, matches: Iterable[tuple[int, str | None, str]]) -> None:
        """The history changed from match `first` on (a match was placed among the held ones): the held
        matches numbered `first` and above become the dumped (number, game id, JSON) rows given, the standings
        held after `first` - 1 are dropped (`drop_rankings_from`), and the history's generation goes up; all
        in one transaction."""
        rows = list(matches)

        def write() -> None:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                self._file.db.execute("DELETE FROM matches WHERE number >= ?", (first,))
                self._file.db.execute("DELETE FROM stat_matches WHERE number >= ?", (first,))
                self._file.db.execute("DELETE FROM stat_seats WHERE number >= ?", (first,))
                self._file.db.executemany("INSERT OR REPLACE INTO matches VALUES (?, ?, ?)", rows)
                put_stat_rows(self._file.db, rows, fresh=False)
                self._history_changed(first)

        self._file.guard(write, None)

    def _history_changed(self, first: int) -> None:
        """Within a write: drop the standings that a change of the history from `first` on made stale, bump
        the generation, and mark the matches synced now."""
        self._file.db.execute("DELETE FROM rankings WHERE match >= ? OR match = ?", (first, LAST))
        self._file.db.execute(
            "INSERT INTO meta VALUES ('history', '1')"
            " ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        self._file.db.execute(
            "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES ('matches', ?, 0)",
            (self._file.clock(),),
        )

    def first_number_dated_after(self, date: str, *, below: int) -> int | None:
        """The lowest held number below `below` whose match is dated after `date` ("YYYY-MM-DD HH:MM:SS"),
        looked for only when the held match just below `below` is (one look-up otherwise: held matches are in
        the order they were played); None when it is not, or none is."""

        def date_of(number: int) -> str | None:
            row = self._file.db.execute(
                "SELECT json_extract(body, '$.date') FROM matches WHERE number < ? ORDER BY number DESC LIMIT 1",
                (number,),
            ).fetchone()
            return None if row is None or row[0] is None else str(row[0])

        def read() -> int | None:
            latest = date_of(below)
            if latest is None or latest <= date:
                return None
            row = self._file.db.execute(
                "SELECT min(number) FROM matches WHERE number < ? AND json_extract(body, '$.date') > ?",
                (below, date),
            ).fetchone()
            return None if row is None or row[0] is None else int(row[0])

        return self._file.guard(read, None)

    def number_below(self, number: int, *, game_id: str | None = None) -> int | None:
        """The highest held match number below `number` (among one game's matches with `game_id`); None if
        none is held. One look-up in an index, whatever the number of matches held."""
        sql = "SELECT max(number) FROM matches WHERE number < ?"
        args: list[Any] = [number]
        if game_id is not None:
            sql += " AND game_id = ?"
            args.append(game_id)
        row = self._file.guard(lambda: self._file.db.execute(sql, args).fetchone(), None)
        return None if row is None or row[0] is None else int(row[0])

    def matches(self, *, game_id: str | None = None, offset: int = 0, limit: int | None = None) -> list[Any]:
        """Held matches newest first (optionally one game's), as wire-form JSON."""
        sql = "SELECT body FROM matches"
        args: list[Any] = []
        if game_id is not None:
            sql += " WHERE game_id = ?"
            args.append(game_id)
        sql += " ORDER BY number DESC LIMIT ? OFFSET ?"
        args += [-1 if limit is None else limit, offset]
        return self._file.guard(lambda: [json.loads(b) for (b,) in self._file.db.execute(sql, args)], [])

    def select_matches(
        self,
        *,
        containing: str | None = None,
        numbers: Iterable[int] | None = None,
        game_id: str | None = None,
        since: str | None = None,
        after: int | None = None,
    ) -> list[Any]:
        """Held matches newest first, as wire-form JSON, narrowed before they are parsed: whose stored text
        contains `containing` (e.g. a player's quoted id: a superset, to be checked on the parsed matches),
        numbered in `numbers`, of one game, dated at or after `since` ("YYYY-MM-DD HH:MM:SS"), or numbered
        above `after`."""
        sql, args = "SELECT body FROM matches WHERE 1", list[Any]()
        if containing is not None:
            sql, args = sql + " AND instr(body, ?) > 0", [*args, containing]
        if numbers is not None:
            wanted = sorted({int(n) for n in numbers})
            sql += f" AND number IN ({','.join('?' * len(wanted))})" if wanted else " AND 0"
            args += wanted
        if game_id is not None:
            sql, args = sql + " AND game_id = ?", [*args, game_id]
        if after is not None:
            sql, args = sql + " AND number > ?", [*args, after]
        sql += " ORDER BY number DESC"

        def dated(body: str) -> bool:  # the stored text's "date", read without parsing the match
            at = body.find('"date":"')
            return since is None or at < 0 or body[at + 8 : at + 27] >= since

        return self._file.guard(
            lambda: [json.loads(b) for (b,) in self._file.db.execute(sql, args) if dated(b)], []
        )

    def count_matches(
        self, *, game_id: str | None = None, above: int | None = None, recorded_before: str | None = None
    ) -> int:
        """How many matches are held (of one game with `game_id`; numbered above `above`; recorded before
        `recorded_before`, a registration date "YYYY-MM-DD HH:MM:SS")."""
        sql, args = "SELECT count(*) FROM matches WHERE 1", list[Any]()
        if game_id is not None:
            sql, args = sql + " AND game_id = ?", [*args, game_id]
        if above is not None:
            sql, args = sql + " AND number > ?", [*args, above]
        if recorded_before is not None:
            sql += " AND json_extract(body, '$.registrationDate') < ?"
            args = [*args, recorded_before]
        return self._file.guard(lambda: int(self._file.db.execute(sql, args).fetchone()[0]), 0)
