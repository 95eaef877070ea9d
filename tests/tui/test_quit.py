"""Quitting: q (or ctrl+q) with a filled match form or matches pending in the outbox asks first, naming how many
are pending; n keeps the app. With nothing unsent it quits at once."""

from __future__ import annotations

import httpx
from textual.widgets import Static

from rankterm.api.client import RankingClient
from rankterm.api.models import NewFaction, NewMatch, Weight
from rankterm.testing.faults import FaultyTransport
from rankterm.tui.dialogs.confirm import ConfirmDialog

from .conftest import DEMO_URL, DemoService, frozen_clock
from .pilot import open_form, quick_fill, settle


def question(dialog: ConfirmDialog) -> str:
    return str(dialog.query_one("#confirm-question", Static).render())


async def test_quit_with_a_filled_form_asks_and_n_keeps_the_app(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        await app.switch_mode("dashboard")  # the form is kept in its mode while another screen is shown
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert "new match form" in question(app.screen)
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmDialog)
        assert not app._exit
        assert app.current_mode == "dashboard"
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert app._exit


def downable_client(service: DemoService) -> tuple[RankingClient, FaultyTransport]:
    transport = FaultyTransport(httpx.ASGITransport(app=service.asgi))
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    client = RankingClient(
        DEMO_URL, key=service.key, secret=service.secret, http=http, clock=frozen_clock, retries=0, backoff=0
    )
    return client, transport


async def test_quit_with_a_pending_outbox_entry_names_it(make_app, demo_service):
    client, transport = downable_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        players = {p.display_name: p.id for p in await client.players()}
        catan = next(g for g in await client.games() if g.name == "Catan")
        transport.down = True
        match = NewMatch(
            game=catan.id,
            weight=Weight.NORMAL,
            external_id=app.new_external_id(),
            factions=[
                NewFaction(players=[players["Ada"]], rank=1),
                NewFaction(players=[players["Ben"]], rank=2),
            ],
        )
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
        await app.switch_mode("dashboard")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmDialog)
        assert app._exit
