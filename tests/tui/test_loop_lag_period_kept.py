"""A period's standings on the Rankings screen (the whole group's) are those the Seasons screen keeps: worked
out once while the period's matches stay the same, not replayed at each pick (a year of a big group is 33,000
matches read and replayed in a thread, with the collections that follow, each time it was picked)."""

from __future__ import annotations

from rankterm.stats import seasons
from rankterm.tui.screens.rankings import RankingsScreen
from tests.tui.pilot import settle


async def test_a_period_picked_again_is_not_worked_out_again(make_app, monkeypatch) -> None:
    replays: list[str] = []
    real = seasons.season_of_parts

    def counted(parts, period, zone):
        replays.append(period.name)
        return real(parts, period, zone)

    monkeypatch.setattr(seasons, "season_of_parts", counted)  # kept's too: it imports it at its first period
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, RankingsScreen)
        shown = []
        for key in ("2026-Q1", "", "2026-Q1"):
            screen.period_picker.value = key
            await settle(pilot)
            shown.append(screen.season)
    first, all_time, again = shown
    assert first is not None and first.rows and all_time is None
    assert again == first
    assert replays == ["2026-Q1"]  # the second pick found it kept
