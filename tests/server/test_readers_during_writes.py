"""Readers keep answering from the last committed state while a long write (a backdated batch's replay) holds
the database: WAL readers on SQLite, MVCC on PostgreSQL. Their calls are still counted against the quota:
judged on the committed counts plus those owed, and written once the database is free."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from rankterm.server import quota
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from tests.server.conftest import Api, _client, duel

HELD = 10.0
"""Seconds the write is held at most: far longer than the reads take when they do not wait for it."""


@contextmanager
def held_write(store, group: int) -> Iterator[None]:
    """A write of the group held open by another thread (as a replay holds it) until the block has done its
    reads; if they wait for it instead, it gives up after `HELD` seconds and the block fails."""
    entered, release = threading.Event(), threading.Event()
    gave_up: list[bool] = []

    def hold() -> None:
        with store._batch_on(True), store._write(lock_group=group) as conn:  # as a batch of matches
            conn.execute("UPDATE groups SET name = 'renamed, not yet committed' WHERE id = ?", (group,))
            entered.set()
            gave_up.append(not release.wait(HELD))

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert entered.wait(10)
    try:
        yield
    finally:
        release.set()
        thread.join(10)
    assert gave_up == [False], "the reads waited for the write to end"


def _calls(store, client_id: int) -> int:
    with store._read() as conn:
        row = conn.execute(
            "SELECT coalesce(sum(count), 0) FROM quota_counters WHERE client_id = ? AND kind = 'calls/hour'",
            (client_id,),
        ).fetchone()
    return int(row[0])


async def test_reads_answer_from_the_committed_state_while_a_write_is_held(store, credentials, clock):
    group, key, secret = credentials
    limits = QuotaLimits(calls_per_hour=8)
    async for http in _client(create_app(store, limits=limits)):
        api = Api(http, key, secret)
        await api.login()
        a, b = await api.player("Ann"), await api.player("Bob")
        game = await api.game("Go")
        await api.add(duel(game, a, b))
        client_id = store.authenticate(key, secret).id
        before = _calls(store, client_id)
        with held_write(store, group):
            standings = await api.ok("rankings/last")
            assert [row["player"]["displayName"] for row in standings["data"]] == ["*Ann", "*Bob"]
            assert (await api.ok("players"))["totalPlayers"] == 2
            left = limits.calls_per_hour - before - 2
            for _ in range(left):
                await api.ok("players")
            Api.check_error(await api.get("players"), quota.METERS[1].code, 429)  # the limit still holds
        store.add_matches(group, duel(game, a, b), client_id=None)  # the next write pays what is owed
        assert _calls(store, client_id) == limits.calls_per_hour
