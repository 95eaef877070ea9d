"""Snapshots at 80x24 of what tells counts and words as they are: the matches screen's subset list open (as wide as
its longest label), Stats > Tonight with long names, a player's page, the offline status line.

The demo group runs in-process with its clock frozen. Update with `--snapshot-update`, then LOOK at every SVG.
"""

from __future__ import annotations

import asyncio

from rankterm.mirror import Group
from rankterm.tui.widgets.stats.tonight import TonightView
from rankterm.wire.models import NewFaction, NewMatch
from tests.tui.pilot import make_ghost, settle

SIZE = (80, 24)


def test_matches_subset_list_open(snap_compare, make_app):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("s", "enter")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_tonight_long_names(snap_compare, make_app, demo_service):
    async def seed() -> None:
        async with Group(demo_service.client()) as group:
            tia = await group.create_player("Tia Montgomery-Smith")
            tom = await group.create_player("Tom Wójcik-Kowalski")
            ada = next(p for p in await group.players() if p.label == "Ada")
            catan = next(g for g in await group.games() if g.name == "Catan")
            await group.add_matches(
                NewMatch(
                    game=catan.id,
                    weight="normal",
                    date="2026-05-27 23:00:00",
                    factions=[
                        NewFaction(players=[tia.id], rank=1),
                        NewFaction(players=[tom.id], rank=1),
                        NewFaction(players=[ada.id], rank=3),
                    ],
                )
            )

    asyncio.run(seed())

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("s", "4")
        await settle(pilot)
        pilot.app.screen.query_one(TonightView).choose("night")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_players_offline_with_a_ghost_not_sent_yet(snap_compare, make_app, demo_service):
    """The offline line at 80 columns (the count, the time, briefly what becomes of a match) over the players
    list, where *Max, made offline, stands by name."""
    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        transport.down = True
        await make_ghost(pilot, "Max")
        await pilot.press("f5")
        await settle(pilot)

    assert snap_compare(make_app(client=group), terminal_size=SIZE, run_before=run_before)
