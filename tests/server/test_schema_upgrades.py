"""Upgrades of the embedded service's schema: a database of version 1 to 4 opened by today's rankterm.

An older database is made from a store of today by undoing the later migrations
(`tests.support.old_schema.downgrade`; on SQLite the result is checked to have exactly the tables, columns
and indexes the older scripts make). Opening it runs the migrations: every row is the same as before (v2:
each ree of ``rating_current`` is its history row's; v3: the history in match order, each row pointing at
the player's previous match, and a snapshot of the standings after every few matches of a subset, equal to
the ones recording wrote; v4: the matches numbered and rated in the order they were played), and every
subset's standings after every match answer as before, on both engines. A database whose matches were
numbered and rated in the order they arrived (as rankterm did before version 4) ends as if they had been
sent in date order; v5: every client has the default quota limits, and limits set after the upgrade are kept
(and the upgrade says nothing: it only makes a table). Snapshots are taken every `EVERY` matches here (every 256 in the service) so that 24 matches make
some.
"""

from __future__ import annotations

import sqlite3

import pytest

from rankterm.server import matches, rankings
from rankterm.server.db import Conn, schema
from rankterm.server.quota import QuotaBook, QuotaLimits
from rankterm.server.store import Store
from tests.support.old_schema import downgrade

from .played import Group, season

EVERY = 4


@pytest.fixture(autouse=True)
def _snapshots_every_few_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rankings, "SNAPSHOT_EVERY", EVERY)
    monkeypatch.setattr(
        schema, "MIGRATIONS", (*schema.MIGRATIONS[:2], schema.schema_v3(EVERY), *schema.MIGRATIONS[3:])
    )


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
        "subset_matches",
        "rating_history",
        "rating_snapshot",
        "players",
    )
    with store._read() as conn:
        found = {t: sorted(tuple(r) for r in conn.execute(f"SELECT * FROM {t}")) for t in tables}
        found["subsets"] = sorted(  # their history versions are drawn again by the upgrade to 7
            tuple(r)
            for r in conn.execute(
                "SELECT id, group_id, key, type, name, game_id, creation_date, icon, count_matches, first_match,"
                " last_match FROM subsets"
            )
        )
        found["rating_current"] = sorted(
            tuple(r)
            for r in conn.execute(
                "SELECT subset_id, player, bot, first_number, number, mu, sigma, best_ree, played, last_date, sort_key"
                " FROM rating_current"
            )
        )
    return found


def _shape(conn: sqlite3.Connection) -> dict[str, object]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    shape: dict[str, object] = {
        n: [tuple(c[1:]) for c in conn.execute(f"PRAGMA table_info({n})")] for n in names
    }
    shape["indexes"] = sorted(
        (r[0], r[1]) for r in conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'")
    )
    return shape


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6])
def test_an_older_database_keeps_its_data_and_its_standings(db, clock, version):
    with Store(db, clock=clock) as store:
        group = _record(store)
        before, rows = _answers(store, group), _rows(store)
        assert len(rows["rating_snapshot"]) > 0  # 24 matches made some
        downgrade(store, version)
        if store.engine == "sqlite":
            fresh = sqlite3.connect(":memory:")
            for migration in schema.MIGRATIONS[:version]:
                script, _ = schema.parts(migration)
                for statement in schema.statements(script):
                    fresh.execute(statement)
            assert _shape(store._conn) == _shape(fresh)

    with Store(db, clock=clock) as store:
        with store._read() as conn:
            if store.engine == "sqlite":
                assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 7
            else:
                assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 7
            stale = conn.execute(
                "SELECT count(*) FROM rating_current c JOIN rating_history h ON h.subset_id = c.subset_id"
                " AND h.player = c.player AND h.number = c.number WHERE h.ree <> c.ree"
            ).fetchone()[0]
            assert stale == 0
            assert conn.execute("SELECT count(*) FROM rating_current WHERE ree <= 1000").fetchone()[0] == 0
            versions = [v for (v,) in conn.execute("SELECT history_version FROM subsets")]
            assert len(versions) == 3 and 0 not in versions and len(set(versions)) == 3  # drawn apart
        assert _rows(store) == rows
        assert _answers(store, group) == before


