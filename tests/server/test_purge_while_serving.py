"""A group purged while the service runs, then a new group: the running service never answers the new group
with the gone group's standings, though SQLite gives the new rows the ids the purged ones had."""

from __future__ import annotations

import httpx
import pytest

from rankterm.server import rankings
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from tests.server.conftest import BASE_URL, Api, duel
from tests.server.test_readers_during_writes import _calls, held_write

EVERY = 4
MATCHES = 2 * EVERY


async def _group_with_history(
    admin: Store, http: httpx.AsyncClient, name: str, winners: str
) -> tuple[int, Api]:
    """A group made by `admin` (another process's store), `MATCHES` duels between its three players, the
    one of `winners` (a letter each: a, b or c) beating the next in turn."""
    group = admin.create_group(name)
    key, secret = admin.create_client(group)
    api = Api(http, key, secret)
    await api.login()
    ids = {letter: await api.player(f"{name} {letter}") for letter in "abc"}
    game = await api.game(f"{name} game")
    for i in range(MATCHES):
        first = winners[i % len(winners)]
        second = "abc"[("abc".index(first) + 1) % 3]
        await api.add(duel(game, ids[first], ids[second], date=f"2026-01-{i + 1:02d} 20:00:00"))
    return group, api


@pytest.mark.parametrize("admin_is_service", [False, True], ids=["admin apart", "admin in the service"])
async def test_a_new_group_never_gets_a_purged_groups_standings(
    db: str, store: Store, monkeypatch: pytest.MonkeyPatch, admin_is_service: bool
) -> None:
    monkeypatch.setattr(rankings, "SNAPSHOT_EVERY", EVERY)
    admin = store if admin_is_service else Store(db)
    transport = httpx.ASGITransport(app=create_app(store))
    try:
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
            gone_group, gone = await _group_with_history(admin, http, "Gone", "a")
            near_snapshot = f"rankings/main/{MATCHES - 1}"  # nearer the snapshot after it than the one before
            first = await gone.ok(near_snapshot)
            assert await gone.ok(near_snapshot) == first  # asked twice: the service now holds the snapshot
            gone_players = {r["player"]["id"] for r in first["data"]}

            admin.purge_group(gone_group)
            _, new = await _group_with_history(admin, http, "New", "cba")
            shown = await new.ok(near_snapshot)
            assert {r["player"]["id"] for r in shown["data"]}.isdisjoint(gone_players)

            store.snapshots.clear()
            assert await new.ok(near_snapshot) == shown  # what a service started afresh answers
    finally:
        if admin is not store:
            admin.close()


async def test_a_purged_groups_token_opens_nothing_in_the_group_that_takes_its_ids(
    store: Store, app, clock
) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
        gone_group = store.create_group("Gone")
        gone = Api(http, *store.create_client(gone_group))
        await gone.login()
        assert await gone.ok("players") is not None
        store.purge_group(gone_group)
        new_group = store.create_group("New")  # within the same second as the gone group's token
        new = Api(http, *store.create_client(new_group))
        await new.login()
        await new.player("Only in the new group")
        if store.engine == "sqlite":
            assert new_group == gone_group  # the ids were given again: what this test is about
        await gone.error("players", "A002")
        assert len((await new.ok("players"))["data"]) == 1


@pytest.mark.parametrize("writer", ["new group", "other group"], ids=["takes the ids", "made before"])
async def test_calls_owed_by_a_purged_client_never_land_on_or_fail_another_clients_writes(
    db: str, store: Store, writer: str
) -> None:
    """Calls counted while a write held the database are owed by the client that made them: once its group
    is purged (`rankterm admin purge` in another process, while the service runs), the next writes of a
    client of a new group that takes its ids, or of a group made before, are answered and pay none of them."""
    admin = Store(db)
    transport = httpx.ASGITransport(app=create_app(store, limits=QuotaLimits(calls_per_hour=50)))
    try:
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
            if writer == "other group":
                other = Api(http, *admin.create_client(admin.create_group("Other")))
                await other.login()
            gone_group = admin.create_group("Gone")
            gone = Api(http, *admin.create_client(gone_group))
            await gone.login()
            with held_write(store, gone_group):
                for _ in range(5):
                    await gone.ok("players")  # owed: the database is held
            admin.purge_group(gone_group)
            if writer == "new group":
                new_group = admin.create_group("New")
                other = Api(http, *admin.create_client(new_group))
                await other.login()
                if store.engine == "sqlite":
                    assert new_group == gone_group  # the ids were given again: what this case is about
            for name in ("Olga", "Oscar"):  # each write pays what is owed, and must still be answered
                await other.player(name)
            other_id = store.authenticate(other.key, other.secret).id
            assert _calls(store, other_id) == 2  # the players it added, nothing of the gone client's
            assert (await other.ok("players"))["totalPlayers"] == 2
    finally:
        admin.close()
