"""The match form's sentences say what happened, truthfully: where a twin match came from (this seat, another
seat of this computer, or another seat: the service says no more), nothing said behind a question before it
is answered, and a date that cannot be read explained in the seat's own zone."""

from __future__ import annotations

import pytest

from rankterm.client.client import RankingClient
from rankterm.config import Config
from rankterm.outbox.outbox import Outbox
from rankterm.tui.dialogs.confirm import ConfirmDialog
from tests.support.clock import T0, SettableClock

from .conftest import DEMO_URL
from .pilot import date_refused, open_form, quick_fill, settle


@pytest.fixture
def clock() -> SettableClock:
    return SettableClock(T0)


@pytest.fixture
def seat(clock):
    from rankterm.server.seed import demo_app  # only tests may reach the server package

    asgi, key, secret = demo_app(clock=clock)
    return lambda: RankingClient.in_process(asgi, key=key, secret=secret, base_url=DEMO_URL, clock=clock)


def question(pilot) -> str:
    dialog = pilot.app.screen
    assert isinstance(dialog, ConfirmDialog)
    return str(dialog.query_one("#confirm-question").render())


async def test_a_twin_sent_by_another_seat_of_this_computer_is_not_said_to_be_this_seats(
    make_app, seat, clock, tmp_path
):
    """Two seats of one profile on one computer share the outbox: the second seat's question names the
    first as another seat of this computer, and says nothing behind the question before it is answered."""

    def shared(client: RankingClient, demo: bool) -> Outbox:
        return Outbox(tmp_path / "outbox.db", scope=client.scope)  # one file, as two seats of a profile

    async with make_app(client=seat(), outbox_factory=shared).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        number = (await pilot.app.group.matches_page(1)).data[0].number
    clock.advance(3)
    async with make_app(client=seat(), outbox_factory=shared).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert question(pilot) == (
            f"Match {number}, recorded 3 s ago from another seat of this computer, looks the same — send anyway?"
        )
        assert "Not sent" not in screen.form.answer.text
        await pilot.press("escape")
        await settle(pilot)
        assert screen.form.answer.text == f"Not sent: match {number} looks the same. ctrl+s asks again."


async def test_a_date_that_cannot_be_read_is_explained_in_the_seats_zone(make_app):
    async with make_app(config=Config(timezone="Europe/Paris")).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        problem = await date_refused(pilot, screen, "2026-13-45 99:99")
        assert "(UTC)" not in problem
        assert problem == (
            "✘ The date cannot be read: write it as YYYY-MM-DD HH:MM (Paris time), or leave it empty for now."
        )
