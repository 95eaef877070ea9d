"""A ghost player made while the service is gone is queued in the outbox ahead of the matches that name it;
when it is sent, its real id replaces the local one. Against the embedded service, in process,
behind `FaultyTransport` (network down, the answer lost after the service committed).
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group as Reads
from rankterm.mirror import Mirror
from rankterm.outbox.file import SCHEMA_VERSION
from rankterm.outbox.ghosts import GHOST_DISCARDED, UNKNOWN_LOCAL
from rankterm.outbox.outbox import Outbox, OutboxSender, State
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.tui.outbox_runner import OutboxRunner
from rankterm.wire.errors import BadRequest
from rankterm.wire.ids import is_local_id, new_local_id
from rankterm.wire.models import NewFaction, NewMatch, Player
from tests.support.faults import Fault, FaultyTransport

BASE = "http://ghosts.test/"
SERVICE_ID = re.compile(r"^[A-Za-z0-9]{11}$")


class FakeTimer:
    def stop(self) -> None:
        return None


@dataclass
class FakeApp:
    """What `OutboxRunner` needs of the app: its reactive state and timers (never fired here)."""

    outbox_counts: dict[str, int] = field(default_factory=dict)
    outbox_note: str = ""
    timers: list[float] = field(default_factory=list)

    def set_timer(self, delay: float, callback: Callable[[], Any], **options: Any) -> FakeTimer:
        self.timers.append(delay)
        return FakeTimer()

    def set_interval(self, every: float, callback: Callable[[], Any], **options: Any) -> FakeTimer:
        return FakeTimer()

    def resume_sending(self) -> None:
        return None

    def credentials_refused(self, exc: Exception) -> None:
        raise AssertionError(f"credentials refused: {exc}")


class Stricter(httpx.AsyncBaseTransport):
    """The service, but refusing (R003) ghost names in `refused`: a name the public service may not take."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.refused: set[str] = set()
        self.seen: list[str] = []
        """The requests that reached the service ("POST players/player" ...)."""
        self.slow_ghost_post = 0.0
        """Seconds a ghost POST takes before the service handles it."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.seen.append(f"{request.method} {path.removeprefix('/')}")
        ghost_post = request.method == "POST" and path.endswith("players/player")
        if ghost_post and request.url.params.get("name") in self.refused:
            body = {"errors": [{"code": "R003", "message": "This name cannot be used."}]}
            return httpx.Response(400, json=body)
        if ghost_post and self.slow_ghost_post:
            await asyncio.sleep(self.slow_ghost_post)
        return await self.inner.handle_async_request(request)


class Group:
    """A group of the service on disk (``tmp/service.db``): Ada and Ben (members) and Catan."""

    def __init__(self, tmp: Path, name: str) -> None:
        self.tmp = tmp
        self.store = Store(tmp / "service.db")
        self.group = self.store.create_group(name)
        self.key, self.secret = self.store.create_client(self.group)
        self.ada = self.store.create_player(self.group, "Ada", ghost=False, username="ada").id
        self.ben = self.store.create_player(self.group, "Ben", ghost=False, username="ben").id
        self.game = self.store.create_game(self.group, name="Catan").id

    def match(self, *players: str) -> NewMatch:
        factions = [NewFaction(players=[p], rank=i + 1, points=str(10 - i)) for i, p in enumerate(players)]
        return NewMatch(game=self.game, weight="normal", factions=factions)


class SeatOnDisk:
    """A seat's parts: its client (behind `transport`, which `down` cuts), mirror and outbox files, and its
    runner on a `FakeApp`."""

    transport: FaultyTransport
    client: RankingClient
    reads: Reads
    outbox: Outbox
    app: FakeApp
    runner: OutboxRunner

    def open_parts(self, base: str, key: str, secret: str, folder: Path) -> None:
        """A new client, mirror and outbox on the files in `folder` (the same files again: a restart)."""
        http = httpx.AsyncClient(transport=self.transport, base_url=base)
        self.client = RankingClient(base, key=key, secret=secret, http=http, retries=0, backoff=0)
        self.reads = Reads(self.client, Mirror(folder / "mirror.db", self.client.scope))
        self.outbox = Outbox(folder / "outbox.db", self.client.scope)
        self.app = FakeApp()
        self.runner = OutboxRunner(self.app, self.outbox, self.reads)

    async def close(self) -> None:
        self.runner.close()
        self.reads.mirror.close()
        await self.client.http.aclose()

    @property
    def down(self) -> bool:
        return self.transport.down

    @down.setter
    def down(self, value: bool) -> None:
        self.transport.down = value


class World(Group, SeatOnDisk):
    """An embedded service on disk, and one seat (client, mirror file, outbox file, runner) on it."""

    def __init__(self, tmp: Path, *, script: list[Fault | None] | None = None) -> None:
        super().__init__(tmp, "Tuesday")
        self.strict = Stricter(httpx.ASGITransport(app=create_app(self.store)))
        self.transport = FaultyTransport(self.strict, script=script or (), applies_to=self._ghost_post)
        self.open_seat()

    @property
    def posts(self) -> list[str]:
        return self.strict.seen

    @staticmethod
    def _ghost_post(request: httpx.Request) -> bool:
        return request.method == "POST" and request.url.path.endswith("players/player")

    def open_seat(self) -> None:
        """Start the seat (again): a new client, mirror and outbox on the same files (a restart)."""
        self.open_parts(BASE, self.key, self.secret, self.tmp)

    async def restart(self) -> None:
        await self.close()
        self.open_seat()

    def service_ghosts(self, name: str) -> list[Player]:
        return [p for p in self.store.players_page(self.group, 1).data if p.display_name == "*" + name]

    def service_matches(self) -> list[Any]:
        return self.store.matches_page(self.group, None, 1).data


@pytest.fixture
async def world(tmp_path):
    w = World(tmp_path)
    await w.reads.players()  # the seat read its group once while the service was there
    yield w
    w.runner.close()
    await w.client.http.aclose()


def ids_of(match: Any) -> list[str]:
    return [p.id for f in match.factions for p in f.players]


async def test_a_ghost_made_offline_goes_first_and_its_real_id_replaces_the_local_one(world):
    world.down = True
    dan = await world.runner.create_ghost("Dan")
    assert is_local_id(dan.id) and not SERVICE_ID.match(dan.id)
    assert dan.ghost and dan.display_name == "*Dan"
    # the mirror offers it at once, cached and offline
    assert dan.id in [p.id for p in world.reads.cached_players()]
    assert dan.id in [p.id for p in await world.reads.players(refresh=True)]
    recorded = await world.runner.record([world.match(world.ada, dan.id)])
    assert recorded[0].waiting
    assert [type(e).__name__ for e in world.outbox.queue()] == ["GhostEntry", "Entry"]
    assert world.app.outbox_counts["pending"] == 2
    assert world.service_ghosts("Dan") == [] and world.service_matches() == []

    world.down = False
    report = await world.runner.send()

    made = world.service_ghosts("Dan")
    assert len(made) == 1 and SERVICE_ID.match(made[0].id)
    [played] = world.service_matches()
    assert ids_of(played) == [world.ada, made[0].id]
    assert report.ghosts[world.outbox.ghosts()[0].local_id].id == made[0].id
    assert world.outbox.ghosts()[0].state is State.SENT and world.outbox.ghosts()[0].player_id == made[0].id
    [entry] = world.outbox.entries()
    assert entry.state is State.SENT and entry.match.factions[1].players == [made[0].id]
    assert world.app.outbox_counts == {"pending": 0, "sent": 2, "rejected": 0}
    # the mirror now offers the real ghost, and the local one is gone
    cached = [p.id for p in world.reads.cached_players()]
    assert made[0].id in cached and dan.id not in cached
    # the ghost POST came before the match POST
    assert world.posts.index("POST players/player") < world.posts.index("POST matches/match")


@pytest.mark.parametrize(("fault", "in_doubt"), [(Fault.RESET_BEFORE, False), (Fault.TIMEOUT, True)])
async def test_a_ghost_post_that_never_left_stays_pending_and_one_that_may_have_stays_in_doubt(
    tmp_path, fault, in_doubt
):
    """The client says "never left" (`NeverSent`: no connection made) apart from "no answer": only the first
    leaves the ghost free of doubt (nothing can have been made, so it can be discarded)."""
    world = World(tmp_path, script=[fault])
    await world.reads.players()
    try:
        world.down = True
        await world.runner.create_ghost("Dan")
        world.down = False
        report = await world.runner.send()
        assert report.stopped is not None and report.ghosts == {}
        [ghost] = world.outbox.ghosts()
        assert ghost.state is State.PENDING and ghost.in_doubt is in_doubt
        assert len(world.service_ghosts("Dan")) == (1 if in_doubt else 0)
    finally:
        world.runner.close()
        await world.client.http.aclose()


@pytest.mark.parametrize("restart", [False, True])
async def test_the_answer_to_the_ghost_post_lost_makes_no_second_ghost(tmp_path, restart):
    world = World(tmp_path, script=[Fault.RESET_AFTER])
    world.store.create_player(world.group, "Dan")  # another Dan, made before: not this one
    await world.reads.players()
    try:
        world.down = True
        dan = await world.runner.create_ghost("Dan")
        await world.runner.record([world.match(dan.id, world.ben)])
        world.down = False

        first = await world.runner.send()  # the service makes the ghost; its answer never comes back
        assert first.stopped is not None and first.ghosts == {}
        [ghost] = world.outbox.ghosts()
        assert ghost.in_doubt and ghost.state is State.PENDING and len(ghost.known_before) == 1
        assert len(world.service_ghosts("Dan")) == 2
        assert world.service_matches() == []  # the match waited: it names a ghost not known made
        assert "POST matches/match" not in world.posts

        if restart:
            await world.restart()
        posts_before = world.posts.count("POST players/player")
        second = await world.runner.send()

        assert second.stopped is None
        dans = world.service_ghosts("Dan")
        assert len(dans) == 2  # the old Dan and ours, once
        ours = next(p for p in dans if p.id not in ghost.known_before)
        assert world.posts.count("POST players/player") == posts_before  # settled by looking, not resent
        [played] = world.service_matches()
        assert ids_of(played) == [ours.id, world.ben]
        assert world.outbox.ghosts()[0].player_id == ours.id and not world.outbox.ghosts()[0].in_doubt
    finally:
        world.runner.close()
        await world.client.http.aclose()


async def test_a_restart_between_queueing_and_sending_still_sends_both(world):
    world.down = True
    dan = await world.runner.create_ghost("Dan")
    await world.runner.record([world.match(world.ada, dan.id), world.match(dan.id, world.ben)])
    await world.restart()
    # offline after the restart: the mirror file still offers the local ghost
    assert dan.id in [p.id for p in await world.reads.players()]
    world.down = False
    report = await world.runner.send()
    [made] = world.service_ghosts("Dan")
    assert report.sent == 2 and len(report.ghosts) == 1 and report.waiting == 0
    assert sorted(ids_of(m) for m in world.service_matches()) == sorted(
        [[world.ada, made.id], [made.id, world.ben]]
    )


async def test_a_ghost_the_service_refuses_holds_its_matches_until_it_is_renamed(world):
    world.strict.refused.add("Dan?")
    world.down = True
    dan = await world.runner.create_ghost("Dan?")
    await world.runner.record([world.match(world.ada, dan.id)])
    world.down = False
    world.app.timers.clear()  # the retries scheduled while the service was gone

    report = await world.runner.send()
    [ghost] = world.outbox.ghosts()
    assert ghost.state is State.REJECTED and [e.code for e in ghost.errors] == ["R003"]
    assert ghost.outcome().rejected and ghost.outcome().has_code("R003")
    assert ghost.errors[0].message == "This name cannot be used."
    [entry] = world.outbox.entries()
    assert entry.state is State.PENDING and not entry.in_doubt and report.waiting == 1
    assert world.runner.waiting_for(entry) == [ghost]
    assert "POST matches/match" not in world.posts and world.service_matches() == []
    again = await world.runner.send()  # nothing changes until the user acts; no retry is scheduled
    assert again.waiting == 1 and world.posts.count("POST players/player") == 1 and world.app.timers == []

    world.runner.rename_ghost(ghost.local_id, "Dan")
    assert "*Dan" in [p.display_name for p in world.reads.cached_players()]
    await world.runner.send()
    [made] = world.service_ghosts("Dan")
    [played] = world.service_matches()
    assert ids_of(played) == [world.ada, made.id]


async def test_discarding_a_queued_ghost_rejects_the_matches_that_name_it(world):
    world.down = True
    dan = await world.runner.create_ghost("Dan")
    await world.runner.record([world.match(world.ada, dan.id), world.match(world.ada, world.ben)])
    naming = world.runner.discard_ghost(dan.id)
    first, second = world.outbox.entries()
    assert naming == [first.external_id]
    assert first.state is State.REJECTED and first.errors[0].code == GHOST_DISCARDED
    assert second.state is State.PENDING
    assert dan.id not in [p.id for p in world.reads.cached_players()]
    world.down = False
    await world.runner.send()
    assert [ids_of(m) for m in world.service_matches()] == [[world.ada, world.ben]]
    assert world.service_ghosts("Dan") == []


async def test_a_match_is_never_sent_with_a_local_id(world):
    box = world.outbox
    stray = box.add(world.match(world.ada, new_local_id()))  # names a ghost no entry holds
    dan = box.add_ghost("Dan")
    waiting = box.add(world.match(world.ben, dan.local_id))
    box.mark_ghost_rejected(dan.local_id, [])
    sender = OutboxSender(box, world.client, max_rounds=1)
    # straight to the batch sender too: the guard is there, not only in the walk
    report = await sender.send_pending()
    await sender._send_batch([box.get(waiting.external_id)], report)  # type: ignore[list-item]
    assert "POST matches/match" not in world.posts and world.service_matches() == []
    assert box.get(stray.external_id).state is State.REJECTED  # type: ignore[union-attr]
    assert box.get(stray.external_id).errors[0].code == UNKNOWN_LOCAL  # type: ignore[union-attr]
    now = box.get(waiting.external_id)
    assert now is not None and now.state is State.PENDING and not now.in_doubt


async def test_online_a_ghost_is_made_at_once_and_a_refused_name_leaves_nothing_queued(world):
    dan = await world.runner.create_ghost("  Dan ")
    assert SERVICE_ID.match(dan.id) and dan.display_name == "*Dan"
    assert [p.id for p in world.service_ghosts("Dan")] == [dan.id]
    assert world.outbox.ghosts()[0].state is State.SENT

    world.strict.refused.add("Eve")
    with pytest.raises(BadRequest) as refused:
        await world.runner.create_ghost("Eve")
    assert refused.value.code == "R003"
    assert [g.name for g in world.outbox.ghosts()] == ["Dan"]
    assert "*Eve" not in [p.display_name for p in world.reads.cached_players()]
    with pytest.raises(ValueError):
        await world.runner.create_ghost("   ")


async def test_a_match_written_after_its_ghost_was_made_takes_the_real_id(world):
    world.down = True
    dan = await world.runner.create_ghost("Dan")  # the form picked the local player ...
    world.down = False
    await world.runner.send()  # ... the ghost is made meanwhile ...
    [made] = world.service_ghosts("Dan")
    await world.runner.record([world.match(dan.id, world.ben)])  # ... and then the match is submitted
    [played] = world.service_matches()
    assert ids_of(played) == [made.id, world.ben]


def test_a_version_2_outbox_is_migrated_and_its_entries_stay_matches(tmp_path):
    path = tmp_path / "outbox.db"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL,
            external_id TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL,
            in_doubt INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
            errors TEXT NOT NULL DEFAULT '[]', match_id TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL, updated_at REAL NOT NULL, UNIQUE (scope, external_id));
        PRAGMA user_version = 2;
        """
    )
    body = json.dumps(NewMatch(game=1, weight="light", external_id="rt-old").to_wire())
    db.execute(
        "INSERT INTO entries (scope, external_id, body, state, created_at, updated_at) VALUES (?,?,?,?,?,?)",
        ("s", "rt-old", body, "pending", 1.0, 1.0),
    )
    db.commit()
    db.close()
    box = Outbox(path, "s")
    assert box._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [e.external_id for e in box.entries()] == ["rt-old"] and box.ghosts() == []
    ghost = box.add_ghost("Dan")
    assert [getattr(e, "local_id", None) for e in box.queue()] == [None, ghost.local_id]
    box.close()


async def test_two_sends_at_once_make_the_ghost_once(world):
    world.down = True
    await world.runner.create_ghost("Dan")
    world.down = False
    world.strict.slow_ghost_post = 0.2  # the other sends look for it before the service has made it
    await asyncio.gather(world.runner.send(), world.runner.send(), world.runner.sender.send_pending())
    assert len(world.service_ghosts("Dan")) == 1
    assert world.posts.count("POST players/player") == 1
