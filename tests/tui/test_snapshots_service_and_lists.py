"""Snapshots of login, the Service screen, games (a search typed) and players (page 2), at 80x24 and 120x40.

The demo group runs in-process with its clock frozen; each shot waits for timers and workers first.
Update with `pytest tests/tui/test_snapshots_service_and_lists.py --snapshot-update`, then LOOK at every SVG.
"""

from __future__ import annotations

import asyncio

import pytest

from rankterm.config import Config, Profile
from rankterm.mirror import Group
from tests.tui.pilot import settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def _club_config() -> Config:
    return Config(
        default_profile="club",
        profiles={
            "club": Profile(base_url="http://192.168.1.20:8765/", key="k_club", secret_env="CLUB_SECRET"),
            "online": Profile(base_url="https://api.example.org/public/api/1/", key="k_online"),
        },
    )


@pytest.mark.parametrize("size", SIZES)
def test_login(snap_compare, make_app, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("down")  # "club": the form fills in
        await settle(pilot)

    app = make_app(client=None, demo=False, config=_club_config())
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_service(snap_compare, make_app, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("d")  # from Home, the first screen
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_games_search(snap_compare, make_app, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("slash", "c", "a")
        await settle(pilot, 0.5)  # past the 300 ms search timer

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_players_page_2(snap_compare, make_app, demo_service, size):
    async def add_guests() -> None:
        async with Group(demo_service.client()) as group:
            for n in range(20):
                await group.create_player(f"Guest {n:02d}")

    asyncio.run(add_guests())

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
