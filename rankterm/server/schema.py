"""The embedded service's schema, versioned (SQLite: ``PRAGMA user_version``) and migrated on open.

Each entry of `MIGRATIONS` takes the database from version ``i`` to ``i + 1``; `migrate` applies the ones a
database has not seen yet, each in its own transaction, so a database written by an older rankterm opens
in a newer one. Never edit a migration that has shipped: append a new one. PostgreSQL runs the very same
migrations, their types mapped by `pg.ddl`, its version kept in a ``schema_version`` table.

Layout (one file, several groups):

- ``meta``: key/value of the service itself (the token signing key, the catalogue fingerprint).
- ``groups``, ``clients`` (API key + scrypt hash of the secret), ``players`` (per group).
- ``games``: the catalogue (``group_id`` NULL, ``catalogue_pos`` set) and games a group created by name.
- ``matches``, ``factions``, ``faction_players``: what was recorded, as received.
- ``subsets``, ``subset_matches`` (``seq`` = position inside the subset, so counts need no scan).
- ``rating_current`` (latest skill and ree per subset and participant) and ``rating_history`` (one row
  per match a participant played in a subset, keyed by subset, player, match number; ``last_date`` is the
  latest date so far): standings after any match need at most one primary-key lookup per player.
- ``quota_counters``: calls counted per client, kind and time bucket (one row per bucket, not per call).
"""

from __future__ import annotations

import sqlite3

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
participant per match; the activity count walks the primary key instead, `rankings._recent`), and
``rating_current`` keeps each participant's ree, so the standings after a recent match read no history."""

MIGRATIONS: tuple[str, ...] = (SCHEMA_V1, SCHEMA_V2)
"""Migration ``i`` takes a database from ``user_version`` i to i + 1."""

SCHEMA_VERSION = len(MIGRATIONS)


class SchemaTooNew(RuntimeError):
    """The database was written by a newer rankterm; opening it here could damage it."""


def statements(script: str) -> list[str]:
    """The statements of a migration script (no statement holds a semicolon inside)."""
    return [s.strip() for s in script.split(";") if s.strip()]


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database up to `SCHEMA_VERSION`, one transaction per migration; return the version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"database schema version {version} is newer than this rankterm ({SCHEMA_VERSION})"
        )
    while version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements(MIGRATIONS[version]):
                conn.execute(statement)
            version += 1
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return version
