"""Two seats make the same new player while the service is gone: when it answers again the group has one
ghost of that name, and every match that named either seat's local ghost names it.

Against the embedded service in process: one store, two seats (each its own client, mirror file, outbox
file and runner), each behind its own `FaultyTransport` so either can be cut off alone.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from rankterm.outbox.outbox import State
from rankterm.server.app import create_app
from rankterm.wire.models import Player
from tests.outbox.test_offline_ghosts import Group, SeatOnDisk
from tests.support.faults import Fault, FaultyTransport

BASE = "http://two-seats.test/"


def is_ghost_post(request: httpx.Request) -> bool:
    return request.method == "POST" and request.url.path.endswith("players/player")


class Counting(httpx.AsyncBaseTransport):
    """The service, keeping what each seat asked of it ("POST players/player", "GET players/2" ...)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, held: GhostPostsTogether | None = None) -> None:
        self.inner = inner
        self.held = held
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path.removeprefix('/')}")
        if self.held is not None and is_ghost_post(request):
            return await self.held.handle(self.inner, request)
        return await self.inner.handle_async_request(request)


class GhostPostsTogether:
    """Two seats' ghost POSTs at the same moment: neither reaches the service before both were sent (so each
    seat's read before it found nothing), and neither answer leaves before the service made both."""

    def __init__(self, seats: int = 2) -> None:
        self.seats = seats
        self.arrived = 0
        self.handled = 0
        self.all_arrived = asyncio.Event()
        self.all_handled = asyncio.Event()

    async def handle(self, inner: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
        self.arrived += 1
        if self.arrived >= self.seats:
            self.all_arrived.set()
        await asyncio.wait_for(self.all_arrived.wait(), 5)
        response = await inner.handle_async_request(request)
        await response.aread()
        self.handled += 1
        if self.handled >= self.seats:
            self.all_handled.set()
        await asyncio.wait_for(self.all_handled.wait(), 5)
        return response


class Seat(SeatOnDisk):
    """One seat of the table on the shared store: client, mirror and outbox on disk, and its runner."""

    def __init__(
        self,
        table: Table,
        name: str,
        *,
        script: list[Fault | None] = (),
        held: GhostPostsTogether | None = None,
    ) -> None:
        self.table = table
        self.wire = Counting(httpx.ASGITransport(app=create_app(table.store)), held)
        self.transport = FaultyTransport(self.wire, script=list(script), applies_to=is_ghost_post)
        self.open_parts(BASE, table.key, table.secret, table.tmp / name)

    def ghost_posts(self) -> int:
        return self.wire.seen.count("POST players/player")


class Table(Group):
    """The group's service (a store on disk) with Ada and Ben, Catan, and the seats around it."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp, "Friday")
        self.seats: list[Seat] = []

    def seat(self, name: str, **kw: Any) -> Seat:
        seat = Seat(self, name, **kw)
        self.seats.append(seat)
        return seat

    def ghosts(self, display_name: str) -> list[Player]:
        everyone = [p for n in (1, 2) for p in self.store.players_page(self.group, n).data]
        return [p for p in everyone if p.ghost and p.display_name == display_name]

    def played_by(self) -> list[list[str]]:
        """Each recorded match's player ids, oldest first."""
        matches = self.store.matches_page(self.group, None, 1).data
        return [[p.id for f in m.factions for p in f.players] for m in reversed(matches)]


@pytest.fixture
async def table(tmp_path):
    t = Table(tmp_path)
    yield t
    for seat in t.seats:
        await seat.close()


async def offline_with_zed(seat: Seat, opponent: str, name: str = "Zed") -> Player:
    """The seat, cut off, makes the ghost `name` and records a match of `opponent` against them."""
    seat.down = True
    zed = await seat.runner.create_ghost(name)
    recorded = await seat.runner.record([seat.table.match(opponent, zed.id)])
    assert recorded[0].waiting
    return zed


async def test_the_second_seat_back_takes_the_zed_the_first_made(table):
    one, two = table.seat("one"), table.seat("two")
    for seat in (one, two):
        await seat.reads.players()  # each read the group while the service was there: no Zed
    await offline_with_zed(one, table.ada)
    await offline_with_zed(two, table.ben)

    one.down = two.down = False
    await one.runner.send()
    [zed] = table.ghosts("*Zed")
    report = await two.runner.send()

    assert table.ghosts("*Zed") == [zed]  # one Zed
    assert table.played_by() == [[table.ada, zed.id], [table.ben, zed.id]]  # with both matches
    assert two.ghost_posts() == 0
    [entry] = two.outbox.ghosts()
    assert entry.state is State.SENT and entry.player_id == zed.id and entry.taken
    assert entry.note == "*Zed was already made by another seat: their matches go to that one."
    assert report.ghosts[entry.local_id].id == zed.id
    assert [e.state for e in two.outbox.entries()] == [State.SENT]
    # the second seat's mirror offers that Zed, and its local one is gone
    assert [p.id for p in two.reads.cached_players() if p.label == "*Zed"] == [zed.id]
    # the first seat made its own: nothing to say
    assert not one.outbox.ghosts()[0].taken and one.outbox.ghosts()[0].note == ""


async def test_two_seats_making_zed_at_the_same_moment_send_every_match_to_one(table):
    together = GhostPostsTogether()
    one, two = table.seat("one", held=together), table.seat("two", held=together)
    for seat in (one, two):
        await seat.reads.players()
    await offline_with_zed(one, table.ada)
    await offline_with_zed(two, table.ben)

    one.down = two.down = False
    await asyncio.gather(one.runner.send(), two.runner.send())

    zeds = table.ghosts("*Zed")
    assert len(zeds) == 2 and one.ghost_posts() == two.ghost_posts() == 1  # both were made: no way round it
    kept = min(zeds, key=lambda p: p.id)
    spare = max(zeds, key=lambda p: p.id)
    assert sorted(table.played_by()) == sorted([[table.ada, kept.id], [table.ben, kept.id]])
    entries = [one.outbox.ghosts()[0], two.outbox.ghosts()[0]]
    assert [e.player_id for e in entries] == [kept.id, kept.id]
    [left] = [e for e in entries if e.taken]  # the seat whose own Zed was not kept says so
    assert left.spare_id == spare.id
    assert left.note == (
        "*Zed was made at the same moment by another seat: their matches go to that one"
        f" (this seat's *Zed, {spare.id}, is left with none)."
    )


async def test_a_lost_answer_on_one_seat_and_the_other_seat_taking_its_zed(table):
    one = table.seat("one", script=[Fault.RESET_AFTER])  # the service makes one's Zed; the answer is lost
    two = table.seat("two")
    for seat in (one, two):
        await seat.reads.players()
    await offline_with_zed(one, table.ada)
    await offline_with_zed(two, table.ben)

    one.down = two.down = False
    first = await one.runner.send()
    assert first.stopped is not None and one.outbox.ghosts()[0].in_doubt
    [zed] = table.ghosts("*Zed")
    await two.runner.send()  # takes it
    await one.runner.send()  # settles its doubt by looking: it is its own

    assert table.ghosts("*Zed") == [zed] and one.ghost_posts() == 1 and two.ghost_posts() == 0
    assert sorted(table.played_by()) == sorted([[table.ben, zed.id], [table.ada, zed.id]])
    assert not one.outbox.ghosts()[0].taken and two.outbox.ghosts()[0].taken


async def test_a_zed_the_seat_knew_is_somebody_else(table):
    """A second Zed made on purpose (the seat's list showed one) is made, not merged into the first."""
    older = table.store.create_player(table.group, "Zed").id
    one = table.seat("one")
    await one.reads.players()
    zed = await offline_with_zed(one, table.ada)
    one.down = False
    await one.runner.send()
    zeds = table.ghosts("*Zed")
    [made] = [p for p in zeds if p.id != older]
    assert len(zeds) == 2 and one.ghost_posts() == 1
    assert table.played_by() == [[table.ada, made.id]] and zed.id != made.id
    assert not one.outbox.ghosts()[0].taken


@pytest.mark.parametrize(
    ("theirs", "ours", "taken"),
    [
        ("Zed", "  Zed ", True),  # the service trims surrounding spaces: the same name
        ("Zoe\u0308", "Zo\u00eb", True),  # the same letters, composed on one keyboard and not the other
        ("zed", "Zed", False),  # another case: perhaps another person (the players screen warns online)
        ("Zed  Ray", "Zed Ray", False),  # inner spaces count
    ],
)
async def test_exactly_that_name(table, theirs, ours, taken):
    one, two = table.seat("one"), table.seat("two")
    for seat in (one, two):
        await seat.reads.players()
    await offline_with_zed(one, table.ada, theirs)
    await offline_with_zed(two, table.ben, ours)
    one.down = two.down = False
    await one.runner.send()
    await two.runner.send()

    [their_zed] = table.ghosts("*" + theirs)
    [first, second] = table.played_by()
    assert first == [table.ada, their_zed.id]
    assert two.outbox.ghosts()[0].taken is taken
    assert (second == [table.ben, their_zed.id]) is taken
    assert two.ghost_posts() == (0 if taken else 1)


async def test_an_entry_made_without_knowing_the_seats_list_makes_its_own(table):
    """An outbox entry written before ghosts remembered what the seat knew (or by a caller that does not
    say) is never merged: it makes its own ghost, as it always did."""
    table.store.create_player(table.group, "Zed")
    one = table.seat("one")
    entry = one.outbox.add_ghost("Zed")
    assert entry.seen is None
    await one.runner.send()
    assert len(table.ghosts("*Zed")) == 2 and not one.outbox.ghosts()[0].taken
