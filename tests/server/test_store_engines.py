"""The store on each engine (SQLite and PostgreSQL, see conftest): what several stores on one database share.

Two `Store` objects on the same database stand for two workers (on PostgreSQL, two pools; on SQLite, two
connections to one file): the signing key is one, the schema is versioned, a newer one is refused, and
threads racing through both stores neither store an external id twice nor count a quota past its limit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from rankterm.server.db import schema
from rankterm.server.quota import MATCHES, QuotaLimits
from rankterm.server.store import Store
from rankterm.server.wire import Fault

THREADS = 6


def _race(stores: list[Store], work: Callable[[Store, int], None]) -> None:
    """`work(store, i)` from THREADS threads at once, spread over the stores."""
    start = threading.Barrier(THREADS)
    failures: list[BaseException] = []

    def run(i: int) -> None:
        start.wait()
        try:
            work(stores[i % len(stores)], i)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures, failures


def test_two_stores_on_one_database_share_the_key_and_the_data(db, clock):
    with Store(db, clock=clock) as first, Store(db, clock=clock) as second:
        assert first.signing_key == second.signing_key and len(first.signing_key) == 32
        group = first.create_group("Shared")
        key, secret = second.create_client(group)
        assert first.authenticate(key, secret).group_id == group
    with Store(db, clock=clock) as again:
        assert again.signing_key == first.signing_key and again.groups() == [(group, "Shared")]


def test_the_schema_is_versioned_and_a_newer_one_is_refused(store, db):
    with store._write() as conn:
        if store.engine == "sqlite":
            assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
            conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
        else:
            assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == schema.SCHEMA_VERSION
            conn.execute("UPDATE schema_version SET version = ?", (schema.SCHEMA_VERSION + 1,))
    with pytest.raises(schema.SchemaTooNew):
        Store(db)


def test_the_same_external_ids_through_two_stores_at_once_are_stored_once(db, clock):
    with Store(db, clock=clock) as first, Store(db, clock=clock) as second:
        group = first.create_group("Race")
        a, b = (first.create_player(group, name).id for name in ("Ann", "Bob"))
        game = first.create_game(group, name="Chess").id
        items = [
            {
                "id": f"e{i}",
                "game": game,
                "weight": "normal",
                "factions": [{"players": [a], "rank": 1 + i % 2}, {"players": [b], "rank": 2 - i % 2}],
            }
            for i in range(15)
        ]
        accepted: list[str] = []

        def send(store: Store, i: int) -> None:
            for item in items[i:] + items[:i]:
                answer = store.add_matches(group, item)
                accepted.extend(o.id for o in answer.accepted)

        _race([first, second], send)
        assert sorted(accepted) == sorted(m["id"] for m in items)
        with first._read() as conn:
            numbers = [r[0] for r in conn.execute("SELECT number FROM matches ORDER BY number").fetchall()]
            history = conn.execute(
                "SELECT count(*), count(DISTINCT number) FROM rating_history WHERE player = ?", (a,)
            ).fetchone()
        assert numbers == list(range(1, 16))
        assert tuple(history) == (30, 15)  # main and game subsets, one row per match each


def test_quota_through_two_stores_at_once_stops_exactly_at_the_limit(db, clock):
    limits = QuotaLimits(matches_per_hour=40)
    with Store(db, clock=clock) as first, Store(db, clock=clock) as second:
        group = first.create_group("Quota")
        first.create_client(group)
        client = first.client(1)
        assert client is not None
        counted: list[int] = []
        refused: list[str] = []

        def charge(store: Store, i: int) -> None:
            for _ in range(10):
                try:
                    store.charge(client.id, {MATCHES: 1}, limits)
                    counted.append(1)
                except Fault as exc:
                    refused.append(exc.code)

        _race([first, second], charge)
        assert len(counted) == 40 and len(refused) == THREADS * 10 - 40
        assert set(refused) == {"Q005"}
        assert first.quota(client.id, limits).matches_per_hour == "100%"
