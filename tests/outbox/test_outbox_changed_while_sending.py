"""A match fixed or discarded from another seat of the profile while a send of it is under way (between the
sender's read of what is pending and its request: the twin check asks the service meanwhile) is never sent
as it stood before: the send leaves it, and the next one sends the fix. The same for a ghost player
renamed or discarded while the sender looks for one made elsewhere. Once a match is on its way, a fix or
a discard is refused in one sentence instead of being lost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from rankterm.outbox.outbox import Outbox, OutboxSender, State
from tests.outbox.test_offline_ghosts import World


@pytest.fixture
async def world(tmp_path: Path):
    w = World(tmp_path)
    await w.reads.players()
    yield w
    w.runner.close()
    await w.client.http.aclose()


def _winner(world: World, external_id: str) -> str:
    [match] = [m for m in world.service_matches() if m.external_id == external_id]
    return next(str(p.id) for f in match.factions if f.rank == 1 for p in f.players)


async def test_a_match_fixed_during_its_send_is_recorded_as_fixed(world: World, tmp_path: Path) -> None:
    queued = world.outbox.add(world.match(world.ada, world.ben))  # typed: Ada won
    other = Outbox(tmp_path / "outbox.db", world.client.scope)  # another app of the profile
    fixed = world.match(world.ben, world.ada).model_copy(update={"external_id": queued.external_id})

    async def twin_check(matches):  # asks the service: meanwhile the other seat saves the fix (Ben won)
        other.edit(queued.external_id, fixed)
        return {}

    sender = OutboxSender(world.outbox, world.reads, twins=twin_check)
    await sender.send_pending()
    assert [m for m in world.service_matches() if m.external_id == queued.external_id] == []
    await sender.send_pending()
    assert _winner(world, queued.external_id) == str(world.ben)
    entry = world.outbox.get(queued.external_id)
    assert entry is not None and entry.state is State.SENT


async def test_a_match_discarded_during_its_send_is_not_recorded(world: World, tmp_path: Path) -> None:
    queued = world.outbox.add(world.match(world.ada, world.ben))
    other = Outbox(tmp_path / "outbox.db", world.client.scope)

    async def twin_check(matches):
        other.discard(queued.external_id)
        return {}

    await OutboxSender(world.outbox, world.reads, twins=twin_check).send_pending()
    assert [m for m in world.service_matches() if m.external_id == queued.external_id] == []
    assert world.outbox.get(queued.external_id) is None


async def test_a_fix_or_discard_of_a_match_already_on_its_way_is_refused(
    world: World, tmp_path: Path
) -> None:
    queued = world.outbox.add(world.match(world.ada, world.ben))
    other = Outbox(tmp_path / "outbox.db", world.client.scope)
    world.outbox.mark_in_doubt([queued.external_id])  # this seat's send has just begun
    fixed = world.match(world.ben, world.ada).model_copy(update={"external_id": queued.external_id})
    with pytest.raises(ValueError, match="only a rejected or unsent match"):
        other.edit(queued.external_id, fixed)
    with pytest.raises(ValueError, match="may already be recorded"):
        other.discard(queued.external_id)
    entry = world.outbox.get(queued.external_id)
    assert entry is not None and entry.match == queued.match


class OnPlayersRead(httpx.AsyncBaseTransport):
    """The service, but running `then` once, as the first read of the players (the ghost sender's look for
    one made elsewhere) reaches it: what another seat does in that moment."""

    def __init__(self, inner: httpx.AsyncBaseTransport, then: Callable[[], object]) -> None:
        self.inner = inner
        self.then: Callable[[], object] | None = then

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.then is not None and request.method == "GET" and "/players" in request.url.path:
            then, self.then = self.then, None
            then()
        return await self.inner.handle_async_request(request)


async def test_a_ghost_renamed_during_its_send_is_made_under_the_new_name(
    world: World, tmp_path: Path
) -> None:
    ghost = world.outbox.add_ghost("Zoe", known=[])
    other = Outbox(tmp_path / "outbox.db", world.client.scope)
    world.strict.inner = OnPlayersRead(
        world.strict.inner, lambda: other.rename_ghost(ghost.local_id, "Zoë B")
    )
    sender = OutboxSender(world.outbox, world.reads)
    await sender.send_pending()
    await sender.send_pending()
    assert world.service_ghosts("Zoe") == []
    [made] = world.service_ghosts("Zoë B")
    entry = world.outbox.get_ghost(ghost.local_id)
    assert entry is not None and entry.state is State.SENT and entry.player_id == str(made.id)


async def test_a_ghost_discarded_during_its_send_is_not_made(world: World, tmp_path: Path) -> None:
    ghost = world.outbox.add_ghost("Zoe", known=[])
    other = Outbox(tmp_path / "outbox.db", world.client.scope)
    world.strict.inner = OnPlayersRead(world.strict.inner, lambda: other.discard_ghost(ghost.local_id))
    await OutboxSender(world.outbox, world.reads).send_pending()
    assert world.service_ghosts("Zoe") == []
