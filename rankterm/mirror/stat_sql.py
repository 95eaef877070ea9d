"""The stats rows: what the stats pages read of each held match, compact and indexed (`stat_matches`: one
row per match; `stat_seats`: one per player of a faction, or per faction without players), written by every
write of the held matches in the same transaction: built in Python from each match's JSON parsed once
(`_stat_rows_of`), or by the SQL of `_stat_inserts` for a match of a form that code does not take.
See docs/design/mirror.md.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

STATS_SHAPE = 3
"""The shape of the stats rows (`STATS_SCHEMA`): a file that holds another shape (or none) has them made
again from its held matches when opened, whatever its schema version."""
STAGED = "CREATE TEMP TABLE IF NOT EXISTS staged_matches (number INTEGER PRIMARY KEY, game_id TEXT, body TEXT NOT NULL)"
"""The held matches of a full read, set aside until they are swapped in whole (`HeldMatches.stage_matches`)."""


def _stat_flag(value: str) -> str:
    """SQL: a wire flag (`wire.fields.Flag`: true, 1, "yes", ...) at JSON path expression `value` as 0/1."""
    return (
        f"CASE json_type({value}) WHEN 'true' THEN 1 WHEN 'integer' THEN ({value}->>'$') != 0"
        f" WHEN 'real' THEN ({value}->>'$') != 0"
        f" WHEN 'text' THEN lower(trim({value}->>'$')) IN ('1', 'on', 't', 'true', 'y', 'yes') ELSE 0 END"
    )


_BOT = _stat_flag("f.value->'bot'")


def _stat_inserts(number: str, body: str, source: str) -> tuple[str, str]:
    """The two SQL statements inserting the stats rows of the matches (`number`, JSON `body`) read from
    `source`: the seats first, then the match with what its factions make (how many, the best rank,
    how many factions and bot factions share it, whether every faction could be read). Lenient as the wire
    models are (ids and names that are numbers become text, a faction's one player may come as an object);
    nothing here can fail, whatever a body holds."""
    valid = f"json_valid({body})"
    one_per_faction = f"FROM stat_seats WHERE number = {number} AND seat <= 0"
    best = f"(SELECT min(rank) {one_per_faction})"
    seats = f"""
    INSERT OR REPLACE INTO stat_seats (number, faction, seat, rank, bot, player, display_name, username)
    SELECT {number}, f.key, coalesce(p.key, -1), CAST(f.value->>'rank' AS INTEGER), {_BOT},
           CASE WHEN p.type = 'object' THEN coalesce(p.value->>'id', '') END,
           CASE WHEN p.type = 'object' THEN coalesce(p.value->>'displayName', '') END,
           CASE WHEN p.type = 'object' THEN coalesce(p.value->>'username', '') END
    FROM {source}, json_each(CASE WHEN {valid} THEN {body} ELSE '[]' END, '$.factions') AS f
    LEFT JOIN json_each(
        CASE WHEN f.type != 'object' OR {_BOT} THEN '[]'
             WHEN json_type(f.value, '$.players') = 'array' THEN f.value->'players'
             WHEN json_type(f.value, '$.players') = 'object' THEN json_array(f.value->'players')
             ELSE '[]' END
    ) AS p
    WHERE json_type({body}, '$.factions') = 'array' AND f.type = 'object'
    """
    match = f"""
    INSERT OR REPLACE INTO stat_matches (
        number, id, external_id, date, game_id, game_name, factions, best, at_best, bots, bot_at_best, readable
    )
    SELECT {number}, coalesce({body}->>'$.id', ''), coalesce({body}->>'$.externalId', ''),
           coalesce({body}->>'$.date', ''),
           CASE WHEN json_type({body}, '$.game') = 'object' THEN CAST({body}->>'$.game.id' AS INTEGER) END,
           coalesce({body}->>'$.game.name', ''),
           (SELECT count(*) {one_per_faction}),
           {best},
           (SELECT count(*) {one_per_faction} AND rank = {best}),
           (SELECT count(*) {one_per_faction} AND bot),
           (SELECT count(*) {one_per_faction} AND bot AND rank = {best}),
           CASE WHEN json_type({body}, '$.factions') IS NULL THEN 1
                WHEN json_type({body}, '$.factions') != 'array' THEN 0
                ELSE (SELECT count(rank) {one_per_faction}) = json_array_length({body}, '$.factions') END
    FROM {source} WHERE {valid}
    """
    return seats, match


STATS_SCHEMA = """
CREATE TABLE IF NOT EXISTS stat_matches (
    number INTEGER PRIMARY KEY,
    id TEXT,
    external_id TEXT,
    date TEXT,
    game_id INTEGER,
    game_name TEXT,
    factions INTEGER,
    best INTEGER,
    at_best INTEGER,
    bots INTEGER,
    bot_at_best INTEGER,
    readable INTEGER
);
CREATE INDEX IF NOT EXISTS stat_matches_by_game ON stat_matches (game_id);
CREATE INDEX IF NOT EXISTS stat_matches_by_date ON stat_matches (date);
CREATE TABLE IF NOT EXISTS stat_seats (
    number INTEGER NOT NULL,
    faction INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    rank INTEGER,
    bot INTEGER,
    player TEXT,
    display_name TEXT,
    username TEXT,
    PRIMARY KEY (number, faction, seat)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS stat_seats_by_player ON stat_seats (player, number) WHERE player IS NOT NULL;
"""
"""The stats rows (see the module docstring), created beside `_SCHEMA`."""

TRIGGERS_DROP = """
DROP TRIGGER IF EXISTS stat_rows_added;
DROP TRIGGER IF EXISTS stat_rows_changed;
DROP TRIGGER IF EXISTS stat_rows_dropped;
"""
"""The triggers on `matches` that kept the stats rows of shape 2 (the rows of `STATS_SHAPE`, written by
each write since)."""
ROWS_KEPT_FROM = frozenset({"2"})
"""Stats shapes whose rows are those of `STATS_SHAPE`: a file holding them keeps them (its triggers go)."""

STATS_DROP = f"""
{TRIGGERS_DROP}
DROP TABLE IF EXISTS stat_matches;
DROP TABLE IF EXISTS stat_seats;
"""

STATS_FILL = ";".join(_stat_inserts("m.number", "m.body", "matches AS m")) + ";"
"""Fill the stats rows from every held match (a file of an older schema or stats shape, once)."""

_INT64 = 1 << 63
_DIGITS = re.compile(r"[0-9]{1,18}")
_TRUE_TEXT = frozenset({"1", "on", "t", "true", "y", "yes"})


class _Odd(Exception):
    """A match of a form `_stat_rows_of` leaves to the SQL of `_stat_inserts`."""


def _no_constant(name: str) -> Any:
    raise _Odd(name)  # NaN, Infinity: not JSON to SQLite either


def _text(value: Any) -> str:
    """`coalesce(x->>'key', '')` into a TEXT column, for the forms taken here."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if type(value) is int and -_INT64 <= value < _INT64:
        return str(value)
    raise _Odd


def _integer(value: Any) -> int | None:
    """`CAST(x->>'key' AS INTEGER)`, for the forms taken here."""
    if value is None:
        return None
    if type(value) is int and -_INT64 <= value < _INT64:
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    raise _Odd


def _flag(value: Any) -> int:
    """`_stat_flag`, for the forms taken here."""
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if type(value) is int and -_INT64 <= value < _INT64:
        return int(value != 0)
    if isinstance(value, str) and value.isascii():
        return int(value.strip(" ").lower() in _TRUE_TEXT)
    raise _Odd


BuiltRows = tuple[tuple[Any, ...], list[tuple[Any, ...]]]


def _stat_rows_of(number: int, body: str) -> BuiltRows | None:
    """The stats rows of one match (its `stat_matches` row, its `stat_seats` rows) from its JSON, exactly as
    `_stat_inserts` makes them; None for a match of a form left to that SQL (text that is not JSON, values
    of types the wire does not send)."""
    try:
        match = json.loads(body, parse_constant=_no_constant)
        if not isinstance(match, dict):
            raise _Odd
        game = match.get("game")
        game_id: int | None = None
        game_name = ""
        if isinstance(game, dict):
            game_id, name = _integer(game.get("id")), game.get("name")
            if isinstance(name, str):
                game_name = name
            elif name is not None:
                raise _Odd
        elif game is not None:
            raise _Odd
        factions = match.get("factions", _Odd)
        seats: list[tuple[Any, ...]] = []
        ranks: list[tuple[int | None, int]] = []
        if factions is _Odd:
            readable = 1
        elif isinstance(factions, list):
            for index, faction in enumerate(factions):
                if not isinstance(faction, dict):
                    raise _Odd
                rank, bot = _integer(faction.get("rank")), _flag(faction.get("bot"))
                ranks.append((rank, bot))
                players = faction.get("players")
                if bot or players is None:
                    players = []
                elif isinstance(players, dict):
                    players = [players]
                elif not isinstance(players, list):
                    raise _Odd
                if not players:
                    seats.append((number, index, -1, rank, bot, None, None, None))
                for seat, player in enumerate(players):
                    if not isinstance(player, dict):
                        raise _Odd
                    seats.append((
                        number, index, seat, rank, bot, _text(player.get("id")),
                        _text(player.get("displayName")), _text(player.get("username")),
                    ))  # fmt: skip
            readable = int(all(rank is not None for rank, _ in ranks))
        else:
            raise _Odd
        known = [rank for rank, _ in ranks if rank is not None]
        best = min(known) if known else None
        row = (
            number, _text(match.get("id")), _text(match.get("externalId")), _text(match.get("date")),
            game_id, game_name, len(ranks), best,
            sum(1 for rank, _ in ranks if best is not None and rank == best),
            sum(bot for _, bot in ranks),
            sum(bot for rank, bot in ranks if best is not None and rank == best),
            readable,
        )  # fmt: skip
        return row, seats
    except (_Odd, ValueError, RecursionError):
        return None


_STAT_TEMP = """
CREATE TEMP TABLE IF NOT EXISTS stat_odd (number INTEGER PRIMARY KEY);
CREATE TEMP TABLE IF NOT EXISTS staged_stat_odd (number INTEGER PRIMARY KEY);
CREATE TEMP TABLE IF NOT EXISTS staged_stat_matches (
    number INTEGER PRIMARY KEY, id, external_id, date, game_id, game_name, factions, best, at_best, bots,
    bot_at_best, readable
);
CREATE TEMP TABLE IF NOT EXISTS staged_stat_seats (
    number, faction, seat, rank, bot, player, display_name, username, PRIMARY KEY (number, faction, seat)
) WITHOUT ROWID
"""
"""Temporary tables of a connection: the numbers of matches left to the SQL, and the stats rows of the
staged matches (`HeldMatches.stage_matches`)."""
STAGED_TABLES = ("staged_matches", "staged_stat_matches", "staged_stat_seats", "staged_stat_odd")


def _odd_fill(table: str) -> tuple[str, str]:
    """The SQL filling the stats rows of the held matches whose numbers temporary `table` holds."""
    return _stat_inserts(
        "m.number", "m.body", f"(SELECT number, body FROM matches WHERE number IN temp.{table}) AS m"
    )


STATS_OF_ODD = _odd_fill("stat_odd")
STATS_OF_STAGED_ODD = _odd_fill("staged_stat_odd")


def temp_tables(db: sqlite3.Connection) -> None:
    """Within a write: create this connection's temporary tables (`_STAGED`, `_STAT_TEMP`) if need be."""
    db.execute(STAGED)
    for statement in _STAT_TEMP.split(";"):
        db.execute(statement)


def _built_stat_rows(
    rows: Iterable[tuple[int, str | None, str]],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[int]]]:
    """The stats rows of dumped (number, game id, JSON) rows: (match rows, seat rows, numbers left to SQL)."""
    matches: list[tuple[Any, ...]] = []
    seats: list[tuple[Any, ...]] = []
    odd: list[tuple[int]] = []
    for number, _, body in rows:
        made = _stat_rows_of(number, body)
        if made is None:
            odd.append((number,))
        else:
            matches.append(made[0])
            seats.extend(made[1])
    return matches, seats, odd


def put_stat_rows(
    db: sqlite3.Connection, rows: Sequence[tuple[int, str | None, str]], *, fresh: bool, staged: bool = False
) -> None:
    """Within a write that just put `rows` (number, game id, JSON) in `matches` (or in the staged matches,
    when `staged`): their stats rows, replacing any held for those numbers (none are when `fresh`)."""
    if not rows:
        return
    prefix = "temp.staged_" if staged else ""
    odd_table = "staged_stat_odd" if staged else "stat_odd"
    if not fresh:
        numbers = [(number,) for number, _, _ in rows]
        for table in (
            f"{prefix}stat_matches",
            f"{prefix}stat_seats",
            *(["temp.staged_stat_odd"] if staged else []),
        ):
            db.executemany(f"DELETE FROM {table} WHERE number = ?", numbers)
    matches, seats, odd = _built_stat_rows(rows)
    db.executemany(f"INSERT OR REPLACE INTO {prefix}stat_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?)", seats)
    db.executemany(
        f"INSERT OR REPLACE INTO {prefix}stat_matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", matches
    )
    if odd:
        temp_tables(db)
        db.executemany(f"INSERT OR IGNORE INTO temp.{odd_table} VALUES (?)", odd)
        if not staged:
            for statement in STATS_OF_ODD:
                db.execute(statement)
            db.execute("DELETE FROM temp.stat_odd")
