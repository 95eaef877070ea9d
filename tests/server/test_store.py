"""The store itself: schema versions, persistence, atomic writes, threads, indexes, hashed secrets."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from rankterm.server import games, rankings, snapshots
from rankterm.server.app import create_app
from rankterm.server.db import schema
from rankterm.server.store import Store
from rankterm.server.wire import Fault

from .conftest import Api, Clock, _client, duel


@pytest.fixture
def engine() -> str:
    """This module looks inside the SQLite file itself; test_store_engines.py holds the tests of both."""
    return "sqlite"


def test_a_new_file_is_at_the_current_schema_in_wal_with_foreign_keys(store):
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION >= 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_migrations_run_once_and_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "s.db"
    Store(path).close()
    with Store(path) as again:
        assert again.groups() == []
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(schema.SchemaTooNew):
        Store(path)


def test_the_catalogue_is_loaded_once_with_stable_ids(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as first:
        ids = dict(first._conn.execute("SELECT name, id FROM games WHERE group_id IS NULL").fetchall())
    entries, _ = games.catalogue()
    assert len(ids) == len({games.normalise(e["name"]) for e in entries})
    with Store(path) as second:
        assert (
            dict(second._conn.execute("SELECT name, id FROM games WHERE group_id IS NULL").fetchall()) == ids
        )


def test_secrets_are_stored_hashed(store, credentials):
    _, key, secret = credentials
    stored = store._conn.execute("SELECT secret_hash FROM clients WHERE key = ?", (key,)).fetchone()[0]
    assert secret not in stored and stored.startswith("scrypt$")
    assert store.authenticate(key, secret).key == key
    with pytest.raises(Fault) as refused:
        store.authenticate(key, secret[:-1])
    assert refused.value.code == "A001"


async def test_everything_survives_closing_and_reopening(tmp_path):
    path = tmp_path / "service.db"
    clock = Clock()
    store = Store(path, clock=clock)
    group = store.create_group("Persistent")
    key, secret = store.create_client(group)
    async for http in _client(create_app(store)):
        api = Api(http, key, secret)
        token = await api.login()
        a, b = await api.player("Ann"), await api.player("Bob")
        game = await api.game("Chess")
        await api.add(duel(game, a, b, id="m1"), duel(game, b, a))
        before = {p: await api.ok(p) for p in ("players", "matches", "rankings/last", "subsets", "games")}
    store.close()

    reopened = Store(path, clock=clock)
    counted = "SELECT count FROM quota_counters WHERE kind = 'calls/year'"
    assert reopened._conn.execute(counted).fetchone()[0] == 4 + 5  # 4 writes, 5 reads: kept
    async for http in _client(create_app(reopened)):
        api = Api(http, key, secret)
        api.headers = {"Authorization": f"Bearer {token}"}  # the token of the closed app still works
        after = {p: await api.ok(p) for p in before}
        assert after == before
        assert await api.ok("matches/match/exists", id="m1") == {"exists": True}
        assert (await api.add(duel(game, a, b)))["accepted"][0]["id"] == "3"
    reopened.close()


async def test_a_failing_batch_leaves_nothing_behind(api, monkeypatch):
    a, b = await api.player("Ann"), await api.player("Bob")
    game = await api.game("Chess")
    real = rankings.record
    calls = []

    def flaky(conn, subset_id, number, *args):
        calls.append(number)
        if number == 2:
            raise RuntimeError("disk on fire")
        return real(conn, subset_id, number, *args)

    monkeypatch.setattr(rankings, "record", flaky)
    response = await api.post("matches/match", json=[duel(game, a, b, id="first"), duel(game, b, a)])
    Api.check_error(response, "R001", 500)
    assert calls == [1, 1, 2]
    assert (await api.ok("matches/status"))["total"] == 0
    assert await api.ok("matches/match/exists", id="first") == {"exists": False}
    assert [s["id"] for s in await api.ok("subsets")] == ["main"]
    assert (await api.ok("rankings/last"))["data"] == []
    monkeypatch.setattr(rankings, "record", real)
    answer = await api.add(duel(game, a, b, id="first"))
    assert answer["acceptedCount"] == 1
    assert [m["number"] for m in (await api.ok("matches"))["data"]] == [1]


def test_threads_share_one_store(store, credentials):
    group, _, _ = credentials
    errors = []

    def work(n: int) -> None:
        try:
            for i in range(20):
                store.create_player(group, f"T{n}-{i}")
                store.players_page(group, 1)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.players_page(group, 1).total_players == 160


def _plan(store: Store, sql: str, params: tuple) -> list[str]:
    return [row[-1] for row in store._conn.execute("EXPLAIN QUERY PLAN " + sql, params)]


def test_ranking_lookups_use_indexes_never_a_scan(demo):
    # Subset 1, after match 10, the snapshot before it at 0 (`rankings._from_statement`), the one after at 20.
    below = (1, 0, 10, 1, 10, 10, 1, 1, 10, 1, 0, 1, 10, 10)
    page = (25, 0, 1, 10, 1, 10)  # a page of 25 from the first row
    key = (1500.0, 1500.0, 3, 3, "ann", "ann", "x")  # how many stand above a key
    page_sql, above_sql = rankings._statements(demo._conn.dialect)
    lookups = [
        (rankings._SNAPSHOTS_AROUND, (1, 10, 1, 10, 1)),
        # The standings' statements from the snapshot before n, and from the one after it.
        (page_sql, below + page),
        (above_sql, below + key),
        (snapshots._SNAPSHOT, (1, 20)),
        (snapshots._UNDONE, (1, 10, 20, 10)),
        (snapshots._AT_N, (1, 10)),
        (snapshots._PAGE_PLAYERS.format(marks="?,?"), ("x", "y")),
        (
            rankings._WALK.format(starts="(?, ?), (?, ?)"),
            ("x", 10, "y", 9, "2025", "2026", 1, "2025", "2026", 1, 12, "2025"),
        ),
        (
            "SELECT number, seq, match_id FROM subset_matches WHERE subset_id = ? AND number <= ?"
            " ORDER BY number DESC LIMIT 1",
            (1, 10),
        ),
        # Placing a match in played order: the latest match, then (dated earlier) halving the numbers.
        ("SELECT number, date FROM matches WHERE group_id = ? ORDER BY number DESC LIMIT 1", (1,)),
        ("SELECT date FROM matches WHERE group_id = ? AND number = ?", (1, 10)),
        ("SELECT 1 FROM subset_matches WHERE subset_id = ? AND number >= ? LIMIT 1", (1, 10)),
        (
            "SELECT seq FROM subset_matches WHERE subset_id = ? AND number < ? ORDER BY number DESC LIMIT 1",
            (1, 10),
        ),
        ("UPDATE matches SET number = -(number + 1) WHERE group_id = ? AND number >= ?", (1, 10)),
        ("UPDATE rating_history SET number = -number WHERE subset_id = ? AND number < 0", (1,)),
        ("DELETE FROM rating_snapshot WHERE subset_id = ? AND at_number >= ?", (1, 10)),
    ]
    # What may be scanned: the rows a statement made itself (the walk's start values and queue, the
    # standings of every player after n and the page of them, the latest rows after a snapshot),
    # constants; nothing stored.
    walked = {"SCAN s", "SCAN w", "SCAN walk", "SCAN 2 CONSTANT ROWS", "SCAN CONSTANT ROW"}
    walked |= {"SCAN st", "SCAN t", "SCAN page", "SCAN lat", "SCAN l"}
    for sql, params in lookups:
        assert sql.count("?") == len(params), sql
        plan = _plan(demo, sql, params)
        scans = {step for step in plan if step.startswith("SCAN")}
        assert any(step.startswith("SEARCH") for step in plan) and scans <= walked, (sql, plan)


def test_quota_counts_one_row_per_bucket_not_per_call(store, credentials):
    from rankterm.server import quota

    _, key, secret = credentials
    client = store.authenticate(key, secret)
    for _ in range(50):
        store.charge(client.id, {quota.CALLS: 1, quota.RANKING_CALLS: 1}, quota.QuotaLimits())
    rows = store._conn.execute("SELECT count(*) FROM quota_counters").fetchone()[0]
    assert rows == 5  # calls: year, hour; ranking calls: year, day, hour
    assert store.quota(client.id, quota.QuotaLimits(calls_per_hour=100)).calls_per_hour == "50%"


def test_clones_are_independent_and_writable(demo):
    copy = demo.clone()
    group = demo.groups()[0][0]
    before = demo.players_page(group, 1).total_players
    copy.create_player(group, "Only in the copy")
    assert copy.players_page(group, 1).total_players == before + 1
    assert demo.players_page(group, 1).total_players == before
    assert copy.signing_key != demo.signing_key
