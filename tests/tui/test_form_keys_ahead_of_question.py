"""Keys typed in the same burst as ctrl+s, ahead of a question the send then asks (the same match waiting in
the outbox, a result that contradicts itself), never answer it: they were typed before it could be seen.
They are kept. Answered "send", they go once the match is sent, as they were meant to (ctrl+r: the
rematch); answered "back", the match was not sent, so they are dropped, and the form says which keys went
unused (a ctrl+r on the form not sent would clear its results)."""

from __future__ import annotations

import pytest

from rankterm.tui.dialogs.confirm import ConfirmDialog
from tests.tui.pilot import open_form, quick_fill, send_keys, settle


async def _the_same_match_again(pilot, transport):
    """Offline, a Catan match kept in the outbox, then a rematch with the same result typed in the form."""
    screen = await open_form(pilot)
    transport.down = True
    await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert screen.last_answer is not None and screen.last_answer[0].waiting
    await pilot.press("ctrl+r")
    await settle(pilot)
    await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
    return screen


@pytest.mark.parametrize("ahead", [["ctrl+r"], ["n"], ["y"], ["escape"], ["enter"]])
async def test_keys_typed_ahead_of_the_twin_question_do_not_answer_it(make_app, demo_service, ahead):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await _the_same_match_again(pilot, transport)
        await send_keys(pilot, ["ctrl+s", *ahead], None)  # one burst: all read before the question shows
        assert isinstance(pilot.app.screen, ConfirmDialog)  # still asking
        assert len(pilot.app.session.outbox.outbox.entries()) == 1
        assert screen.form.rows[0].points_input.value == "9"


async def test_a_rematch_typed_ahead_of_the_twin_question_follows_the_send(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await _the_same_match_again(pilot, transport)
        await send_keys(pilot, ["ctrl+s", "ctrl+r"], None)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("enter")  # send anyway
        await settle(pilot)
        assert pilot.app.screen is screen
        assert len(pilot.app.session.outbox.outbox.entries()) == 2
        assert "Rematch" in screen.form.answer.text  # then the ctrl+r typed after ctrl+s
        assert screen.form.game_picker.game is not None
        assert [r.points_input.value for r in screen.form.rows] == ["", ""]


async def test_keys_typed_ahead_of_a_question_answered_back_are_dropped_and_said(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await _the_same_match_again(pilot, transport)
        await send_keys(pilot, ["ctrl+s", "ctrl+r"], None)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("escape")  # back: nothing sent
        await settle(pilot)
        assert pilot.app.screen is screen
        assert len(pilot.app.session.outbox.outbox.entries()) == 1
        assert [r.points_input.value for r in screen.form.rows] == ["9", "7"]  # not cleared by the ctrl+r
        assert "ctrl+r" in screen.form.answer.text and "not used" in screen.form.answer.text


async def test_keys_typed_ahead_of_the_contradiction_question_do_not_answer_it(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "3"), (["Ada"], 2, "9")])  # the winner scored less
        await send_keys(pilot, ["ctrl+s", "n"], None)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("enter")  # send it as typed
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert screen.form.is_blank()  # then the n typed after ctrl+s: a blank form for the next match
