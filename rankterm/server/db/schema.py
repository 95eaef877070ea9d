"""The service's schema: `MIGRATIONS`, applied on open by `engine.Engine.migrate`.

Migration ``i`` takes a database from version ``i`` to ``i + 1``, each in its own transaction. Never edit
a migration that has shipped: append one. The scripts are written in SQLite's types; each engine runs them
in its own (`engine.Engine.statements`). A migration whose work SQL alone cannot do names that work, and
whoever migrates hands it in (`Work`): this floor knows tables, never the rating code.
See docs/design/server.md for the tables, one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from rankterm.server.db.conn import Conn

SNAPSHOT_EVERY = 256
"""A subset's standings are copied into ``rating_snapshot`` after every this many of its matches (the
layout migration 3 made: the rating code writes its snapshots at this interval)."""

SCHEMA_V1 = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
CREATE TABLE groups (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE clients (
    id INTEGER PRIMARY KEY,
    group_id INTEGER NOT NULL REFERENCES groups(id),
    key TEXT NOT NULL UNIQUE,
    secret_hash TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL
);
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    group_id INTEGER NOT NULL REFERENCES groups(id),
    ghost INTEGER NOT NULL,
    username TEXT NOT NULL,
    display_name TEXT NOT NULL,
    icon TEXT NOT NULL,
    sort_key TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE INDEX players_by_name ON players(group_id, sort_key, id);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    group_id INTEGER REFERENCES groups(id),
    name TEXT NOT NULL,
    norm_name TEXT NOT NULL,
    weight TEXT NOT NULL,
    bgg_id INTEGER,
    thumbnail TEXT NOT NULL DEFAULT '',
    medium_image TEXT NOT NULL DEFAULT '',
    catalogue_pos INTEGER
);
CREATE INDEX games_by_norm ON games(norm_name);
CREATE INDEX games_by_bgg ON games(bgg_id) WHERE bgg_id IS NOT NULL;
CREATE INDEX games_by_group ON games(group_id, catalogue_pos);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    group_id INTEGER NOT NULL REFERENCES groups(id),
    number INTEGER NOT NULL,
    external_id TEXT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    date TEXT NOT NULL,
    registration_date TEXT NOT NULL,
    weight TEXT NOT NULL,
    name TEXT NOT NULL,
    notes TEXT NOT NULL,
    type TEXT NOT NULL,
    draw INTEGER NOT NULL,
    summary TEXT NOT NULL,
    client_id INTEGER REFERENCES clients(id),
    UNIQUE (group_id, number)
);
CREATE UNIQUE INDEX matches_by_external ON matches(group_id, external_id) WHERE external_id IS NOT NULL;
CREATE TABLE factions (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    idx INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    name TEXT NOT NULL,
    points TEXT NOT NULL,
    bot INTEGER NOT NULL,
    PRIMARY KEY (match_id, idx)
) WITHOUT ROWID;
CREATE TABLE faction_players (
    match_id INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    player_id TEXT NOT NULL REFERENCES players(id),
    PRIMARY KEY (match_id, idx, pos),
    FOREIGN KEY (match_id, idx) REFERENCES factions(match_id, idx)
) WITHOUT ROWID;
CREATE TABLE subsets (
    id INTEGER PRIMARY KEY,
    group_id INTEGER NOT NULL REFERENCES groups(id),
    key TEXT NOT NULL,
    type TEXT NOT NULL,
    name TEXT NOT NULL,
    game_id INTEGER REFERENCES games(id),
    creation_date TEXT NOT NULL,
    icon TEXT NOT NULL DEFAULT '',
    count_matches INTEGER NOT NULL DEFAULT 0,
    first_match INTEGER REFERENCES matches(id),
    last_match INTEGER REFERENCES matches(id),
    UNIQUE (group_id, key)
);
CREATE TABLE subset_matches (
    subset_id INTEGER NOT NULL REFERENCES subsets(id),
    number INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    PRIMARY KEY (subset_id, number)
) WITHOUT ROWID;
CREATE TABLE rating_current (
    subset_id INTEGER NOT NULL REFERENCES subsets(id),
    player TEXT NOT NULL,
    bot INTEGER NOT NULL,
    first_number INTEGER NOT NULL,
    number INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    best_ree REAL NOT NULL,
    played INTEGER NOT NULL,
    last_date TEXT NOT NULL,
    PRIMARY KEY (subset_id, player)
) WITHOUT ROWID;
CREATE TABLE rating_history (
    subset_id INTEGER NOT NULL REFERENCES subsets(id),
    player TEXT NOT NULL,
    number INTEGER NOT NULL,
    match_date TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    ree REAL NOT NULL,
    best_ree REAL NOT NULL,
    played INTEGER NOT NULL,
    last_date TEXT NOT NULL,
    PRIMARY KEY (subset_id, player, number)
) WITHOUT ROWID;
CREATE INDEX history_by_date ON rating_history(subset_id, player, match_date);
CREATE TABLE quota_counters (
    client_id INTEGER NOT NULL REFERENCES clients(id),
    kind TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (client_id, kind, bucket)
) WITHOUT ROWID;
"""

