"""The kept order of the latest standings skips its fingerprint's pass over the subset only while the
database cannot have changed (`latest_order.database_state`), and reads it again after any change: one
made through another connection (the store's writer) or through the reading connection itself."""

from __future__ import annotations

import pytest

from rankterm.server import latest_order
from rankterm.server.store import Store
from tests.server.test_latest_standings import _kept, _pages, _season, _subset_key


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The subsets of each fingerprint pass made from now on."""
    made: list[int] = []
    real = latest_order.fingerprint

    def counted(conn, subset_id):  # type: ignore[no-untyped-def]
        made.append(subset_id)
        return real(conn, subset_id)

    monkeypatch.setattr(latest_order, "fingerprint", counted)
    return made


def test_the_order_checked_once_is_served_without_the_pass_while_nothing_changes(
    store: Store, engine: str, passes: list[int]
) -> None:
    group, subset = _season(store)
    key = _subset_key(store, subset)
    first = _pages(store, group, key)
    assert _kept(store, subset)
    passes.clear()
    again = _pages(store, group, key)
    assert again == first
    # SQLite tells when nothing changed: no pass. PostgreSQL does not: a pass at each page.
    assert passes == ([] if engine == "sqlite" else [subset] * len(again))


def test_a_change_made_through_the_reading_connection_is_seen(passes: list[int]) -> None:
    # In memory, the store reads and writes through one connection: no other connection's commit to see.
    store = Store()
    try:
        group, subset = _season(store)
        key = _subset_key(store, subset)
        _pages(store, group, key)
        assert _kept(store, subset)
        with store._write() as conn:  # behind the key's back: no new match, no new version
            low = conn.execute(
                "SELECT player FROM rating_current WHERE subset_id = ? AND bot = 0 ORDER BY ree LIMIT 1",
                (subset,),
            ).fetchone()[0]
            conn.execute(
                "UPDATE rating_current SET ree = ree + 1000 WHERE subset_id = ? AND player = ?", (subset, low)
            )
        passes.clear()
        changed = _pages(store, group, key)
        assert passes  # the change was noticed: the fingerprint read again
        assert changed[0][0]["player"]["id"] == low
        store.latest_orders.clear()
        assert _pages(store, group, key) == changed
    finally:
        store.close()


def test_the_state_moves_at_a_commit_of_another_connection(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = Store(str(tmp_path / "s.db"))
    try:
        with store._read() as conn:
            before = latest_order.database_state(conn)
        with store._read() as conn:
            assert latest_order.database_state(conn) == before  # reads change nothing
        store.create_group("Another")
        with store._read() as conn:
            after = latest_order.database_state(conn)
        assert before is not None and after is not None and after != before
    finally:
        store.close()
