"""The group on disk: one SQLite file per profile that holds what the service last said about the group.

The public service meters every call and the Wi-Fi at a game night comes and goes, so `RankingClient` keeps
one mirror (its only read cache) and answers from it when the service cannot be reached. This module is the
storage alone: no HTTP, no models, only the wire-form JSON the service sent (parsed again by the client,
under its own display rules). The client's side is in `rankterm.client.mirrored`.

What it holds:

- the lists `games`, `players`, `subsets`: each replaced whole when read, with the time it was read
  (`synced_at`) and a `stale` mark that a write from this seat sets (the next read asks the service);
  `players` also holds the ghost players this seat made while the service was gone, under their local ids
  (`ids.is_local_id`), kept across reads until the outbox sends them (then the service's player replaces them);
- `matches`: the group's matches by number, synced incrementally by the client. Numbers follow the order the
  matches were played in, so a match dated before the group's latest takes a number among the held ones and
  every later match's number goes up by one (its id stays): the client notices and rewrites the held matches
  from the earliest change (`rewrite_matches_from`), which bumps the history's generation (`matches_key`);
- `rankings` pages as read, by (subset, match, page): those marked final (standings after a match that is
  no longer the latest of its subset) are answered forever, until a rewrite of the history drops those after
  its earliest change; the others only when the service is gone.
- `stat_matches` and `stat_seats`: what the stats pages read of each held match, compact and indexed (one
  row per match: number, id, external id, date, game; one row per player of a faction, or per faction
  without players: faction index, rank, bot flag, player id and the two names a label is made of), written
  by every write of the held matches (an append, a part of a first sync, a full read, a rewrite from a
  backdated match) in the same transaction, built in Python from each match's JSON parsed once
  (`_stat_rows_of`); a match of a form that code does not take is filled by the SQL of `_stat_inserts`. A
  page is read from them by player, game or date (`stat_rows`, `stat_game`), and the pickers' players and
  games (`stat_roster`), without a match's JSON being parsed. A file without them (schema 1), or with rows
  of another shape (`STATS_SHAPE`), gets them made from its held matches once; a file whose rows were kept
  by triggers on `matches` (shape 2) keeps its rows and loses the triggers.

One file per scope (base URL + key, hashed into the file name: `config.mirror_path`) rather than a scope
column: a profile's mirror can be deleted, or found corrupt and replaced, without touching another group's,
and no query or index has to carry the scope. The scope is also written inside, and a file holding another
scope is started afresh. `path=None` keeps the mirror in memory (the demo: its group dies with the process).

The file is created with mode 0600 (SQLite gives its -wal and -shm files the same mode). Its schema is
versioned with `PRAGMA user_version`; a file of another version, or one that cannot be read (corrupt, not a
database), is replaced by an empty mirror and `problem` says so in one sentence: a cache is never worth a
traceback. A later SQLite failure while reading or writing does the same. A damaged file is moved aside with a
timestamped suffix (`move_aside`), not deleted; the group is read again from the service.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
UPGRADABLE = frozenset({1})
"""Schemas whose files are kept and brought to `SCHEMA_VERSION` (what they lack is created and filled)."""
STATS_SHAPE = 3
"""The shape of the stats rows (`_STATS_SCHEMA`): a file that holds another shape (or none) has them made
again from its held matches when opened, whatever its schema version."""
LISTS = ("games", "players", "subsets")
LAST = -1
"""The `match` key of rankings pages read for the latest match (`rankings/last`)."""
_STAGED = "CREATE TEMP TABLE IF NOT EXISTS staged_matches (number INTEGER PRIMARY KEY, game_id TEXT, body TEXT NOT NULL)"

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


_STATS_SCHEMA = """
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

_TRIGGERS_DROP = """
DROP TRIGGER IF EXISTS stat_rows_added;
DROP TRIGGER IF EXISTS stat_rows_changed;
DROP TRIGGER IF EXISTS stat_rows_dropped;
"""
"""The triggers on `matches` that kept the stats rows of shape 2 (the rows of `STATS_SHAPE`, written by
each write since)."""
_ROWS_KEPT_FROM = frozenset({"2"})
"""Stats shapes whose rows are those of `STATS_SHAPE`: a file holding them keeps them (its triggers go)."""

