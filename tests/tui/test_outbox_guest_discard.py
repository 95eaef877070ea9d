"""On a guest seat's Outbox screen, `x` (discard) and `e` (edit) on an entry another seat queued say why it stays
and open nothing; on the seat's own entry `x` asks, as on the host's app, and a yes forgets it. The form given
another seat's external id sends nothing and leaves that entry as it was."""

from __future__ import annotations

from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import NOT_THIS_SEATS, Outbox
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.screens.match_entry import MatchEntryScreen
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import guest_seat, open_form, open_outbox, quick_fill, settle

UNKNOWN_PLAYER = NewMatch(game=1, weight="normal", factions=[NewFaction(players=["no-such-player"], rank=1)])
"""A match the service refuses: it stays in the outbox, rejected, for the screen to show."""


async def test_a_guest_seat_discards_its_own_entry_and_not_another_seats(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    other_seat = Outbox(path, demo_client.scope, seat="other")
    theirs = other_seat.add(UNKNOWN_PLAYER.model_copy(update={"external_id": "theirs-1"}))
    mine = Outbox(path, demo_client.scope, seat="mine")
    mine.add(UNKNOWN_PLAYER.model_copy(update={"external_id": "mine-1"}))
    mine.close()
    app = guest_seat(make_app, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_outbox(pilot)
        assert [e.external_id for e in screen.entries] == ["mine-1", "theirs-1"]  # the newest first

        for key in ("x", "e"):
            await pilot.press("end", key)  # theirs
            await settle(pilot)
            assert pilot.app.screen is screen, key
            said = [str(n.message) for n in app._notifications]
            assert said.count(NOT_THIS_SEATS.capitalize() + ".") == 1, key
            app.clear_notifications()
        assert other_seat.get(theirs.external_id) == other_seat.entries()[0]

        await pilot.press("home", "x", "y")  # mine
        await settle(pilot)
        assert pilot.app.screen is screen
        assert [e.external_id for e in other_seat.entries()] == ["theirs-1"]
    other_seat.close()


async def test_the_confirm_dialog_is_not_offered_for_another_seats_entry(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    with_host = Outbox(path, demo_client.scope)  # queued by the host's own app: no seat's
    with_host.add(UNKNOWN_PLAYER.model_copy(update={"external_id": "host-1"}))
    app = guest_seat(make_app, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("y")  # a "yes" typed ahead answers nothing
        await settle(pilot)
        assert [e.external_id for e in with_host.entries()] == ["host-1"]
    with_host.close()


async def test_the_form_given_another_seats_external_id_sends_nothing_and_changes_nothing(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    other_seat = Outbox(path, demo_client.scope, seat="other")
    other_seat.add(UNKNOWN_PLAYER.model_copy(update={"external_id": "theirs-1"}))
    app = guest_seat(make_app, path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        before = other_seat.get("theirs-1")
        form_screen = await open_form(pilot)
        assert isinstance(form_screen, MatchEntryScreen)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        form_screen.form.field("external-id").value = "theirs-1"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "queued at another seat" in form_screen.form.answer.text
        assert other_seat.get("theirs-1") == before
        assert [e.external_id for e in other_seat.entries()] == ["theirs-1"]
    other_seat.close()
