"""A match held as a twin in the outbox the seats share is asked about on the seat that may answer it: the
seat that queued it is told once, on its next send, whichever seat's send held it; a guest seat is never told
to send anyway or discard another seat's held match (it may not)."""

from __future__ import annotations

from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import Outbox
from rankterm.outbox.twins import Twin
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import guest_seat, settle

HELD_SAID = "from the outbox looks like one recorded lately from another seat: held, not sent"


def a_match(external_id: str) -> NewMatch:
    return NewMatch(
        game=1,
        weight="normal",
        external_id=external_id,
        factions=[NewFaction(players=["no-such-player"], rank=1), NewFaction(players=["nobody"], rank=2)],
    )


def held_by_a_send(path: Path, scope: str, seat: str, external_id: str) -> None:
    """`seat` queues a match, and a send (any seat's) holds it: it looks like Match 7."""
    box = Outbox(path, scope, seat=seat)
    box.add(a_match(external_id))
    box.mark_twin([external_id], Twin(7, "m7", "2026-11-28T21:00:00+00:00"))
    box.close()


async def test_the_seat_that_queued_a_held_match_is_told_once_and_no_other_guest(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    held_by_a_send(path, demo_client.scope, "mine", "mine-1")
    held_by_a_send(path, demo_client.scope, "other", "theirs-1")
    app = guest_seat(make_app, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        runner = pilot.app.outbox_runner
        await runner.send(force=True)
        await runner.send(force=True)
        await settle(pilot)
        said = [str(n.message) for n in app._notifications if HELD_SAID in str(n.message)]
        assert len(said) == 1 and said[0].startswith("1 match "), said
        assert [e.external_id for e in runner.outbox.held()] == ["mine-1", "theirs-1"]  # nothing answered


def test_a_guest_is_not_asked_about_another_seats_held_match_the_host_is(tmp_path: Path) -> None:
    path, scope = tmp_path / "outbox.db", "http://demo.rankterm/|demo"
    held_by_a_send(path, scope, "other", "theirs-1")
    mine, host = Outbox(path, scope, seat="mine"), Outbox(path, scope)
    try:
        assert mine.newly_held(["theirs-1"]) == []
        assert host.newly_held(["theirs-1"]) == ["theirs-1"]
        assert host.newly_held(["theirs-1"]) == []  # told once
    finally:
        mine.close()
        host.close()
