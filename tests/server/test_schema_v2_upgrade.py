"""Schema v2 (`schema.SCHEMA_V2`) on a database of version 1: the data stays, the standings answer the same.

A version-1 database is made from a store of today by undoing what v2 did (the ree column of
``rating_current`` dropped, the history's index by date made again, the version set back to 1; on SQLite the
result is checked to have exactly the tables, columns and indexes the v1 script makes). Opening it runs the
migration: every table's rows are the same as before, each ree of ``rating_current`` is its history row's,
and every subset's standings after every match answer as before, on both engines.
"""

from __future__ import annotations

import sqlite3

from rankterm.server import schema
from rankterm.server.store import Store

NOW = 1_764_000_000.0


def _record(store: Store) -> int:
    group = store.create_group("Old club")
    people = [store.create_player(group, name).id for name in ("Ann", "bob", "Cleo", "Dev", "Émile", "Fay")]
    games = [store.create_game(group, name=name).id for name in ("Azul", "Tichu")]
    body = []
    for i in range(24):
        a, b, c = people[i % 6], people[(i + 1) % 6], people[(i + 3) % 6]
        factions = [
            {"players": [a], "rank": 1, "points": "9"},
            {"players": [b], "rank": 2 if i % 4 else 1, "points": "7"},
        ]
        if i % 3 == 0:
            factions.append({"players": [c], "rank": 3, "points": "2"})
        if i % 7 == 0:
            factions.append({"bot": True, "rank": 2, "points": "5"})
        body.append(
            {
                "game": games[i % 2],
                "weight": ("light", "normal", "heavy")[i % 3],
                "date": f"2025-10-{1 + i:02d} 20:00:00",
                "factions": factions,
            }
        )
    assert store.add_matches(group, body, now=NOW).accepted_count == 24
    return group


def _answers(store: Store, group: int) -> list:
    out = []
    for subset in store.subsets(group):
        for n in range(1, 25):
            out.append(store.rankings_page(group, subset.id, n, 1, now=NOW).to_wire())
    return out


def _rows(store: Store) -> dict[str, list]:
    tables = (
        "matches",
        "factions",
        "faction_players",
        "subsets",
        "subset_matches",
        "rating_history",
        "players",
    )
    with store._read() as conn:
        found = {t: sorted(tuple(r) for r in conn.execute(f"SELECT * FROM {t}")) for t in tables}
        found["rating_current"] = sorted(
            tuple(r)
            for r in conn.execute(
                "SELECT subset_id, player, bot, first_number, number, mu, sigma, best_ree, played, last_date"
                " FROM rating_current"
            )
        )
    return found


def _to_v1(store: Store) -> None:
    with store._write() as conn:
        conn.execute("ALTER TABLE rating_current DROP COLUMN ree")
        conn.execute("CREATE INDEX history_by_date ON rating_history(subset_id, player, match_date)")
        if store.engine == "sqlite":
            conn.execute("PRAGMA user_version = 1")
        else:
            conn.execute("UPDATE schema_version SET version = 1")


def _shape(conn: sqlite3.Connection) -> dict[str, object]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    shape: dict[str, object] = {
        n: [tuple(c[1:]) for c in conn.execute(f"PRAGMA table_info({n})")] for n in names
    }
    shape["indexes"] = sorted(
        (r[0], r[1]) for r in conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'")
    )
    return shape


def test_v2_on_a_v1_database_keeps_the_data_and_the_standings(db, clock):
    with Store(db, clock=clock) as store:
        group = _record(store)
        before, rows = _answers(store, group), _rows(store)
        _to_v1(store)
        if store.engine == "sqlite":
            fresh = sqlite3.connect(":memory:")
            for statement in schema.statements(schema.MIGRATIONS[0]):
                fresh.execute(statement)
            assert _shape(store._conn) == _shape(fresh)

    with Store(db, clock=clock) as store:
        with store._read() as conn:
            if store.engine == "sqlite":
                assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 2
            else:
                assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 2
            stale = conn.execute(
                "SELECT count(*) FROM rating_current c JOIN rating_history h ON h.subset_id = c.subset_id"
                " AND h.player = c.player AND h.number = c.number WHERE h.ree <> c.ree"
            ).fetchone()[0]
            assert stale == 0
            assert conn.execute("SELECT count(*) FROM rating_current WHERE ree <= 1000").fetchone()[0] == 0
        assert _rows(store) == rows
        assert _answers(store, group) == before