SCHEMA_V2 = """
DROP INDEX history_by_date;
ALTER TABLE rating_current ADD COLUMN ree REAL NOT NULL DEFAULT 0;
UPDATE rating_current SET ree = coalesce((SELECT h.ree FROM rating_history h
    WHERE h.subset_id = rating_current.subset_id AND h.player = rating_current.player
    AND h.number = rating_current.number), 0)
"""
"""Flatter inserts, faster standings: the history loses its index by date (one page fewer written per
participant per match; the activity count walks the primary key instead), and
``rating_current`` keeps each participant's ree, so the standings after a recent match read no history."""


def schema_v3(every: int) -> str:
    """Migration 3 with snapshots after every `every`-th match of a subset (tests use a small one)."""
    return f"""
CREATE TABLE rating_log (
    subset_id INTEGER NOT NULL REFERENCES subsets(id),
    number INTEGER NOT NULL,
    player TEXT NOT NULL,
    prev INTEGER NOT NULL,
    match_date TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    ree REAL NOT NULL,
    best_ree REAL NOT NULL,
    played INTEGER NOT NULL,
    last_date TEXT NOT NULL,
    PRIMARY KEY (subset_id, number, player)
) WITHOUT ROWID;
INSERT INTO rating_log (subset_id, number, player, prev, match_date, mu, sigma, ree, best_ree, played,
    last_date)
SELECT subset_id, number, player,
    coalesce(lag(number) OVER (PARTITION BY subset_id, player ORDER BY number), 0),
    match_date, mu, sigma, ree, best_ree, played, last_date
FROM rating_history;
CREATE TABLE rating_snapshot (
    subset_id INTEGER NOT NULL REFERENCES subsets(id),
    at_number INTEGER NOT NULL,
    player TEXT NOT NULL,
    number INTEGER NOT NULL,
    ree REAL NOT NULL,
    best_ree REAL NOT NULL,
    played INTEGER NOT NULL,
    last_date TEXT NOT NULL,
    PRIMARY KEY (subset_id, at_number, player)
) WITHOUT ROWID;
INSERT INTO rating_snapshot (subset_id, at_number, player, number, ree, best_ree, played, last_date)
SELECT m.subset_id, m.number, h.player, h.number, h.ree, h.best_ree, h.played, h.last_date
FROM subset_matches m
JOIN rating_current c ON c.subset_id = m.subset_id AND c.bot = 0 AND c.first_number <= m.number
JOIN rating_history h ON h.subset_id = c.subset_id AND h.player = c.player AND h.number = (
    SELECT max(x.number) FROM rating_history x
    WHERE x.subset_id = c.subset_id AND x.player = c.player AND x.number <= m.number)
WHERE m.seq % {every} = 0;
DROP TABLE rating_history;
ALTER TABLE rating_log RENAME TO rating_history;
ALTER TABLE rating_current ADD COLUMN sort_key TEXT NOT NULL DEFAULT '';
UPDATE rating_current SET sort_key = coalesce((SELECT p.sort_key FROM players p
    WHERE p.id = rating_current.player), '')
"""


SCHEMA_V3 = schema_v3(SNAPSHOT_EVERY)
"""Flat inserts: the history is kept in match order (key subset, number, player), so a match appends its
rows at the end of the table instead of writing one page per participant's own run of rows, which grew
with the history until every (subset, player) had a page of its own. Each row points at the player's
previous match in the subset (``prev``, 0 for the first), so the row before a match and the activity walk
are primary-key lookups; ``rating_snapshot`` holds every listed player's standing after each
`SNAPSHOT_EVERY`-th match of a subset, so a standing at any match is a snapshot row or one of the at most
`SNAPSHOT_EVERY` matches after it. ``rating_current`` keeps each player's sort key (names never change), so
the standings need no lookup of the players but for the rows of the page."""


