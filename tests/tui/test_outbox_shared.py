"""Seats of one profile share the outbox file: a seat shows the counts the file holds, even when another seat's
process wrote them, and tells a ghost taken from another seat of this machine from one made elsewhere."""

from __future__ import annotations

from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import GhostEntry, Outbox
from rankterm.tui.outbox_runner import WATCH_EVERY
from rankterm.tui.screens.outbox import OutboxScreen
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import settle


async def test_a_seat_shows_the_counts_another_seat_wrote_in_the_shared_file(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    scope = demo_client.scope
    app = make_app(outbox_factory=lambda client, demo: Outbox(path, scope))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 0, "rejected": 0}
        other_seat = Outbox(path, scope)  # another process's connection to the same file
        queued = [
            other_seat.add(NewMatch(game=1, weight="normal", factions=[NewFaction(players=["a"], rank=1)]))
            for _ in range(3)
        ]
        other_seat.mark_sent([queued[0].external_id])
        await settle(pilot, WATCH_EVERY * 1.5)
        assert pilot.app.outbox_counts == {"pending": 2, "sent": 1, "rejected": 0}
        other_seat.close()


async def test_a_ghost_taken_from_another_seat_of_this_machine_says_so_not_another_seat(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    """Two seats of one profile made *Max offline (two ghost entries of the shared file); the one sent second
    took the first one's ghost. Its row says the ghost came from this machine, not from "another seat"."""
    group = Group(demo_client)
    path = tmp_path / "outbox.db"
    scope = demo_client.scope
    max_ = await group.create_player("Max")
    box = Outbox(path, scope)
    first = box.add_ghost("Max", known=[])
    second = box.add_ghost("Max", known=[])
    box.mark_ghost_sent(first.local_id, str(max_.id))
    box.mark_ghost_sent(second.local_id, str(max_.id), taken=True)
    elsewhere = box.add_ghost("Zoe", known=[])
    zoe = await group.create_player("Zoe")  # made by a seat on another laptop
    box.mark_ghost_sent(elsewhere.local_id, str(zoe.id), taken=True)
    box.close()
    app = make_app(outbox_factory=lambda client, demo: Outbox(path, scope))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, OutboxScreen)
        reasons = {e.local_id: screen.reason_of(e) for e in screen.entries if isinstance(e, GhostEntry)}
        assert reasons[first.local_id] == ""
        assert reasons[second.local_id] == (
            "*Max was already made from this machine (another seat of this profile): its matches go to that one."
        )
        assert (
            reasons[elsewhere.local_id]
            == "*Zoe was already made by another seat: their matches go to that one."
        )
