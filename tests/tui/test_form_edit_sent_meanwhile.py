"""A match loaded from the outbox into the form (e) that the outbox sends meanwhile (the service came back):
sending the form then records nothing a second time, says why in one sentence, and keeps the form as typed."""

from __future__ import annotations

from rankterm.outbox.outbox import State
from rankterm.tui.screens.match_entry import MatchEntryScreen
from tests.tui.pilot import fix_from_the_outbox, match_count, record_waiting, settle


async def _edit_then_sent_meanwhile(pilot, transport, new_id: str | None) -> MatchEntryScreen:
    """Record a match while the service is gone, open it from the outbox in the form (e), fix its points
    (and its external id, when `new_id`), then the service answers again and the outbox sends the entry as
    it stood; the form, still showing the fix."""
    transport.down = True
    kept = await record_waiting(pilot, "Elena", "Ada")
    screen = await fix_from_the_outbox(pilot)
    assert screen.sender.editing == kept
    screen.form.rows[0].points_input.value = "10"
    if new_id is not None:
        screen.form.field("external-id").value = new_id
    transport.down = False
    pilot.app.resume_sending()
    await settle(pilot)
    assert pilot.app.session.outbox.outbox.get(kept).state is State.SENT
    return screen


async def test_a_fix_under_a_new_id_of_a_match_sent_meanwhile_is_not_recorded_twice(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _edit_then_sent_meanwhile(pilot, transport, "fixed-1")
        before = await match_count(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert await match_count(pilot) == before
        assert pilot.app.session.outbox.outbox.get("fixed-1") is None
        text = screen.form.answer.text
        assert "already sent" in text
        assert screen.form.rows[0].points_input.value == "10"  # nothing typed is lost
        assert screen.form.field("external-id").value == "fixed-1"
        assert [n.message for n in pilot.app._notifications if n.severity == "error"] == []


async def test_a_fix_under_the_same_id_of_a_match_sent_meanwhile_is_not_recorded_twice(
    make_app, demo_service
):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _edit_then_sent_meanwhile(pilot, transport, None)
        before = await match_count(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert await match_count(pilot) == before
        assert "already sent" in screen.form.answer.text
        assert screen.form.rows[0].points_input.value == "10"


async def test_a_kept_match_of_this_form_fixed_from_the_outbox_replaces_its_entry(make_app, demo_service):
    """The form sent it while the service was gone (kept), then e on it in the outbox: the fix goes out under
    the same external id, in the entry's place, not refused as an id this form already used."""
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transport.down = True
        kept = await record_waiting(pilot, "Elena", "Ada")
        screen = await fix_from_the_outbox(pilot)
        screen.form.rows[0].points_input.value = "10"
        await pilot.press("ctrl+s")
        await settle(pilot)
        problem = str(screen.form.query_one("#form-problem").render())
        assert "already used" not in problem
        outbox = pilot.app.session.outbox.outbox
        assert [e.external_id for e in outbox.entries()] == [kept]
        assert outbox.get(kept).match.factions[0].points == "10"
        assert screen.last_answer is not None and screen.last_answer[0].waiting
