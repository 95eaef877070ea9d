"""Offline twins: two seats record the same match, one of them offline. When its outbox sends, the match is
held, not sent (it looks like the one the other seat recorded 5 minutes before), said at once, and asked about
on the Outbox screen: a sends it anyway, x discards it. Never silently doubled.

Against the embedded demo service in-process, one settable clock for the service and both seats; the other
seat is a second `RankingClient` on the same service (tests/tui/test_same_match_twice.py's fixtures).
"""

from __future__ import annotations

from rankterm.outbox.file import State
from rankterm.outbox.outcome import OutcomeState
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.screens.outbox import COLUMNS, OutboxScreen

from .pilot import match_count, open_form, quick_fill, settle
from .test_same_match_twice import _other_seat_records, clock, seat, service, unpluggable_seat

__all__ = ["clock", "seat", "service"]  # fixtures


async def recorded_offline_then_twinned(pilot, transport, other, clock) -> tuple[str, int]:
    """This seat records Greta beating Ben offline; five minutes later the other seat records the same match
    online; the service answers this seat again and its outbox sends. The held entry's id and the twin's
    number."""
    screen = await open_form(pilot)
    transport.down = True
    await quick_fill(pilot, "Patchwork", [(["Greta"], 1, "21"), (["Ben"], 2, "")])
    await pilot.press("ctrl+s")
    await settle(pilot)
    outcome = screen.last_answer[0]
    assert outcome.waiting
    clock.advance(300)
    number = await _other_seat_records(other, "Greta", "Ben")
    transport.down = False
    await pilot.app.outbox_runner.send(force=True)
    await settle(pilot)
    return outcome.external_id, number


def reason_cell(screen: OutboxScreen, row: int) -> str:
    table = screen.query_one("#outbox-table")
    return str(table.get_row_at(row)[COLUMNS.index("Reason")])


async def test_a_match_recorded_offline_like_another_seats_is_held_asked_and_sent_anyway(
    make_app, seat, service, clock
):
    other = seat()
    client, transport = unpluggable_seat(service, clock)
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        external_id, number = await recorded_offline_then_twinned(pilot, transport, other, clock)
        before = await match_count(pilot)
        entry = pilot.app.outbox_runner.outbox.get(external_id)
        assert entry.held and entry.state is State.PENDING  # not on the service: its one try found it offline
        assert entry.outcome().state is OutcomeState.HELD and entry.twin.number == number
        toasts = " ".join(str(n.message) for n in pilot.app._notifications)
        assert "1 match from the outbox looks like one recorded lately from another seat: held" in toasts

        await pilot.press("escape", "o")
        await settle(pilot)
        outbox = pilot.app.screen
        assert isinstance(outbox, OutboxScreen)
        assert (
            outbox.reason_of(outbox.entries[0])
            == f"looks like Match {number} — send anyway (a) / discard (x)"
        )
        assert reason_cell(outbox, 0).startswith(f"looks like Match {number}")  # on screen at 80 columns
        await pilot.press("a")
        await settle(pilot)
        assert pilot.app.outbox_runner.outbox.get(external_id).state is State.SENT
        assert await match_count(pilot) == before + 1  # sent, once: the person said it is another match
    await other.aclose()


async def test_a_held_match_discarded_is_never_sent(make_app, seat, service, clock):
    other = seat()
    client, transport = unpluggable_seat(service, clock)
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        external_id, _ = await recorded_offline_then_twinned(pilot, transport, other, clock)
        before = await match_count(pilot)
        await pilot.press("escape", "o")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.outbox_runner.outbox.get(external_id) is None
        await pilot.app.outbox_runner.send(force=True)
        await settle(pilot)
        assert await match_count(pilot) == before
    await other.aclose()


async def test_a_match_recorded_offline_with_no_twin_is_sent_when_the_service_answers(
    make_app, seat, service, clock
):
    other = seat()
    client, transport = unpluggable_seat(service, clock)
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        before = await match_count(pilot)
        transport.down = True
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, "21"), (["Ben"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        clock.advance(300)
        await _other_seat_records(other, "Ben", "Greta")  # another result: not the same match
        transport.down = False
        await pilot.app.outbox_runner.send(force=True)
        await settle(pilot)
        assert pilot.app.outbox_runner.outbox.get(screen.last_answer[0].external_id).state is State.SENT
        assert await match_count(pilot) == before + 2
    await other.aclose()
