"""Two seats, one new player, over a real socket: both make `*Zed` while the service is down and record a
match with him; once it is back, the group has one Zed with both matches, and the seat that came back
second says it took the Zed the other seat made.

Each seat is the app as `rankterm --profile club` builds it, with its own token cache, mirror and outbox on
disk (its own RANKTERM_* directories); the service is `rankterm serve`'s app on 127.0.0.1, stopped and
started again at the same port.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rankterm.tui.app import RanktermApp
from rankterm.tui.screens.outbox import OutboxScreen
from rankterm.wire.ids import is_local_id
from tests.e2e.conftest import club_seat, demo_on_socket, demo_reader
from tests.seat_env import use_home
from tests.support.clock import SettableClock
from tests.tui.pilot import make_ghost, open_form, record_waiting, settle

EIGHT_PM = datetime(2026, 5, 28, 20, 0, tzinfo=UTC).timestamp()


class Seats:
    """Where each seat keeps its files: switching seat points the RANKTERM_* directories at its own."""

    def __init__(self, tmp_path, monkeypatch) -> None:
        self.tmp = tmp_path
        self.env = monkeypatch

    def app(self, name: str, base_url: str, clock: SettableClock) -> RanktermApp:
        use_home(self.env, self.tmp / name)
        return club_seat(base_url, clock)


@pytest.fixture
def seats(tmp_path, monkeypatch) -> Seats:
    return Seats(tmp_path, monkeypatch)


async def send_what_waited(pilot) -> None:
    pilot.app.outbox_runner.cancel_retry()
    pilot.app.resume_sending()
    await settle(pilot)
    assert pilot.app.outbox_counts.get("pending") == 0


@pytest.mark.slow
async def test_two_seats_offline_make_one_zed_with_both_matches(seats):
    clock = SettableClock(EIGHT_PM - 2 * 3600)
    with demo_on_socket(clock) as service:
        store, base_url = service.store, service.base_url
        # 18:00, service up: each seat opens the form once (reads the group's games and players: no Zed).
        for name in ("one", "two"):
            async with seats.app(name, base_url, clock).run_test(size=(100, 30)) as pilot:
                await open_form(pilot)
                assert not pilot.app.offline

        service.stop()

        # 20:00, service down: each seat makes *Zed and records a match with him.
        clock.now = EIGHT_PM
        sent = {}
        for name, opponent in (("one", "Ada"), ("two", "Ben")):
            async with seats.app(name, base_url, clock).run_test(size=(100, 30)) as pilot:
                await open_form(pilot)
                assert pilot.app.offline
                await make_ghost(pilot, "Zed")
                [ghost] = pilot.app.outbox_runner.ghosts()
                assert is_local_id(ghost.player.id)
                sent[name] = await record_waiting(pilot, opponent, "*Zed")

        # 20:40, the service is back at the same address; seat one sends first, then seat two.
        clock.advance(40 * 60)
        service.start_again()
        async with seats.app("one", base_url, clock).run_test(size=(100, 30)) as pilot:
            await send_what_waited(pilot)
        async with seats.app("two", base_url, clock).run_test(size=(100, 30)) as pilot:
            await send_what_waited(pilot)
            # what seat two says on its Outbox: the ghost's row tells whose Zed its match went to
            await pilot.press("escape", "o")
            await settle(pilot)
            outbox = pilot.app.screen
            assert isinstance(outbox, OutboxScreen)
            ghost = outbox.entries[-1]  # the oldest entry, listed last
            assert outbox.reason_of(ghost) == (
                "*Zed was already made by another seat: their matches go to that one."
            )

    async with demo_reader(store) as group:
        zeds = [p for p in await group.players(refresh=True) if p.display_name == "*Zed"]
        matches = {m.external_id: m for m in await group.all_matches()}
    assert len(zeds) == 1  # one Zed
    for external_id in sent.values():  # with both matches, each once
        played = matches[external_id]
        assert zeds[0].id in [p.id for f in played.factions for p in f.players]
