"""The same match sent twice while the service is gone: the first waits in the outbox (the group's matches
on this machine do not have it yet), and the form asks about the second as it asks about a match recorded a
moment ago; Escape keeps the form and sends nothing, Enter sends it anyway."""

from __future__ import annotations

from rankterm.tui.dialogs.confirm import ConfirmDialog
from tests.tui.pilot import open_form, quick_fill, settle


async def test_the_same_match_kept_in_the_outbox_a_moment_ago_is_asked_about(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        transport.down = True
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer[0].waiting
        await pilot.press("ctrl+r")  # the rematch, and ctrl+s before a result was typed: the same match
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, ""), (["Ada"], 2, "5")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        question = str(dialog.query_one("#confirm-question").render())
        assert (
            question
            == "A match waiting in the outbox, recorded just now from this seat, looks the same — send anyway?"
        )
        await pilot.press("escape")
        await settle(pilot)
        outbox = pilot.app.session.outbox.outbox
        assert len(outbox.entries()) == 1
        assert "Not sent: the match waiting in the outbox looks the same" in screen.form.answer.text
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert len(outbox.entries()) == 2


async def test_another_result_than_the_kept_match_is_not_asked_about(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        transport.down = True
        await quick_fill(pilot, "Catan", [(["Elena"], 1, ""), (["Ada"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, ""), (["Elena"], 2, "")])  # Ada won this one
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert len(pilot.app.session.outbox.outbox.entries()) == 2
