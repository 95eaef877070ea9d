"""The same match twice in one batch: queued with ctrl+l, then typed again in the form, and ctrl+s sends both.
The form asks, as it asks about a match recorded a moment ago; Escape sends nothing, Enter sends both. Two
different results in one batch are not asked about."""

from __future__ import annotations

from rankterm.tui.dialogs.confirm import ConfirmDialog
from tests.tui.pilot import open_form, quick_fill, settle


async def test_a_queued_match_typed_again_is_asked_about_before_the_batch_goes(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        transport.down = True  # nothing recorded lately to compare with: only the batch itself
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, ""), (["Ada"], 2, "5")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        question = str(dialog.query_one("#confirm-question").render())
        assert question.startswith("Two matches of this batch look the same, Catan: ") and question.endswith(
            ") — send both?"
        )
        await pilot.press("escape")
        await settle(pilot)
        outbox = pilot.app.session.outbox.outbox
        assert outbox.entries() == []
        assert "Not sent: another match of this batch looks the same" in screen.form.answer.text
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert len(outbox.entries()) == 2


async def test_two_results_in_one_batch_are_not_asked_about(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        transport.down = True
        await quick_fill(pilot, "Catan", [(["Elena"], 1, ""), (["Ada"], 2, "")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, ""), (["Elena"], 2, "")])  # Ada won this one
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert len(pilot.app.session.outbox.outbox.entries()) == 2
