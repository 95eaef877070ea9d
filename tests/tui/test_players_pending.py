"""Ghosts made while the service cannot be reached are listed where their names belong (the house's name
rule, `wire.text.fold_name`), on the seat that made them and on another seat of the same profile, and the
players' count holds them; the demo group in-process, its network cut for real."""

from __future__ import annotations

import httpx
from textual.widgets import DataTable

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror
from rankterm.wire.ids import is_local_id
from rankterm.wire.text import fold_name
from tests.support.faults import FaultyTransport

from .conftest import DEMO_URL, frozen_clock
from .pilot import make_ghost, settle


def seat(demo_service, mirror: Mirror) -> tuple[RankingClient, FaultyTransport]:
    transport = FaultyTransport(httpx.ASGITransport(app=demo_service.asgi))
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    group = Group(
        RankingClient(
            DEMO_URL,
            key=demo_service.key,
            secret=demo_service.secret,
            http=http,
            clock=frozen_clock,
            retries=0,
            backoff=0,
        ),
        mirror=mirror,
    )
    return group, transport


def listed(pilot) -> list[str]:
    table = pilot.app.screen.query_one("#players-table", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def caption(pilot) -> str:
    return str(pilot.app.screen.query_one("#players-caption").render())


def in_order(names: list[str]) -> bool:
    keys = [fold_name(n) for n in names]
    return keys == sorted(keys)


async def test_a_ghost_made_offline_is_listed_where_its_name_belongs_on_both_seats(
    make_app, demo_service, tmp_path
):
    group, transport = seat(demo_service, Mirror(tmp_path / "mirror.db"))
    async with make_app(client=group).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        before = listed(pilot)
        assert in_order(before) and len(before) == 10
        transport.down = True
        await make_ghost(pilot, "Max")
        assert any(is_local_id(p.id) for p in group.cached_players())  # not made yet: held by the seat
        await pilot.press("f5")
        await settle(pilot)
        names = listed(pilot)
        assert "*Max" in names and len(names) == 11 and in_order(names)
        assert "11 players" in caption(pilot)

    other, other_transport = seat(demo_service, Mirror(tmp_path / "mirror.db"))  # the profile's other seat
    other_transport.down = True
    async with make_app(client=other).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        names = listed(pilot)
        assert "*Max" in names and in_order(names) and names[-1] != "*Max"
        assert "11 players" in caption(pilot)
