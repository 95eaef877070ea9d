"""A seat that is gone leaves its form and queued matches in its draft. A guest seat does not take them up:
another seat's unsent matches are not a guest's to drop (ctrl+n, Delete) or change, as in the outbox. The
host's own app takes them up at its next `n`."""

from __future__ import annotations

from rankterm.tui.widgets.match_form.draft import DRAFT_EVERY
from tests.tui.pilot import open_form, quick_fill, settle


async def test_a_guest_seat_does_not_take_up_another_seats_queued_matches(make_app, demo_service):
    async with make_app(client=demo_service.client(), guest=True).run_test(size=(80, 24)) as pilot:
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        await pilot.press("ctrl+l")
        await settle(pilot, DRAFT_EVERY * 2)
    # that guest's connection dropped: its match queued, not sent
    async with make_app(client=demo_service.client(), guest=True).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert screen.queue == [] and screen.offered is None
        assert "queued match" not in screen.form.answer.text
    async with make_app(client=demo_service.client()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert [p.label for p in screen.queue] and "back in the queue" in screen.form.answer.text