def test_each_history_row_points_at_the_players_previous_match(store):
    _record(store)
    with store._read() as conn:
        history = conn.execute("SELECT subset_id, player, number, prev FROM rating_history").fetchall()
    last: dict[tuple, int] = {}
    for subset_id, player, number, prev in sorted(history, key=lambda r: (r[0], r[1], r[2])):
        assert prev == last.get((subset_id, player), 0)
        last[(subset_id, player)] = number


def test_an_upgrade_is_said_once_before_it_starts_and_a_new_or_current_database_says_nothing(db, clock):
    said: list[str] = []
    with Store(db, clock=clock, notice=said.append) as store:
        _record(store)
        downgrade(store, 2)
    assert said == []  # a new database

    with Store(db, clock=clock, notice=said.append):
        pass
    assert said == [
        f"upgrading the database from schema 2 to {schema.SCHEMA_VERSION} (once; a long history takes a while): matches are put in"
        " the order they were played and every ranking is worked out again"
    ]

    with Store(db, clock=clock, notice=said.append):
        pass
    assert len(said) == 1  # up to date now


def _as_they_arrive(conn: Conn, group_id: int, date: str) -> tuple[int, int]:
    """How rankterm numbered a match before version 4: after the latest, whatever its date."""
    latest = conn.execute("SELECT coalesce(max(number), 0) FROM matches WHERE group_id = ?", (group_id,))
    count = latest.fetchone()[0]
    return count + 1, count


def test_matches_numbered_as_they_arrived_are_numbered_and_rated_in_played_order(db, clock, monkeypatch):
    count = 11
    order = [5, 0, 9, 3, 10, 1, 7, 2, 8, 4, 6]
    with Store(db, clock=clock) as store:
        with monkeypatch.context() as old_code:
            old_code.setattr(matches, "played_position", _as_they_arrive)
            arrived = Group(store, "Arrived")
            sent = season(arrived, count)
            arrived.accept([sent[i] for i in order[:6]], 3)
            arrived.accept([sent[i] for i in order[6:]])
        assert [e for _, e in arrived.numbers()] == [f"m{i:02d}" for i in order]
        in_order = Group(store, "In order")
        in_order.accept(season(in_order, count))
        expected = in_order.everything()
        assert arrived.everything() != expected
        downgrade(store, 3)
    said: list[str] = []
    with Store(db, clock=clock, notice=said.append) as store:
        assert said == [
            f"upgrading the database from schema 3 to {schema.SCHEMA_VERSION} (once; a long history takes a while): matches are put in"
            " the order they were played and every ranking is worked out again"
        ]
        assert Group.reopened(store, arrived.id).everything() == expected
        assert Group.reopened(store, in_order.id).everything() == expected
        assert [e for _, e in Group.reopened(store, arrived.id).numbers()] == [
            f"m{i:02d}" for i in range(count)
        ]


def test_a_version_4_database_gains_the_quota_limits_the_host_sets(db, clock):
    with Store(db, clock=clock) as store:
        group = _record(store)
        key, _ = store.create_client(group)
        other, _ = store.create_client(group)
        rows = _rows(store)
        downgrade(store, 4)
        with store._read() as conn:
            tables = "SELECT count(*) FROM sqlite_master WHERE name = 'quota_limits'"
            if store.engine == "postgresql":
                tables = "SELECT count(*) FROM information_schema.tables WHERE table_name = 'quota_limits'"
            assert conn.execute(tables).fetchone()[0] == 0
    said: list[str] = []
    with Store(db, clock=clock, notice=said.append) as store:
        assert said == []
        assert _rows(store) == rows
        assert store.quota_book() == QuotaBook()
        store.set_quota({"matchesPerHour": None, "callsPerHour": 9000}, key)
        store.set_quota({"callsPerYear": 7})
    with Store(db, clock=clock) as store:
        book = store.quota_book()
        ids = dict((k, i) for i, k in store.client_keys())
        assert book.limits(ids[other]) == QuotaLimits(calls_per_year=7)
        assert book.limits(ids[key]) == QuotaLimits(
            calls_per_year=7, calls_per_hour=9000, matches_per_hour=None
        )
