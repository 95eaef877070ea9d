"""A match another seat queued in the shared outbox while the service was away, and then left (its connection
dropped, its process killed), is sent by a seat still at the table once it is online, with no key pressed."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox
from rankterm.tui import outbox_runner
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import settle


async def test_a_match_left_pending_by_a_seat_that_went_is_sent_by_a_seat_still_here(
    make_app, demo_client: RankingClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outbox_runner, "ADOPT_EVERY", 0.5)
    group = Group.of(demo_client)
    players = {p.display_name: p.id for p in await group.players()}
    catan = next(g.id for g in await group.games() if g.name == "Catan")
    path = tmp_path / "outbox.db"
    app = make_app(outbox_factory=lambda client, demo: Outbox(path, client.scope, seat="here"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        gone = Outbox(path, demo_client.scope, seat="gone")  # queued while offline, then the seat went
        gone.add(
            NewMatch(
                game=catan,
                weight="normal",
                external_id="left-behind-1",
                factions=[
                    NewFaction(players=[players["Ada"]], rank=1),
                    NewFaction(players=[players["Ben"]], rank=2),
                ],
            )
        )
        gone.close()
        await settle(pilot, 3.0)
        assert await demo_client.match_exists("left-behind-1")
        assert pilot.app.outbox_counts["pending"] == 0
