"""When `SnapshotCache` reads a snapshot of the standings: at its second ask, kept while recent."""

from __future__ import annotations

from rankterm.server import snapshots


def test_a_snapshot_is_read_at_its_second_ask_then_kept_while_recent(monkeypatch):
    read: list[tuple[int, int]] = []

    def fake_read(conn, subset_id, at):
        read.append((subset_id, at))
        return {}, [(at,)]

    monkeypatch.setattr(snapshots, "_read_snapshot", fake_read)
    cache = snapshots.SnapshotCache()
    assert cache.get(None, 1, 10) is None and read == []  # a lone ask: the caller's statement instead
    assert cache.get(None, 1, 10) == ({}, [(10,)]) and read == [(1, 10)]
    assert cache.get(None, 1, 10) == ({}, [(10,)]) and read == [(1, 10)]  # kept: not read again
    assert cache.get(None, 2, 10) is None  # another subset's snapshot after the same match
    for at in range(20, 20 + cache.SIZE):
        cache.get(None, 1, at)
        cache.get(None, 1, at)
    assert len(read) == 1 + cache.SIZE
    assert cache.get(None, 1, 10) == ({}, [(10,)]) and read[-1] == (1, 10)  # pushed out, asked before: read
    cache.clear()
    assert cache.get(None, 1, 10) is None
