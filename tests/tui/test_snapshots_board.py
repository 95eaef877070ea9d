"""Snapshots of the scoreboard (`rankterm board`), at 80x24 and 120x40, on the demo group.

Time is frozen (the demo service's clock and the client's), so every shot is deterministic: the board at rest
on the demo's last match, and the board's turn on a game's standings just after another seat recorded a match
of that game.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from rankterm.mirror import Group
from rankterm.tui.screens.board import BoardScreen
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


async def at_rest(pilot: Pilot) -> None:
    await settle(pilot)


def games_turn(other_seat) -> Callable[[Pilot], Awaitable[None]]:
    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        ids = {p.display_name: p.id for p in await Group.of(other_seat).players()}
        duel = next(g for g in await Group.of(other_seat).games() if g.name == "7 Wonders Duel")
        answer = await other_seat.add_matches(
            NewMatch(
                game=duel.id,
                weight="normal",
                external_id="seat-2-0001",
                factions=[
                    NewFaction(players=[ids["Farid"]], rank=1, points="71"),
                    NewFaction(players=[ids["Ben"]], rank=2, points="58"),
                ],
            )
        )
        assert answer.accepted_count == 1
        await other_seat.aclose()
        pilot.app.group_changed()  # what the live probe calls when it notices the match
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, BoardScreen) and len(screen.views) == 2
        screen.flip()  # the cycle's turn on the game's standings
        await settle(pilot)

    return run


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_board_at_rest(size, make_app, snap_compare):
    assert snap_compare(make_app(home="board", kiosk=True), terminal_size=size, run_before=at_rest)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_board_games_turn(size, make_app, demo_service, snap_compare):
    app = make_app(home="board", kiosk=True)
    assert snap_compare(app, terminal_size=size, run_before=games_turn(demo_service.client()))


async def newcomers_tie(pilot: Pilot) -> None:
    """Two newcomers tie their first match: one place for both, and their boxes show the ree they entered
    with (from `TALL` rows)."""
    group = pilot.app.group
    tia, tom = await group.create_player("Tia"), await group.create_player("Tom")
    catan = next(g for g in await group.games() if g.name == "Catan")
    await group.add_matches(
        NewMatch(
            game=catan.id,
            weight="normal",
            external_id="seat-2-0002",
            factions=[NewFaction(players=[tia.id], rank=1), NewFaction(players=[tom.id], rank=1)],
        )
    )
    pilot.app.group_changed()
    await settle(pilot)


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")])
def test_snapshot_board_newcomers_tie(size, make_app, snap_compare):
    assert snap_compare(make_app(home="board", kiosk=True), terminal_size=size, run_before=newcomers_tie)
