"""Quitting: q (or ctrl+q) with a filled match form or matches pending in the outbox asks first, naming how many
are pending; n keeps the app. With nothing unsent it quits at once."""

from __future__ import annotations

from textual.widgets import Static

from rankterm.tui.dialogs.confirm import ConfirmDialog

from .pilot import catan_duel, open_form, quick_fill, settle


def question(dialog: ConfirmDialog) -> str:
    return str(dialog.query_one("#confirm-question", Static).render())


async def test_quit_with_a_filled_form_asks_and_n_keeps_the_app(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        await app.switch_mode("service")  # the form is kept in its mode while another screen is shown
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert "new match form" in question(app.screen)
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmDialog)
        assert not app._exit
        assert app.current_mode == "service"
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert app._exit


async def test_quit_with_a_pending_outbox_entry_names_it(make_app, demo_service):
    client, transport = demo_service.downable_client()
    app = make_app(client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        match = await catan_duel(client, app.new_external_id())
        transport.down = True
        await app.record_matches([match])
        await settle(pilot)
        assert app.outbox_counts.get("pending") == 1
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert "1 match is still pending in the outbox" in question(app.screen)
        await pilot.press("n")
        await settle(pilot)
        assert not app._exit
        app.outbox_runner.cancel_retry()


async def test_quit_with_nothing_unsent_exits_at_once(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_form(pilot)  # an empty form holds nothing to lose
        await app.switch_mode("service")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmDialog)
        assert app._exit
