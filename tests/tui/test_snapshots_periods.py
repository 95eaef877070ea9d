"""Snapshots at 80x24 of the standings of a period: the Rankings screen on a calendar quarter and on a season
the config names, and the board of a season with its line of what changed tonight (demo group, frozen clock:
2026-05-28)."""

from __future__ import annotations

from datetime import datetime

from textual.pilot import Pilot

from rankterm.config import Config, NamedSeason
from rankterm.stats.seasons import Period
from tests.tui.pilot import settle

SPRING = NamedSeason("Spring league", datetime(2026, 3, 1), datetime(2026, 6, 1))
SPRING_PERIOD = Period(SPRING.name, SPRING.start, SPRING.end)


async def choose(pilot: Pilot, label: str) -> None:
    await pilot.press("r")
    await settle(pilot)
    picker = pilot.app.screen.period_picker
    picker.value = next(key for key, choice in picker._choices.items() if choice.label == label)
    await settle(pilot)


def test_rankings_of_a_quarter_80x24(make_app, snap_compare):
    async def run_before(pilot: Pilot) -> None:
        await choose(pilot, "2026-Q1")

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)


def test_rankings_of_a_named_season_80x24(make_app, snap_compare):
    async def run_before(pilot: Pilot) -> None:
        await choose(pilot, "Spring league")

    assert snap_compare(
        make_app(config=Config(seasons=(SPRING,))), terminal_size=(80, 24), run_before=run_before
    )


def test_board_of_a_season_with_tonight_80x24(make_app, demo_service, snap_compare):
    """The bar names the season; three duels recorded tonight by another seat make the line of what changed."""
    from tests.tui.test_board import record_duel

    async def run_before(pilot: Pilot) -> None:
        other = demo_service.client()
        for n in range(3):
            await record_duel(other, "Farid", "Ada", f"tonight-{n}")
        await other.aclose()
        pilot.app.group_changed()
        await settle(pilot)

    app = make_app(home="board", kiosk=True, config=Config(seasons=(SPRING,)))
    app.board_period = SPRING_PERIOD
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
