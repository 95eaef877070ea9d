"""Databases of older schema versions, made from a store of today, for the tests of the upgrades.

rankterm never downgrades a database; these steps exist so that an upgrade test can write its data with
today's code, take the database back to what an older rankterm wrote (`downgrade`), reopen it and check
that the migrations keep every row and every answer. Each step undoes one migration of `schema.MIGRATIONS`
on either engine (the statements are written in SQLite's types, as the migrations are; each engine runs
them in its own, `engine.Engine.statements`).
"""

from __future__ import annotations

from rankterm.server.db import schema
from rankterm.server.store import Store

_V1_HISTORY = next(
    statement
    for statement in schema.statements(schema.SCHEMA_V1)
    if statement.startswith("CREATE TABLE rating_history")
)
"""The history as versions 1 and 2 kept it (player by player), in the words of migration 1 itself."""

_UNDO_V3 = f"""
{_V1_HISTORY.replace("CREATE TABLE rating_history", "CREATE TABLE rating_old", 1)};
INSERT INTO rating_old (subset_id, player, number, match_date, mu, sigma, ree, best_ree, played, last_date)
SELECT subset_id, player, number, match_date, mu, sigma, ree, best_ree, played, last_date FROM rating_history;
DROP TABLE rating_history;
DROP TABLE rating_snapshot;
ALTER TABLE rating_old RENAME TO rating_history;
ALTER TABLE rating_current DROP COLUMN sort_key
"""
"""Version 3 -> 2: the history keyed by player again, without ``prev``; no snapshots; no sort keys kept."""

_UNDO_V2 = """
ALTER TABLE rating_current DROP COLUMN ree;
CREATE INDEX history_by_date ON rating_history(subset_id, player, match_date)
"""
"""Version 2 -> 1: no ree in ``rating_current``; the history's index by date back."""

_UNDO_V4 = "ALTER TABLE subsets DROP COLUMN history_version"
"""Version 4 -> 3: no history version (the numbers stay as they are: in played order, which version 3 did
not promise; a test that wants them in order of arrival records them so)."""

_UNDO_V5 = "DROP TABLE quota_limits"
"""Version 5 -> 4: no quota limits kept (every client had the defaults)."""

_UNDO_V6 = "ALTER TABLE clients DROP COLUMN tokens_from; DROP TABLE group_quota_limits"
"""Version 6 -> 5: no rotation moment of a client's tokens, no group quota limits."""

_UNDO_V7 = "UPDATE subsets SET history_version = 0"
"""Version 7 -> 6: history versions counted up from 0 (a subset whose history never moved had 0)."""

_UNDO = {7: _UNDO_V7, 6: _UNDO_V6, 5: _UNDO_V5, 4: _UNDO_V4, 3: _UNDO_V3, 2: _UNDO_V2}


def downgrade(store: Store, version: int) -> None:
    """Take the store's database back to schema `version` (its data as that version kept it)."""
    engine = store._engine
    with engine.write() as conn:
        for undone in range(schema.SCHEMA_VERSION, version, -1):
            for statement in engine.statements(_UNDO[undone]):
                conn.execute(statement)
        engine.set_schema_version(conn, version)