_STATS_DROP = f"""
{_TRIGGERS_DROP}
DROP TABLE IF EXISTS stat_matches;
DROP TABLE IF EXISTS stat_seats;
"""

_STATS_FILL = ";".join(_stat_inserts("m.number", "m.body", "matches AS m")) + ";"
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


StatRows = tuple[tuple[Any, ...], list[tuple[Any, ...]]]


def _stat_rows_of(number: int, body: str) -> StatRows | None:
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
staged matches (`Mirror.stage_matches`)."""
_STAGED_TABLES = ("staged_matches", "staged_stat_matches", "staged_stat_seats", "staged_stat_odd")


def _odd_fill(table: str) -> tuple[str, str]:
    """The SQL filling the stats rows of the held matches whose numbers temporary `table` holds."""
    return _stat_inserts(
        "m.number", "m.body", f"(SELECT number, body FROM matches WHERE number IN temp.{table}) AS m"
    )


_STATS_OF_ODD = _odd_fill("stat_odd")
_STATS_OF_STAGED_ODD = _odd_fill("staged_stat_odd")


def _temp_tables(db: sqlite3.Connection) -> None:
    """Within a write: create this connection's temporary tables (`_STAGED`, `_STAT_TEMP`) if need be."""
    db.execute(_STAGED)
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


def _put_stat_rows(
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
        _temp_tables(db)
        db.executemany(f"INSERT OR IGNORE INTO temp.{odd_table} VALUES (?)", odd)
        if not staged:
            for statement in _STATS_OF_ODD:
                db.execute(statement)
            db.execute("DELETE FROM temp.stat_odd")


STAT_COLUMNS = (
    "number", "id", "external_id", "date", "game_id", "game_name", "faction", "seat", "rank", "bot", "player", "display_name", "username",
)  # fmt: skip
"""The columns of `Mirror.stat_rows`, in order."""

StatRoster = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], tuple[str, int] | None]
"""`Mirror.stat_roster`: the players' rows, the games' rows, the newest (date, number)."""

T = TypeVar("T")

_PASSING = [
    ["SQLITE", code] for code in ("BUSY", "LOCKED", "FULL", "READONLY", "IOERR", "CANTOPEN", "NOMEM", "PERM")
]
"""SQLite failures that pass (another seat holding a lock, a full disk): the mirror is kept as it is."""


@dataclass(frozen=True, slots=True)
class HeldPage:
    """A rankings page as the mirror holds it."""

    body: Any
    final: bool
    fetched_at: float


def _dumps(value: Any) -> str:
    """JSON text as the mirror stores it (compact, UTF-8 kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


dumps = _dumps


def _lease(db: sqlite3.Connection, holder: str, now: float, seconds: float) -> bool:
    """Within a write: take or renew the sync lease for `holder` unless another holds it."""
    row = db.execute("SELECT value FROM meta WHERE key = 'sync-lease'").fetchone()
    held = json.loads(row[0]) if row else {}
    if held.get("holder") not in (None, holder) and float(held.get("until", 0)) > now:
        return False
    lease = _dumps({"holder": holder, "until": now + seconds})
    db.execute("INSERT OR REPLACE INTO meta VALUES ('sync-lease', ?)", (lease,))
    return True


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
        if not _lease(db, holder, now, lease):
            return False
        db.executemany("INSERT OR REPLACE INTO matches VALUES (?, ?, ?)", rows)
        _put_stat_rows(db, rows, fresh=False)
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


def move_aside(path: Path, clock: Callable[[], float] = time.time) -> Path:
    """Move a damaged file (and its WAL and shared-memory files) to a timestamped name beside it, to be looked
    at later: ``mirror.db.damaged-20261128T101500Z``. Gives the new name."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for suffix in ("-wal", "-shm"):
        companion = Path(f"{path}{suffix}")
        if companion.exists():
            os.replace(companion, f"{aside}{suffix}")
    os.replace(path, aside)
    return aside


