"""The same match twice: before sending, the form asks when the group recorded a match with the same game,
sides and result in the last 30 minutes (rankterm/tui/widgets/match_form/twin.py).

Against the embedded demo service in-process, with one settable clock for the service and both seats; another
seat is a second `RankingClient` on the same service (as in test_live.py).
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.wire.models import NewFaction, NewMatch, Weight
from tests.support.clock import T0, SettableClock
from tests.support.faults import FaultyTransport

from .conftest import DEMO_URL
from .pilot import match_count, open_form, quick_fill, settle

Seat = Callable[[], RankingClient]


@pytest.fixture
def clock() -> SettableClock:
    return SettableClock(T0)


@pytest.fixture
def service(clock) -> tuple[object, str, str]:
    """One fresh demo group whose service reads `clock`: (its ASGI app, key, secret)."""
    from rankterm.server.seed import demo_app  # only tests may reach the server package

    return demo_app(clock=clock)


@pytest.fixture
def seat(service, clock) -> Seat:
    """Makes a client (a seat) on the group of `service`, reading `clock`."""
    asgi, key, secret = service
    return lambda: RankingClient.in_process(asgi, key=key, secret=secret, base_url=DEMO_URL, clock=clock)


def unpluggable_seat(service, clock) -> tuple[RankingClient, FaultyTransport]:
    """A seat whose network can be pulled (`transport.down = True`), with no retries."""
    asgi, key, secret = service
    transport = FaultyTransport(httpx.ASGITransport(app=asgi))
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    group = Group(
        RankingClient(DEMO_URL, key=key, secret=secret, http=http, clock=clock, retries=0, backoff=0)
    )
    return group, transport


async def _other_seat_records(
    other: RankingClient | Group, winner: str, loser: str, points: tuple[str, str] = ("", "")
) -> int:
    """Another seat records a Patchwork duel; its match number."""
    other = Group.of(other)  # a client: read through its group
    players = {p.display_name: p.id for p in await Group.of(other).players()}
    patchwork = next(g for g in await Group.of(other).games() if g.name == "Patchwork")
    match = NewMatch(
        game=patchwork.id,
        weight=Weight.NORMAL,
        external_id=f"other-seat-{winner}-{loser}",
        factions=[
            NewFaction(players=[players[winner]], rank=1, points=points[0]),
            NewFaction(players=[players[loser]], rank=2, points=points[1]),
        ],
    )
    assert (await other.add_matches(match)).accepted_count == 1
    return (await Group.of(other).matches_page(1)).data[0].number


def _question(pilot) -> str | None:
    dialog = pilot.app.screen
    if not isinstance(dialog, ConfirmDialog):
        return None
    return str(dialog.query_one("#confirm-question").render())


async def test_another_seats_same_match_40_s_ago_is_asked_escape_keeps_the_form_enter_sends(
    make_app, seat, clock
):
    other = seat()
    number = await _other_seat_records(other, "Greta", "Ben")
    async with make_app(client=seat()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, "21"), (["Ben"], 2, "")])
        clock.advance(40)
        before = await match_count(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) == (
            f"Match {number}, recorded 40 s ago from another seat, looks the same — send anyway?"
        )
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is screen and screen.last_answer is None
        assert screen.form.answer.text == f"Not sent: match {number} looks the same. ctrl+s asks again."
        assert await match_count(pilot) == before
        form = screen.form
        assert form.game_picker.game is not None and form.game_picker.game.name == "Patchwork"
        assert [
            ([p.label for p in r.picker.chosen], r.rank_input.value, r.points_input.value) for r in form.rows
        ] == [
            (["Greta"], "1", "21"),
            (["Ben"], "2", ""),
        ]
        assert form.has_unsent_input()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) is not None
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert await match_count(pilot) == before + 1
    await other.aclose()


async def test_a_different_result_or_other_points_are_not_asked(make_app, seat, clock):
    other = seat()
    await _other_seat_records(other, "Greta", "Ben", ("21", "15"))
    async with make_app(client=seat()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        clock.advance(40)
        await quick_fill(pilot, "Patchwork", [(["Ben"], 1, ""), (["Greta"], 2, "")])  # Ben won this one
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) is None
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        await pilot.press("ctrl+n")
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, "30"), (["Ben"], 2, "15")])  # other points
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) is None
        assert screen.last_answer.accepted_count == 1
    await other.aclose()


async def test_the_same_match_older_than_30_minutes_is_not_asked(make_app, seat, clock):
    other = seat()
    await _other_seat_records(other, "Greta", "Ben")
    async with make_app(client=seat()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        clock.advance(31 * 60)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) is None
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
    await other.aclose()


async def test_this_seats_own_match_sent_again_says_from_this_seat(make_app, seat, clock):
    async with make_app(client=seat()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        number = screen.last_answer and (await pilot.app.group.matches_page(1)).data[0].number
        clock.advance(125)
        await pilot.press("ctrl+n")
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) == (
            f"Match {number}, recorded 2 min ago from this seat, looks the same — send anyway?"
        )


async def test_a_contradiction_is_asked_first_then_the_same_match(make_app, seat, clock):
    """One question at a time: the points that contradict the ranks, then (Enter) the same match."""
    other = seat()
    number = await _other_seat_records(other, "Greta", "Ben", ("8", "10"))
    async with make_app(client=seat()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        clock.advance(40)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, "8"), (["Ben"], 2, "10")])
        before = await match_count(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) == "Ben has more points than Greta but ranks below Greta — send anyway?"
        await pilot.press("enter")
        await settle(pilot)
        assert _question(pilot) == (
            f"Match {number}, recorded 40 s ago from another seat, looks the same — send anyway?"
        )
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is screen and screen.last_answer.accepted_count == 1
        assert await match_count(pilot) == before + 1
    await other.aclose()


async def test_a_dry_run_is_not_asked(make_app, seat, clock):
    other = seat()
    await _other_seat_records(other, "Greta", "Ben")
    async with make_app(client=seat()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert _question(pilot) is None
        assert screen.last_answer is not None and screen.last_answer.dry_run
    await other.aclose()


async def test_offline_the_matches_the_mirror_holds_are_enough_to_ask(make_app, seat, service, clock):
    """The live probe held the other seat's match; the service is then gone: asked all the same, and Enter
    keeps the match in the outbox."""
    other = seat()
    number = await _other_seat_records(other, "Greta", "Ben")
    ours, transport = unpluggable_seat(service, clock)
    async with make_app(client=ours).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await pilot.app.group.sync_matches()  # what the live probe does on the other screens
        assert number in pilot.app.group.mirror.held.match_numbers()
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        clock.advance(90)
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) == (
            f"Match {number}, recorded 90 s ago from another seat, looks the same — send anyway?"
        )
        await pilot.press("enter")
        await settle(pilot)
        assert "saved in the outbox" in screen.form.answer.text
    await other.aclose()


async def test_a_queued_batch_is_asked_about_at_ctrl_s_naming_the_match(make_app, seat, clock):
    """Queueing (ctrl+l) asks nothing; the batch's send asks once, naming the queued match that looks the same;
    Escape keeps the queue and sends nothing."""
    other = seat()
    number = await _other_seat_records(other, "Greta", "Ben")
    async with make_app(client=seat()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        clock.advance(40)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, ""), (["Ben"], 2, "")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert _question(pilot) is None and len(screen.queue) == 1
        before = await match_count(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _question(pilot) == (
            f"Patchwork: Greta, Ben (rt-test-0001): Match {number}, recorded 40 s ago from another seat, looks"
            " the same — send anyway?"
        )
        await pilot.press("escape")
        await settle(pilot)
        assert len(screen.queue) == 1 and await match_count(pilot) == before
    await other.aclose()
