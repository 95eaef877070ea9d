"""A match is dated when it is recorded, not when it reaches the service."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from tests.support.clock import SettableClock
from tests.support.faults import FaultyTransport

from .conftest import DEMO_URL
from .pilot import date_refused, open_form, quick_fill, settle

EIGHT_PM = datetime(2026, 5, 28, 20, 0, tzinfo=UTC).timestamp()


async def test_recorded_offline_at_20_00_sent_at_20_40_is_dated_20_00(make_app):
    clock = SettableClock(EIGHT_PM - 3600)
    store = demo_store(clock=clock)
    transport = FaultyTransport(httpx.ASGITransport(app=create_app(store, clock=clock)))
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    group = Group(
        RankingClient(DEMO_URL, key=DEMO_KEY, secret=DEMO_SECRET, http=http, clock=clock, retries=0)
    )
    async with make_app(client=group).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        clock.now = EIGHT_PM  # the form stayed open an hour: "now" is when it is recorded
        assert screen.has_unsent_input()
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer[0].waiting and not screen.has_unsent_input()
        kept = pilot.app.outbox_runner.entries()[0]
        assert kept.match.date == "2026-05-28 20:00:00"

        clock.advance(40 * 60)
        transport.down = False
        pilot.app.outbox_runner.cancel_retry()
        pilot.app.resume_sending()
        await settle(pilot)
        assert pilot.app.outbox_counts["sent"] == 1
        newest = (await group.matches_page(1)).data[0]
        assert newest.external_id == kept.external_id
        assert newest.date == "2026-05-28 20:00:00"
        assert newest.registration_date == "2026-05-28 20:40:00"


async def test_a_date_that_cannot_be_read_is_one_sentence_and_nothing_is_lost(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        problem = await date_refused(pilot, screen, "2026-13-45")
        assert problem.count("✘") == 1 and "The date cannot be read" in problem
        date = screen.form.field("date")
        assert date.has_class("-invalid") and date.value == "2026-13-45"
        assert [r.points_input.value for r in screen.form.rows] == ["9", "7"]
        date.value = "2026-05-27 21:15"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer[0].accepted
        sent = screen.last_answer[0]
        held = [m for page in (1, 2) for m in (await pilot.app.group.matches_page(page)).data]
        recorded = next(m for m in held if sent.external_id and m.external_id == sent.external_id)
        assert recorded.date == "2026-05-27 21:15:00"


async def test_a_send_in_flight_is_known(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        runner = pilot.app.outbox_runner
        seen = []
        inner = runner.sender.send_pending

        async def watching(**kw):
            seen.append(runner.sending)
            return await inner(**kw)

        runner.sender.send_pending = watching
        assert not runner.sending
        await runner.send()
        assert seen == [True] and not runner.sending
