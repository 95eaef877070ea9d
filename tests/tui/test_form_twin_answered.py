"""A match the form asked about as the same as one recorded a moment ago, sent anyway while the service was
gone: the outbox sends it when the service is back, without holding it for the same question again (it holds
it only for a match recorded since that looks the same)."""

from __future__ import annotations

from rankterm.outbox.outbox import State
from rankterm.tui.dialogs.confirm import ConfirmDialog
from tests.tui.pilot import match_count, open_form, quick_fill, settle


async def test_a_twin_answered_in_the_form_is_not_asked_again_by_the_outbox(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        transport.down = True
        await pilot.press("ctrl+r")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])  # the very same again
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)  # the same match, asked about
        await pilot.press("enter")  # send anyway: the table did play it twice
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer[0].waiting
        kept = screen.last_answer[0].external_id
        before = await match_count(pilot)
        transport.down = False
        pilot.app.resume_sending()
        await settle(pilot)
        entry = pilot.app.session.outbox.outbox.get(kept)
        assert entry is not None and not entry.held and entry.state is State.SENT
        assert await match_count(pilot) == before + 1
        assert "accepted" in screen.form.answer.text
