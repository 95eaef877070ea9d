"""A guest seat's ghost players in the outbox the seats share: a form given a ghost's local id as its
external id says so in one sentence and the seat goes on; another seat's rejected ghost is retried as it is
(ctrl+r); a guest's own ghost that another seat's unsent match names is not discarded (that would reject the
other seat's match) nor renamed (that match would name another person)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from rankterm.client.client import RankingClient
from rankterm.outbox.ghosts import GhostEntry
from rankterm.outbox.outbox import NAMED_AT_OTHER_SEATS, Outbox, State
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.match_entry import MatchEntryScreen
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import guest_seat, open_form, open_outbox, quick_fill, settle


def naming(external_id: str, local_id: str) -> NewMatch:
    return NewMatch(
        game=1,
        weight="normal",
        external_id=external_id,
        factions=[NewFaction(players=[local_id], rank=1), NewFaction(players=["no-such-player"], rank=2)],
    )


def my_ghost_in_their_match(path: Path, scope: str) -> tuple[GhostEntry, Outbox]:
    """This seat's ("mine") ghost, rejected (not sent when the screen opens), and another seat's unsent match
    naming it; that seat's outbox, to be closed by the caller."""
    mine = Outbox(path, scope, seat="mine")
    ghost = mine.add_ghost("Zed")
    mine.mark_ghost_rejected(ghost.local_id, [])
    mine.close()
    other_seat = Outbox(path, scope, seat="other")
    other_seat.add(naming("theirs-1", ghost.local_id))
    return ghost, other_seat


async def test_the_form_given_a_ghosts_local_id_says_so_and_the_seat_goes_on(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    other_seat = Outbox(path, demo_client.scope, seat="other")
    ghost = other_seat.add_ghost("Zed")
    other_seat.mark_ghost_rejected(ghost.local_id, [])  # not sent by this seat meanwhile
    app = guest_seat(make_app, path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        form_screen = await open_form(pilot)
        assert isinstance(form_screen, MatchEntryScreen)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        form_screen.form.field("external-id").value = ghost.local_id
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.is_running and pilot.app.screen is form_screen
        assert "is a ghost player's in the outbox" in form_screen.form.answer.text
        assert other_seat.entries() == []
        assert other_seat.get_ghost(ghost.local_id).name == "Zed"  # type: ignore[union-attr]
    other_seat.close()


async def test_a_guest_retries_another_seats_rejected_ghost_as_it_is(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    other_seat = Outbox(path, demo_client.scope, seat="other")
    ghost = other_seat.add_ghost("Zed")
    other_seat.mark_ghost_rejected(ghost.local_id, [])
    app = guest_seat(make_app, path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_outbox(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert not any("another seat" in s for s in said), said
        retried = other_seat.get_ghost(ghost.local_id)
        assert retried is not None and retried.state is not State.REJECTED and retried.name == "Zed"
        assert retried.seat == "other"
    other_seat.close()


async def test_a_guest_does_not_discard_its_ghost_from_under_another_seats_match(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    ghost, other_seat = my_ghost_in_their_match(tmp_path / "outbox.db", demo_client.scope)
    app = guest_seat(make_app, tmp_path / "outbox.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_outbox(pilot)
        assert [getattr(e, "local_id", None) for e in screen.entries][-1] == ghost.local_id
        await pilot.press("end", "x")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert NAMED_AT_OTHER_SEATS.capitalize() + "." in said, said
        theirs = other_seat.get("theirs-1")
        assert theirs is not None and theirs.state is not State.REJECTED, theirs
        assert other_seat.get_ghost(ghost.local_id) is not None
    other_seat.close()


async def test_a_guest_does_not_rename_its_ghost_under_another_seats_match(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    ghost, other_seat = my_ghost_in_their_match(tmp_path / "outbox.db", demo_client.scope)
    app = guest_seat(make_app, tmp_path / "outbox.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_outbox(pilot)
        await pilot.press("end", "e")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, AskDialog)
        dialog.query_one("#ask-input", Input).value = "Mallory"
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is dialog  # refused inline, the typed name kept
        shown = str(dialog.query_one("#ask-error", Static).render())
        assert shown == NAMED_AT_OTHER_SEATS[0].upper() + NAMED_AT_OTHER_SEATS[1:] + ".", shown
        assert dialog.query_one("#ask-input", Input).value == "Mallory"
        assert other_seat.get_ghost(ghost.local_id).name == "Zed"  # type: ignore[union-attr]
    other_seat.close()