class Mirror:
    """The mirror of one group (one service scope); see the module docstring."""

    def __init__(
        self, path: Path | str | None, scope: str = "", *, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.scope = scope
        self.clock = clock
        self.problem: str | None = None
        """One sentence when the file could not be used as it was (replaced, or kept in memory instead)."""
        self._db = self._open()

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
        if shape is not None and shape[0] in _ROWS_KEPT_FROM:
            db.executescript(
                f"BEGIN IMMEDIATE; {_TRIGGERS_DROP}"
                f" INSERT OR REPLACE INTO meta VALUES ('stats', '{STATS_SHAPE}'); COMMIT;"
            )
        elif shape is None or shape[0] != str(STATS_SHAPE):  # new, older, or of other stats rows: made again
            db.executescript(
                f"BEGIN IMMEDIATE; {_STATS_DROP} {_STATS_SCHEMA} {_STATS_FILL}"
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

    def _guard(self, action: Callable[[], T], fallback: T) -> T:
        """Run a read or write; a SQLite failure (a file broken under us) starts an empty mirror instead."""
        try:
            return action()
        except sqlite3.Error as exc:
            if getattr(exc, "sqlite_errorname", "").split("_")[:2] in _PASSING:
                self._say(f"The offline copy of the group {self.path} could not be used just now ({exc}).")
                return fallback
            with contextlib.suppress(sqlite3.Error):  # damaged under us (or its tables gone): start afresh
                self._db.close()
            if self.path is not None:
                with contextlib.suppress(OSError):
                    self._discard(f"was found damaged ({exc})", damaged=True)
            self._db = self._open()
            return fallback

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ syncing: one seat at a time, held history

    def take_sync_lease(self, holder: str, now: float, seconds: float) -> bool:
        """Take or renew the right to sync the matches until `now` + `seconds` (wall-clock seconds: other
        processes share the file); False while another holder has it. Taken in a BEGIN IMMEDIATE
        transaction, so two seats never both hold it; one that stops answering loses it when it runs out.
        True when the file cannot be written (`_guard`): nothing is shared through it then."""

        def write() -> bool:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                return _lease(self._db, holder, now, seconds)

        return self._guard(write, True)

    def sync_leased_elsewhere(self, holder: str, now: float) -> bool:
        """Whether another seat than `holder` holds the sync lease at `now` (its sync is under way)."""

        def read() -> bool:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'sync-lease'").fetchone()
            held = json.loads(row[0]) if row else {}
            return held.get("holder") not in (None, holder) and float(held.get("until", 0)) > now

        return self._guard(read, False)

    def release_sync_lease(self, holder: str, *, synced: bool) -> None:
        """Give the lease back (if `holder` has it); `synced`: a sync was completed (`syncs_done` counts it)."""

        def write() -> None:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                row = self._db.execute("SELECT value FROM meta WHERE key = 'sync-lease'").fetchone()
                if row is None or json.loads(row[0]).get("holder") != holder:
                    return
                self._db.execute("DELETE FROM meta WHERE key = 'sync-lease'")
                if synced:
                    self._db.execute(
                        "INSERT INTO meta VALUES ('syncs', '1')"
                        " ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                    )

        self._guard(write, None)

    def syncs_done(self) -> int:
        """How many syncs of the matches were completed on this file, by any seat."""
        row = self._guard(
            lambda: self._db.execute("SELECT value FROM meta WHERE key = 'syncs'").fetchone(), None
        )
        return int(row[0]) if row else 0

    def held_history(self) -> tuple[int, int | None]:
        """(the lowest number from which the held matches run unbroken to the highest: 1 when every match
        is held, or none yet; how many matches the service said it held at the last sync: None if unknown)."""

        def read() -> tuple[int, int | None]:
            rows = dict(
                self._db.execute(
                    "SELECT key, value FROM meta WHERE key IN ('held-from', 'held-total')"
                ).fetchall()
            )
            total = rows.get("held-total")
            return int(rows.get("held-from") or 1), None if total is None else int(total)

        nothing: tuple[int, int | None] = (1, None)
        return self._guard(read, nothing)

    def set_held_history(self, *, held_from: int | None = None, total: int | None = None) -> None:
        """Keep the lowest number held unbroken to the top and the service's count (see `held_history`)."""
        values = [
            (key, str(v)) for key, v in (("held-from", held_from), ("held-total", total)) if v is not None
        ]

        def write() -> None:
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values)

        if values:
            self._guard(write, None)

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
        return self._guard(lambda: _put_older(self._db, rows, held_from, holder, now, lease), False)

    def older_matches_writer(self) -> OlderMatchesWriter | None:
        """`put_older_matches` on a connection of its own to the file, for a worker thread: a first sync writes
        a part while the next pages arrive. None for a mirror in memory, or a file that cannot be opened."""
        if self.path is None:
            return None
        try:
            db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=5)
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error:
            return None
        return OlderMatchesWriter(db)

    # ------------------------------------------------------------------ lists: games, players, subsets

    def synced_at(self, name: str) -> float | None:
        """When list `name` was last read from the service (clock seconds), None if never."""
        row = self._guard(
            lambda: self._db.execute("SELECT synced_at FROM lists WHERE name = ?", (name,)).fetchone(), None
        )
        return row[0] if row else None

    def is_fresh(self, name: str, max_age: float) -> bool:
        """True when list `name` was read less than `max_age` seconds ago and no write has made it stale."""
        row = self._guard(
            lambda: self._db.execute("SELECT synced_at, stale FROM lists WHERE name = ?", (name,)).fetchone(),
            None,
        )
        return bool(row) and not row[1] and self.clock() - row[0] < max_age

    def is_stale(self, name: str) -> bool:
        """True when a write from this seat marked list `name` stale and no read has cleared the mark since."""
        row = self._guard(
            lambda: self._db.execute("SELECT stale FROM lists WHERE name = ?", (name,)).fetchone(), None
        )
        return bool(row and row[0])

    def note(self, key: str) -> Any:
        """A small JSON value kept beside the group under `key` (None when absent), e.g. a quota ledger."""
        row = self._guard(
            lambda: self._db.execute("SELECT value FROM meta WHERE key = ?", (f"note:{key}",)).fetchone(),
            None,
        )
        try:
            return json.loads(row[0]) if row else None
        except ValueError:
            return None

    def set_note(self, key: str, value: Any) -> None:
        """Keep a small JSON value under `key` (see `note`)."""

        def write() -> None:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"note:{key}", _dumps(value)))

        self._guard(write, None)

    def items(self, name: str) -> list[Any] | None:
        """List `name` in the order the service gave it (wire-form JSON), None if it was never read."""

        def read() -> list[Any] | None:
            if self._db.execute("SELECT 1 FROM lists WHERE name = ?", (name,)).fetchone() is None:
                return None
            rows = self._db.execute("SELECT body FROM items WHERE list = ? ORDER BY pos", (name,))
            return [json.loads(body) for (body,) in rows]

        return self._guard(read, None)

    def replace(
        self, name: str, items: Sequence[tuple[str, Any]], *, keep: Callable[[str], bool] | None = None
    ) -> list[Any]:
        """Put list `name` as just read: (id, wire-form item) pairs in order; marks it synced now.

        `keep`: held items whose id it accepts stay, after the new ones (ghost players this seat made that
        the service does not have yet: `ids.is_local_id`); returned (wire form), so that the caller need not
        read the whole list back to find them."""

        def write() -> list[Any]:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                kept: list[tuple[str, Any]] = []
                if keep is not None:
                    rows = self._db.execute("SELECT id, body FROM items WHERE list = ? ORDER BY pos", (name,))
                    given = {key for key, _ in items}
                    kept = [(key, json.loads(body)) for key, body in rows if keep(key) and key not in given]
                self._db.execute("DELETE FROM items WHERE list = ?", (name,))
                self._db.executemany(
                    "INSERT OR REPLACE INTO items (list, id, pos, body) VALUES (?, ?, ?, ?)",
                    [(name, key, pos, _dumps(body)) for pos, (key, body) in enumerate([*items, *kept])],
                )
                self._db.execute(
                    "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES (?, ?, 0)",
                    (name, self.clock()),
                )
            return [body for _, body in kept]

        return self._guard(write, [])

    def add_item(self, name: str, key: str, item: Any) -> None:
        """Put one item just made by this seat at the end of list `name` (only if the list is held)."""

        def write() -> None:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                if self._db.execute("SELECT 1 FROM lists WHERE name = ?", (name,)).fetchone() is None:
                    return
                self._db.execute(
                    "INSERT OR REPLACE INTO items (list, id, pos, body) VALUES (?, ?,"
                    " (SELECT coalesce(max(pos), -1) + 1 FROM items WHERE list = ?), ?)",
                    (name, key, name, _dumps(item)),
                )

        self._guard(write, None)

    def remove_item(self, name: str, key: str) -> None:
        """Take one item out of list `name` (a local ghost player the service has now made, or that was dropped)."""

        def write() -> None:
            self._db.execute("DELETE FROM items WHERE list = ? AND id = ?", (name, key))

        self._guard(write, None)

    def mark_stale(self, *names: str) -> None:
        """The next read of these lists (all when none is named) asks the service; what is held stays."""
        chosen = list(names or LISTS)

        def write() -> None:
            self._db.executemany("UPDATE lists SET stale = 1 WHERE name = ?", [(n,) for n in chosen])

        self._guard(write, None)

    # ------------------------------------------------------------------ matches

    def match_numbers(self) -> tuple[int, int]:
        """(how many matches are held, the highest number held: 0 when none)."""
        row = self._guard(
            lambda: self._db.execute("SELECT count(*), coalesce(max(number), 0) FROM matches").fetchone(),
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
        rows = [(number, game, body if dumped else _dumps(body)) for number, game, body in matches]

        def write() -> None:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                if replace_all:
                    self._db.execute("DELETE FROM matches")
                    self._db.execute("DELETE FROM stat_matches")
                    self._db.execute("DELETE FROM stat_seats")
                self._db.executemany("INSERT OR REPLACE INTO matches VALUES (?, ?, ?)", rows)
                _put_stat_rows(self._db, rows, fresh=replace_all and len({r[0] for r in rows}) == len(rows))
                if held_from is not None:
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('held-from', ?)", (str(held_from),))
                self._db.execute(
                    "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES ('matches', ?, 0)",
                    (self.clock(),),
                )

        self._guard(write, None)

    def stage_matches(self, matches: Iterable[tuple[int, str | None, str]], *, first: bool = False) -> None:
        """Set dumped (number, game id, JSON) rows aside, in a temporary table of this connection, until
        `replace_matches_with_staged`: a full read of a large group's matches is written as it arrives instead
        of held in memory to its end, so memory stays flat on a large group. `first` empties the table."""
        rows = list(matches)

        def write() -> None:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                _temp_tables(self._db)
                if first:
                    for table in _STAGED_TABLES:
                        self._db.execute(f"DELETE FROM temp.{table}")
                self._db.executemany("INSERT OR REPLACE INTO temp.staged_matches VALUES (?, ?, ?)", rows)
                _put_stat_rows(
                    self._db, rows, fresh=first and len({r[0] for r in rows}) == len(rows), staged=True
                )

        self._guard(write, None)

    def replace_matches_with_staged(self) -> tuple[int, int | None]:
        """The staged rows become the held matches, in one transaction (offline meanwhile, the old ones
        stayed whole); return how many were staged, and the first number whose match changed (another id,
        or held before and gone now; None when the staged rows only add to the held ones). From that number
        on, the held standings are dropped and the history's generation goes up, as `rewrite_matches_from`
        does."""

        def write() -> tuple[int, int | None]:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                _temp_tables(self._db)
                changed = self._db.execute(
                    "SELECT min(m.number) FROM matches m LEFT JOIN temp.staged_matches s ON s.number = m.number"
                    " WHERE s.number IS NULL OR json_extract(s.body, '$.id') IS NOT json_extract(m.body, '$.id')"
                ).fetchone()[0]
                self._db.execute("DELETE FROM matches")
                self._db.execute("DELETE FROM stat_matches")
                self._db.execute("DELETE FROM stat_seats")
                staged = self._db.execute(
                    "INSERT INTO matches SELECT number, game_id, body FROM temp.staged_matches"
                ).rowcount
                self._db.execute("INSERT INTO stat_matches SELECT * FROM temp.staged_stat_matches")
                self._db.execute("INSERT INTO stat_seats SELECT * FROM temp.staged_stat_seats")
                for statement in _STATS_OF_STAGED_ODD:
                    self._db.execute(statement)
                for table in _STAGED_TABLES:
                    self._db.execute(f"DELETE FROM temp.{table}")
                if changed is not None:
                    self._history_changed(int(changed))
                self._db.execute(
                    "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES ('matches', ?, 0)",
                    (self.clock(),),
                )
                return int(staged), None if changed is None else int(changed)

        nothing: tuple[int, int | None] = (0, None)
        return self._guard(write, nothing)

    def matches_key(self) -> tuple[int, int, int]:
        """(how many matches are held, the highest number held, the history's generation): what tells two
        states of the held matches apart. The generation goes up whenever held matches are rewritten rather
        than appended to (a backdated match renumbered those after it), so that a copy parsed from them is
        dropped even when the counts alone cannot tell."""
        row = self._guard(
            lambda: self._db.execute(
                "SELECT count(*), coalesce(max(number), 0),"
                " (SELECT value FROM meta WHERE key = 'history') FROM matches"
            ).fetchone(),
            (0, 0, None),
        )
        return int(row[0]), int(row[1]), int(row[2] or 0)

    def history_generation(self) -> int:
        """The history's generation alone (`matches_key`): one look-up, whatever the number of matches."""
        row = self._guard(
            lambda: self._db.execute("SELECT value FROM meta WHERE key = 'history'").fetchone(), None
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
        rows: list[Any] = self._guard(lambda: self._db.execute(sql, wanted).fetchall(), [])
        return {int(number): "" if mid is None else str(mid) for number, mid in rows}

    def rewrite_matches_from(self, first: int, matches: Iterable[tuple[int, str | None, str]]) -> None:
        """The history changed from match `first` on (a match was placed among the held ones): the held
        matches numbered `first` and above become the dumped (number, game id, JSON) rows given, the standings
        held after `first` - 1 are dropped (`drop_rankings_from`), and the history's generation goes up; all
        in one transaction."""
        rows = list(matches)

        def write() -> None:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("DELETE FROM matches WHERE number >= ?", (first,))
                self._db.execute("DELETE FROM stat_matches WHERE number >= ?", (first,))
                self._db.execute("DELETE FROM stat_seats WHERE number >= ?", (first,))
                self._db.executemany("INSERT OR REPLACE INTO matches VALUES (?, ?, ?)", rows)
                _put_stat_rows(self._db, rows, fresh=False)
                self._history_changed(first)

        self._guard(write, None)

    def _history_changed(self, first: int) -> None:
        """Within a write: drop the standings that a change of the history from `first` on made stale, bump
        the generation, and mark the matches synced now."""
        self._db.execute("DELETE FROM rankings WHERE match >= ? OR match = ?", (first, LAST))
        self._db.execute(
            "INSERT INTO meta VALUES ('history', '1')"
            " ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        self._db.execute(
            "INSERT OR REPLACE INTO lists (name, synced_at, stale) VALUES ('matches', ?, 0)", (self.clock(),)
        )

    def first_number_dated_after(self, date: str, *, below: int) -> int | None:
        """The lowest held number below `below` whose match is dated after `date` ("YYYY-MM-DD HH:MM:SS"),
        looked for only when the held match just below `below` is (one look-up otherwise: held matches are in
        the order they were played); None when it is not, or none is."""

        def date_of(number: int) -> str | None:
            row = self._db.execute(
                "SELECT json_extract(body, '$.date') FROM matches WHERE number < ? ORDER BY number DESC LIMIT 1",
                (number,),
            ).fetchone()
            return None if row is None or row[0] is None else str(row[0])

        def read() -> int | None:
            latest = date_of(below)
            if latest is None or latest <= date:
                return None
            row = self._db.execute(
                "SELECT min(number) FROM matches WHERE number < ? AND json_extract(body, '$.date') > ?",
                (below, date),
            ).fetchone()
            return None if row is None or row[0] is None else int(row[0])

        return self._guard(read, None)

    def drop_rankings_from(self, first: int) -> None:
        """Drop the standings held after match `first` and later, of every subset (final or not), and the
        latest standings: a match played before them arrived. Those after earlier matches stay."""

        def write() -> None:
            self._db.execute("DELETE FROM rankings WHERE match >= ? OR match = ?", (first, LAST))

        self._guard(write, None)

    def number_below(self, number: int, *, game_id: str | None = None) -> int | None:
        """The highest held match number below `number` (among one game's matches with `game_id`); None if
        none is held. One look-up in an index, whatever the number of matches held."""
        sql = "SELECT max(number) FROM matches WHERE number < ?"
        args: list[Any] = [number]
        if game_id is not None:
            sql += " AND game_id = ?"
            args.append(game_id)
        row = self._guard(lambda: self._db.execute(sql, args).fetchone(), None)
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
        return self._guard(lambda: [json.loads(b) for (b,) in self._db.execute(sql, args)], [])

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

        return self._guard(lambda: [json.loads(b) for (b,) in self._db.execute(sql, args) if dated(b)], [])

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
        return self._guard(lambda: int(self._db.execute(sql, args).fetchone()[0]), 0)

    # ------------------------------------------------------------------ the stats rows

    def stat_rows(
        self,
        *,
        player: str | None = None,
        game_id: int | None = None,
        since: str | None = None,
        after: int | None = None,
    ) -> list[tuple[Any, ...]]:
        """The stats rows (`STAT_COLUMNS`) of the held matches, by number, faction and seat: every match (one
        row per player of each faction, or one for a faction without players, a bot's), narrowed to those
        `player` plays in a faction that is not a bot's, of one game, dated at or after `since`
        ("YYYY-MM-DD HH:MM:SS"), or numbered above `after`. Read through indexes; no JSON parsed."""
        sql = (
            "SELECT m.number, m.id, m.external_id, m.date, m.game_id, m.game_name, s.faction, s.seat, s.rank, s.bot, s.player,"
            " s.display_name, s.username FROM stat_matches AS m JOIN stat_seats AS s ON s.number = m.number"
            " WHERE m.readable"
        )
        args: list[Any] = []
        if player is not None:
            sql, args = (
                sql + " AND m.number IN (SELECT number FROM stat_seats WHERE player = ?)",
                [*args, player],
            )
        if game_id is not None:
            sql, args = sql + " AND m.game_id = ?", [*args, game_id]
        if since is not None:
            sql, args = sql + " AND m.date >= ?", [*args, since]
        if after is not None:
            sql, args = sql + " AND m.number > ?", [*args, after]
        sql += " ORDER BY m.number, s.faction, s.seat"
        return self._guard(lambda: self._db.execute(sql, args).fetchall(), [])

    def stat_game(self, game_id: int) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
        """One game's held matches whose every faction could be read, from the stats rows: (how many, their
        factions, how many with a bot faction, how many a bot faction won alone at the best rank, the game's
        name in the newest by number, the first and the last date in the order played), and the seats of every
        player of a faction that is not a bot's: (player id, display name, username, match number, 1 when
        their faction is alone at the best rank), in the order played (date, number), then faction and seat."""
        where = "FROM stat_matches WHERE game_id = ? AND readable"

        def read() -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
            counts = self._db.execute(
                "SELECT count(*), coalesce(sum(factions), 0), coalesce(sum(bots > 0), 0),"
                f" coalesce(sum(at_best = 1 AND bot_at_best = 1), 0) {where}",
                (game_id,),
            ).fetchone()
            ends = [
                self._db.execute(sql, (game_id,)).fetchone()
                for sql in (
                    f"SELECT game_name {where} ORDER BY number DESC LIMIT 1",
                    f"SELECT date {where} ORDER BY date, number LIMIT 1",
                    f"SELECT date {where} ORDER BY date DESC, number DESC LIMIT 1",
                )
            ]
            seats = self._db.execute(
                "SELECT s.player, s.display_name, s.username, m.number, s.rank = m.best AND m.at_best = 1"
                " FROM stat_matches AS m JOIN stat_seats AS s ON s.number = m.number"
                " WHERE m.game_id = ? AND m.readable AND s.player IS NOT NULL"
                " ORDER BY m.date, m.number, s.faction, s.seat",
                (game_id,),
            ).fetchall()
            return (*counts, *(end[0] if end else None for end in ends)), seats

        nothing: tuple[tuple[Any, ...], list[tuple[Any, ...]]] = ((0, 0, 0, 0, None, None, None), [])
        return self._guard(read, nothing)

    def stat_roster(self) -> StatRoster:
        """Who and what the held matches name, from the stats rows (every held match, read or not): each
        player of a faction that is not a bot's (player id, display name, username as their newest match by
        number has them, first faction and seat there; how many held matches they play in), newest first by
        that match; each game (game id, name in its newest match, how many held matches), newest first; and
        the (date, number) of the newest match by date, then number (None when none is held). Read through
        the indexes; no JSON parsed."""

        def read() -> StatRoster:
            players = self._db.execute(
                "WITH last AS (SELECT player, max(number) AS n, count(DISTINCT number) AS played"
                " FROM stat_seats WHERE player IS NOT NULL AND player != '' GROUP BY player)"
                " SELECT l.player, s.display_name, s.username, l.played"
                " FROM last AS l JOIN stat_seats AS s ON s.number = l.n AND s.player = l.player"
                " ORDER BY l.n DESC, s.faction, s.seat"
            ).fetchall()
            games = self._db.execute(
                "SELECT game_id, game_name, count(*), max(number) FROM stat_matches"
                " WHERE game_id IS NOT NULL GROUP BY game_id ORDER BY max(number) DESC"
            ).fetchall()
            newest = self._db.execute(
                "SELECT date, number FROM stat_matches ORDER BY date DESC, number DESC LIMIT 1"
            ).fetchone()
            return players, [g[:3] for g in games], (newest[0], newest[1]) if newest else None

        nothing: StatRoster = ([], [], None)
        return self._guard(read, nothing)

    # ------------------------------------------------------------------ rankings pages

    def rankings(self, subset: str, match: int, page: int) -> HeldPage | None:
        """The rankings page held for (subset, match or LAST, page), if any."""
        row = self._guard(
            lambda: self._db.execute(
                "SELECT body, final, fetched_at FROM rankings WHERE subset = ? AND match = ? AND page = ?",
                (subset, match, page),
            ).fetchone(),
            None,
        )
        return HeldPage(json.loads(row[0]), bool(row[1]), row[2]) if row else None

    def rankings_pages(self, subset: str, match: int) -> dict[int, HeldPage]:
        """Every page held for (subset, match or LAST), by page number."""
        rows: list[Any] = self._guard(
            lambda: self._db.execute(
                "SELECT page, body, final, fetched_at FROM rankings WHERE subset = ? AND match = ?",
                (subset, match),
            ).fetchall(),
            [],
        )
        return {int(r[0]): HeldPage(json.loads(r[1]), bool(r[2]), r[3]) for r in rows}

    def put_rankings(self, subset: str, match: int, page: int, body: Any, *, final: bool) -> None:
        def write() -> None:
            self._db.execute(
                "INSERT OR REPLACE INTO rankings VALUES (?, ?, ?, ?, ?, ?)",
                (subset, match, page, int(final), self.clock(), _dumps(body)),
            )

        self._guard(write, None)
