"""Seats of one profile share the outbox file: a seat shows the counts the file holds, even when another seat's
process wrote them."""

from __future__ import annotations

from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import Outbox
from rankterm.tui.outbox_runner import WATCH_EVERY
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
