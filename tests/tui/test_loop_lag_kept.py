"""Screens that read what the mirror keeps (`stats.kept`) instead of walking a big group's whole history again
in a worker beside the loop: Seasons rates each past period once while its matches stay the same; the
scoreboard's tonight line reads the kept story's events since then; a big group's kept reads run with the
cyclic collector paused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rankterm.stats import kept, seasons
from rankterm.tui.screens.board import BoardScreen
from rankterm.tui.screens.seasons import SeasonsScreen
from rankterm.wire.localtime import UTC_ZONE
from tests.tui.conftest import FROZEN_NOW
from tests.tui.pilot import settle


async def test_seasons_rates_each_period_once_and_not_again_when_shown_again(make_app, monkeypatch) -> None:
    rated: list[str] = []
    real = seasons.season_of_parts

    def spy(parts, period, zone):  # type: ignore[no-untyped-def]
        rated.append(period.name)
        return real(parts, period, zone)

    monkeypatch.setattr(seasons, "season_of_parts", spy)  # kept imports it at its first period
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.app.switch_mode("seasons")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SeasonsScreen)
        months = list(rated)
        await pilot.press("2")
        await settle(pilot)
        quarters = rated[len(months) :]
        rated.clear()
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        again = list(rated)
    assert months and quarters and len(months) == len(set(months))
    assert {s.period.name for s in screen.roll} == set(quarters)
    assert again == []  # the periods' standings were kept: nothing rated again


async def test_the_boards_tonight_line_reads_the_kept_storys_events_since_then(make_app, monkeypatch) -> None:
    asked: list[str | None] = []
    real = kept.held_changes

    def spy(group, since=None):  # type: ignore[no-untyped-def]
        asked.append(since)
        return real(group, since)

    monkeypatch.setattr(kept, "held_changes", spy)
    app = make_app(home="board", kiosk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, BoardScreen)
    since = datetime.fromtimestamp(FROZEN_NOW, UTC) - timedelta(hours=12)
    assert asked and set(asked) == {since.strftime("%Y-%m-%d %H:%M:%S")}  # only the evening's events


async def test_a_big_groups_kept_reads_run_with_no_collection_and_stay_frozen(
    demo_service, monkeypatch, pythons_collector
) -> None:
    import gc

    from rankterm.mirror import Group
    from rankterm.stats import compact, source

    monkeypatch.setattr(source, "KEPT_AT_LEAST", 100)  # the demo's 300 matches count as a big group
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    async with Group(demo_service.client()) as group:
        await source.sync_group(group)
        player = source.held_matches(group)[-1].factions[0].players[0].id
        gc.callbacks.append(note)
        try:
            frozen = gc.get_freeze_count()
            read = [
                compact.player_matches(group, str(player)),
                compact.game_matches(group, source.held_matches(group)[-1].game.id),  # type: ignore[union-attr]
                kept.kept_story(group).events,
                kept.kept_roll(group, "month", UTC_ZONE, datetime(2030, 1, 1)),
            ]
            during = list(seen)
            assert gc.get_freeze_count() > frozen  # kept out of every later collection's walk
        finally:
            gc.callbacks.remove(note)
            gc.unfreeze()
    assert all(read) and during == []
    assert gc.isenabled()
