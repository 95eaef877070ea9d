"""The service comes back, over a real socket: the outbox empties because the service answers, not because a
retry's delay ran out.

The table's story: a seat records a match while `rankterm serve` is stopped and stays on the match form (the
live probe rests there); the service is started again at the same address. The runner's retries are set an
hour apart here, so only the seat noticing the answer (its knock while the service cannot be reached) can
send the match: it arrives once.
"""

from __future__ import annotations

import asyncio

import pytest

from rankterm.tui import outbox_runner
from tests.e2e.conftest import club_seat, demo_on_socket
from tests.support.clock import SettableClock
from tests.tui.pilot import open_form, quick_fill, settle

HOUR = 3600.0
PATIENCE = 60.0
"""Seconds the test waits for the outbox at most (it takes a few; the retries would take an hour)."""


pytestmark = pytest.mark.usefixtures("seat_home")


async def test_a_seat_on_the_form_sends_its_outbox_when_the_service_answers_again(monkeypatch):
    monkeypatch.setattr(outbox_runner, "RETRY_DELAYS", (HOUR,))
    clock = SettableClock()
    with demo_on_socket(clock) as service:
        app = club_seat(service.base_url, clock)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_form(pilot)
            await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
            service.stop()
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert screen.last_answer is not None and screen.last_answer[0].waiting
            assert app.offline and app.outbox_counts["pending"] == 1
            external_id = app.outbox_runner.entries()[0].external_id

            service.start_again()
            waited = 0.0
            while app.outbox_counts.get("pending") and waited < PATIENCE:
                await asyncio.sleep(0.1)
                waited += 0.1
            await settle(pilot)
            assert app.outbox_counts == {"pending": 0, "sent": 1, "rejected": 0}
            assert not app.offline
            assert app.screen is screen  # still on the form: nothing moved the seat
    assert service.store.match_exists(1, external_id)
