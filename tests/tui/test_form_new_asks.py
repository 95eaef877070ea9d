"""ctrl+n (a blank form) asks before it drops a result typed and not recorded, as it asks before dropping
queued matches; a blank form, a form just recorded, or one a rematch filled with nothing typed since goes
without a question."""

from __future__ import annotations

from rankterm.tui.dialogs.confirm import ConfirmDialog
from tests.tui.pilot import (
    e_in_the_outbox,
    fix_from_the_outbox,
    open_form,
    quick_fill,
    record_waiting,
    send_keys,
    settle,
)


async def test_ctrl_n_asks_before_dropping_a_typed_result(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        assert "not sent" in pilot.app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert screen.form.game_picker.game is not None
        assert [r.points_input.value for r in screen.form.rows] == ["9", "7"]
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.screen is screen and screen.form.is_blank()
        assert screen.form.game_picker.input.has_focus


async def test_ctrl_n_names_both_the_typed_result_and_the_queue(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        screen.form.rows[0].points_input.value = "11"
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        question = pilot.app.screen.question
        assert "1 queued match" in question and "the match typed" in question


async def test_ctrl_n_goes_at_once_when_nothing_typed_would_be_lost(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await pilot.press("ctrl+n")  # blank
        await settle(pilot)
        assert pilot.app.screen is screen
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        await pilot.press("ctrl+r")  # the rematch fills game and players: nothing typed yet
        await settle(pilot)
        assert screen.form.game_picker.game is not None
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert pilot.app.screen is screen and screen.form.is_blank()
        await quick_fill(pilot, "Catan", [(["Ben"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("ctrl+n")  # just recorded
        await settle(pilot)
        assert pilot.app.screen is screen and screen.form.is_blank()


async def test_keys_typed_with_ctrl_n_do_not_answer_its_question(make_app):
    """`^n y a h …` in one burst: the y was typed before the question showed, so it drops nothing; the
    keys go to the blank form once the person says drop."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await send_keys(pilot, ["ctrl+n", "y", "a"], None)
        assert isinstance(pilot.app.screen, ConfirmDialog)  # still asking
        assert [r.points_input.value for r in screen.form.rows] == ["9", "7"]
        await pilot.press("y")
        await settle(pilot)
        assert screen.form.is_blank() is False  # the keys typed ahead went to the blank form's game field
        assert screen.form.game_picker.text == "ya"


async def test_ctrl_n_on_an_outbox_entry_loaded_to_fix_goes_at_once(make_app, demo_service):
    """The entry stays in the outbox as it was: a blank form loses nothing of it."""
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transport.down = True
        kept = await record_waiting(pilot, "Elena", "Ada")
        screen = await fix_from_the_outbox(pilot)
        assert screen.form.game_picker.game is not None
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert pilot.app.screen is screen and screen.form.is_blank()
        assert pilot.app.session.outbox.outbox.get(kept) is not None


async def test_e_on_an_outbox_entry_asks_before_replacing_a_typed_result(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transport.down = True
        kept = await record_waiting(pilot, "Elena", "Ada")
        screen = pilot.app.screen
        await pilot.press("n")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Ben"], 1, "12"), (["Dev"], 2, "3")])  # the next match, typed
        await e_in_the_outbox(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert [r.points_input.value for r in screen.form.rows][:2] == ["12", "3"]  # kept as typed
        await e_in_the_outbox(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert screen.sender.editing == kept
        assert [r.points_input.value for r in screen.form.rows][:2] == ["9", "7"]
