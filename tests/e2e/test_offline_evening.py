"""An evening without the service, over a real socket: the seat knows its group from disk and loses nothing.

The table's story: a seat syncs once while the service is up; the service stops; the app is
restarted without it and records a four-player match with players it knows only from its mirror; the service
comes back and the match arrives once, dated when it was recorded, not when it arrived.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rankterm.tui.screens.match_entry import MatchEntryScreen
from tests.e2e.conftest import club_seat, demo_on_socket, demo_reader
from tests.support.clock import SettableClock
from tests.tui.pilot import fill_row, open_form, pick_game, settle

EIGHT_PM = datetime(2026, 5, 28, 20, 0, tzinfo=UTC).timestamp()
PLAYERS = ["Ada", "Ben", "Chiara", "Dev"]


pytestmark = pytest.mark.usefixtures("seat_home")


@pytest.mark.slow
async def test_a_match_recorded_while_the_service_is_down_arrives_once_with_its_date():
    clock = SettableClock(EIGHT_PM - 2 * 3600)
    with demo_on_socket(clock) as service:
        store, base_url = service.store, service.base_url
        # 18:00, service up: the seat opens the form once, which reads the group's games and players.
        async with club_seat(base_url, clock).run_test(size=(80, 24)) as pilot:
            await open_form(pilot)
            assert not pilot.app.offline
        before = len(await held_matches(store))

        service.stop()

        # 20:00, service down, the app started again: the form offers the group from the mirror.
        clock.now = EIGHT_PM
        app = club_seat(base_url, clock)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_form(pilot)
            assert isinstance(screen, MatchEntryScreen)
            assert {p.label for p in screen.form.players} >= set(PLAYERS)
            await pick_game(pilot, "Catan")
            while len(screen.form.rows) < len(PLAYERS):
                await screen.form.add_row()
            await settle(pilot)
            for rank, (row, name) in enumerate(zip(screen.form.rows, PLAYERS, strict=True), start=1):
                await fill_row(pilot, row, [name], rank)
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert screen.last_answer[0].waiting
            assert pilot.app.offline
            kept = pilot.app.outbox_runner.entries()
            assert len(kept) == 1 and kept[0].match.date == "2026-05-28 20:00:00"

            # 20:40, the service is back at the same address; the seat sends what waited, once.
            clock.advance(40 * 60)
            service.start_again()
            pilot.app.outbox_runner.cancel_retry()
            pilot.app.resume_sending()
            await settle(pilot)
            assert pilot.app.outbox_counts.get("sent") == 1
            pilot.app.resume_sending(force=True)  # a second send finds nothing to send
            await settle(pilot)

    held = await held_matches(store)
    arrived = [m for m in held if m.external_id == kept[0].external_id]
    assert len(arrived) == 1
    assert len(held) == before + 1
    match = arrived[0]
    assert match.date == "2026-05-28 20:00:00"
    assert match.registration_date == "2026-05-28 20:40:00"
    assert sorted(p.display_name for f in match.factions for p in f.players) == sorted(PLAYERS)
    assert [f.rank for f in sorted(match.factions, key=lambda f: f.rank)] == [1, 2, 3, 4]


async def held_matches(store) -> list:
    """Every match the service holds, read through a fresh in-process client on the same store."""
    async with demo_reader(store) as group:
        return await group.all_matches()


async def test_a_seat_that_only_looked_at_the_lists_offers_the_group_in_the_form_offline():
    """Found at the table: a seat that opened rankings and players (never the form), restarted without the
    service, offered no game and no player. The seat now reads them into its mirror once when it opens."""
    clock = SettableClock(EIGHT_PM - 2 * 3600)
    with demo_on_socket(clock) as service:
        base_url = service.base_url
        async with club_seat(base_url, clock).run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            for key in ("r", "p", "m"):
                await pilot.press(key)
                await settle(pilot)

    async with club_seat(base_url, clock).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert isinstance(screen, MatchEntryScreen)
        assert {p.label for p in screen.form.players} >= set(PLAYERS)
        await pick_game(pilot, "Catan")
        assert screen.form.game_picker.game is not None and screen.form.game_picker.game.name == "Catan"