REPLAY = "replay in played order"
"""The work of migration 4: number every group's matches in played order and rate every subset again."""

Work: TypeAlias = Mapping[str, Callable[[Conn], None]]
"""The work of migrations that SQL alone cannot do, by name (`Migration.then`), handed to `Engine.migrate`."""


@dataclass(frozen=True)
class Migration:
    """A migration with work SQL alone cannot do: `script` first, then the work named `then` (handed in by
    whoever migrates, `Work`) on the same connection, in the same transaction (a plain script is a
    migration of SQL alone)."""

    script: str
    then: str


SCHEMA_V4 = Migration("ALTER TABLE subsets ADD COLUMN history_version INTEGER NOT NULL DEFAULT 0", REPLAY)
"""Matches in the order they were played: every group's matches numbered again by date, then arrival (they
were numbered as they arrived), and every subset rated again from its first match in that order, with the
rating code of this rankterm. ``subsets.history_version`` goes up whenever a match placed before others
moves a subset's numbers, so standings read before are known to be stale. Its work (`REPLAY`) is the
rating code of the rankterm that opens the database, handed in by the store."""

SCHEMA_V5 = """
CREATE TABLE quota_limits (
    client_id INTEGER NOT NULL,
    field TEXT NOT NULL,
    value INTEGER,
    PRIMARY KEY (client_id, field)
) WITHOUT ROWID
"""
"""The host's quota limits (`quota`, ``rankterm serve --quota``): one row per client and quota field set apart
from the default, client 0 for every client, ``value`` NULL for unlimited."""

SCHEMA_V6 = """
ALTER TABLE clients ADD COLUMN tokens_from INTEGER NOT NULL DEFAULT 0;
CREATE TABLE group_quota_limits (
    group_id INTEGER NOT NULL,
    field TEXT NOT NULL,
    value INTEGER,
    PRIMARY KEY (group_id, field)
) WITHOUT ROWID
"""
"""Many groups on one service (``rankterm admin``): a client's tokens issued before ``tokens_from`` (seconds
since the epoch) are refused (its secret was rotated, or the id is new), and the quota limits a host sets for
every client of one group, between those of every client and a client's own."""

RENEW_VERSIONS = "history versions drawn apart"
"""The work of migration 7: every subset's ``history_version`` drawn at random."""

SCHEMA_V7 = Migration("", RENEW_VERSIONS)
"""History versions that never repeat: a subset's ``history_version`` is drawn at random when it is made and
each time its history moves, instead of counted up from 0. The service's standings snapshots are cached by
(subset id, match, version); counted versions repeated when SQLite gave a purged group's ids to a new group,
or when a restore brought back an older database, and the cache then served the wrong group's standings."""

MIGRATIONS: tuple[str | Migration, ...] = (
    SCHEMA_V1,
    SCHEMA_V2,
    SCHEMA_V3,
    SCHEMA_V4,
    SCHEMA_V5,
    SCHEMA_V6,
    SCHEMA_V7,
)
"""Migration ``i`` takes a database from schema version i to i + 1."""

SCHEMA_VERSION = len(MIGRATIONS)

LAST_LONG_MIGRATION = 4
"""The version after the last migration that takes a while on a long history (4: every match rated again)."""


class SchemaTooNew(RuntimeError):
    """The database was written by a newer rankterm; opening it here could damage it."""


def statements(script: str) -> list[str]:
    """The statements of a migration script (no statement holds a semicolon inside)."""
    return [s.strip() for s in script.split(";") if s.strip()]


def upgrade_notice(version: int) -> str | None:
    """What to tell whoever waits while a database of schema `version` is upgraded (None: nothing to say)."""
    if version == 0 or version >= LAST_LONG_MIGRATION:
        return None  # a new database, one up to date, or one whose upgrades left take no time
    text = f"upgrading the database from schema {version} to {SCHEMA_VERSION} (once; a long history takes a while)"
    if version < 4:
        text += ": matches are put in the order they were played and every ranking is worked out again"
    return text


def parts(migration: str | Migration) -> tuple[str, str | None]:
    """(the migration's SQL script, the name of the work that follows it or None)."""
    if isinstance(migration, Migration):
        return migration.script, migration.then
    return migration, None
