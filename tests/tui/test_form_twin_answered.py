"""A match the form asked about as the same as one recorded a moment ago, sent anyway while the service was
gone: the outbox sends it when the service is back, without holding it for the same question again (it holds
it only for a match recorded since that looks the same)."""

from __future__ import annotations

from rankterm.mirror import Group, Mirror
from rankterm.outbox.outbox import Outbox, State
from rankterm.tui.dialogs.confirm import ConfirmDialog
from tests.tui.pilot import make_ghost, match_count, open_form, quick_fill, record_waiting, settle


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


async def test_a_twin_answered_in_the_form_is_not_asked_again_after_a_restart(
    make_app, demo_service, tmp_path
):
    """The answer is kept with the outbox entry: a seat started again sends the match when the service is
    back, without holding it for the same question."""
    path = tmp_path / "outbox.db"

    def outbox(client, demo):
        return Outbox(path, client.scope)

    def seat():  # the profile's mirror and outbox on disk, its network cut at will
        client, transport = demo_service.downable_client()
        return Group(client, Mirror(tmp_path / "mirror.db")), transport

    group, transport = seat()
    async with make_app(client=group, outbox_factory=outbox).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        before = await match_count(pilot)
        transport.down = True
        await pilot.press("ctrl+r")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer[0].waiting
        kept = screen.last_answer[0].external_id
    group, transport = seat()
    async with make_app(client=group, outbox_factory=outbox).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pilot.app.resume_sending()
        await settle(pilot)
        entry = pilot.app.session.outbox.outbox.get(kept)
        assert entry is not None and not entry.held and entry.state is State.SENT
        assert await match_count(pilot) == before + 1


async def test_a_match_answered_as_not_the_one_waiting_in_the_outbox_is_not_held_for_it(
    make_app, demo_service
):
    """Both recorded while the service was gone, the second asked about as the same as the first and sent
    anyway, a ghost made between them: when the service is back the first is sent, then the ghost, and the
    second is not held as the first's twin."""
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transport.down = True
        first = await record_waiting(pilot, "Elena", "Ada")
        await make_ghost(pilot, "Zoe")  # sent on its own, between the two matches
        screen = await open_form(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        assert "waiting in the outbox" in pilot.app.screen.question
        await pilot.press("enter")
        await settle(pilot)
        second = screen.last_answer[0].external_id
        assert second != first
        before = await match_count(pilot)
        transport.down = False
        pilot.app.resume_sending()
        await settle(pilot)
        outbox = pilot.app.session.outbox.outbox
        assert [outbox.get(ext).state for ext in (first, second)] == [State.SENT, State.SENT]
        assert await match_count(pilot) == before + 2
