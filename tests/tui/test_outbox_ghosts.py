"""Ghost players made while the service cannot be reached: saved from the players screen, offered by
the match form at once, listed in the Outbox before the matches that name them, made on the service before
those matches are sent; a refused one says why, its matches say what they wait for, and it can be renamed
or discarded (after a question)."""

from __future__ import annotations

from urllib.parse import parse_qs

import httpx

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import Entry, GhostEntry, State
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.screens.outbox import COLUMNS, SIDES, OutboxScreen
from rankterm.wire.ids import is_local_id
from tests.support.faults import FaultyTransport

from .conftest import DEMO_URL, frozen_clock
from .pilot import keys, make_ghost, open_form, record_waiting, settle

REFUSAL = "Names like that are not taken here."


class RefusingNames(httpx.AsyncBaseTransport):
    """A service that refuses (R003, as it does a name too long) to make a ghost called one of `names`."""

    def __init__(self, inner: httpx.AsyncBaseTransport, names: set[str]) -> None:
        self.inner = inner
        self.names = names

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.rstrip("/").endswith("players/player"):
            await request.aread()
            asked = parse_qs(request.url.query.decode()) | parse_qs(request.content.decode())
            if set(asked.get("name", [])) & self.names:
                return httpx.Response(400, json={"errors": [{"code": "R003", "message": REFUSAL}]})
        return await self.inner.handle_async_request(request)


def offline_demo(refused: set[str] = frozenset()) -> tuple[RankingClient, FaultyTransport]:
    """A client on a fresh demo group whose network can be pulled (`.down = True`)."""
    store = demo_store(clock=frozen_clock)
    inner = RefusingNames(httpx.ASGITransport(app=create_app(store, clock=frozen_clock)), set(refused))
    transport = FaultyTransport(inner)
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    group = Group(
        RankingClient(
            DEMO_URL, key=DEMO_KEY, secret=DEMO_SECRET, http=http, clock=frozen_clock, retries=0, backoff=0
        )
    )
    return group, transport


def toasts(pilot) -> str:
    return " ".join(str(n.message) for n in pilot.app._notifications)


def cells(pilot) -> list[dict[str, str]]:
    """The Outbox table's rows as shown (the newest first), each cell by its column's title."""
    table = pilot.app.screen.query_one("#outbox-table")
    return [dict(zip(COLUMNS, map(str, table.get_row_at(i)), strict=True)) for i in range(table.row_count)]


async def open_outbox(pilot) -> OutboxScreen:
    await pilot.press("escape", "o")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, OutboxScreen)
    return screen


async def send_now(pilot, transport: FaultyTransport) -> None:
    transport.down = False
    pilot.app.outbox_runner.cancel_retry()
    await pilot.press("ctrl+s")
    await settle(pilot)


async def test_a_ghost_made_offline_goes_before_its_match_and_is_made_once(make_app):
    group, transport = offline_demo()
    async with make_app(client=group).run_test(size=(120, 30)) as pilot:
        await open_form(pilot)  # the group's lists read while the service could be reached
        transport.down = True
        await make_ghost(pilot, "Dan")
        assert "Ghost player *Dan saved; it is made on the service when it can be reached" in toasts(pilot)

        # The match form offers the saved ghost at once, under its local id.
        screen = await open_form(pilot)
        row = screen.form.rows[1]
        row.picker.focus_input()
        await pilot.press(*keys("Dan"))
        await pilot.pause()
        offered = [p for p in row.picker._shown if p.label == "*Dan"]
        assert len(offered) == 1 and is_local_id(offered[0].id)
        await pilot.press("escape")
        external_id = await record_waiting(pilot, "Ada", "*Dan")

        outbox = await open_outbox(pilot)
        assert [type(e) for e in outbox.entries] == [Entry, GhostEntry]  # the newest first
        match_row, ghost_row = cells(pilot)
        ghost = outbox.entries[1]
        assert [ghost_row[c] for c in ("State", "External id", "Game", SIDES)] == [
            "pending",
            ghost.local_id,
            "new ghost",
            "*Dan",
        ]
        # not posted while offline: the service's players are read first (another seat may have made *Dan)
        assert ghost_row["Tries"] == str(ghost.attempts) == "0"
        assert match_row["External id"] == external_id and "*Dan" in match_row[SIDES]
        assert match_row["Reason"] == "waits for ghost *Dan"

        await send_now(pilot, transport)
        assert [e.state for e in outbox.entries] == [State.SENT, State.SENT]
        made = [p for p in await group.players(refresh=True) if p.label == "*Dan"]
        assert len(made) == 1 and not is_local_id(made[0].id)
        match_row, ghost_row = cells(pilot)
        assert ghost_row[SIDES] == f"*Dan → player id {made[0].id}"
        assert match_row[SIDES] == "1. Ada, 2. *Dan"  # named, never the service's new id
        newest = (await group.matches_page(1)).data[0]
        assert newest.external_id == external_id
        assert made[0].id in {p.id for f in newest.factions for p in f.players}


async def test_a_refused_ghost_says_why_its_match_waits_and_a_new_name_sends_both(make_app):
    group, transport = offline_demo(refused={"Zed"})
    async with make_app(client=group).run_test(size=(120, 30)) as pilot:
        await open_form(pilot)
        transport.down = True
        await make_ghost(pilot, "Zed")
        await record_waiting(pilot, "Ada", "*Zed")
        outbox = await open_outbox(pilot)
        await send_now(pilot, transport)

        match_row, ghost_row = cells(pilot)
        assert ghost_row["State"] == "rejected" and ghost_row["Reason"].startswith(REFUSAL[:10])
        assert outbox.reason_of(outbox.entries[1]) == f"{REFUSAL} (R003)"  # whole under the table
        assert match_row["State"] == "pending"
        assert outbox.reason_of(outbox.entries[0]) == f"waits for ghost *Zed (refused: {REFUSAL} (R003))"

        # e on the ghost row asks for another name; the ghost, then its match, are sent.
        outbox.query_one("#outbox-table").move_cursor(row=1)
        await pilot.press("e")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, AskDialog)
        dialog.query_one("#ask-input").value = "Zoe"
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is outbox
        assert [e.state for e in outbox.entries] == [State.SENT, State.SENT]
        assert [p.label for p in await group.players(refresh=True) if p.label in ("*Zed", "*Zoe")] == ["*Zoe"]


async def test_discarding_a_ghost_asks_first_and_its_match_is_rejected(make_app):
    group, transport = offline_demo()
    async with make_app(client=group).run_test(size=(120, 30)) as pilot:
        await open_form(pilot)
        transport.down = True
        await make_ghost(pilot, "Dan")
        external_id = await record_waiting(pilot, "Ada", "*Dan")
        outbox = await open_outbox(pilot)
        outbox.query_one("#outbox-table").move_cursor(row=1)  # the ghost, below its match

        await pilot.press("x")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "Its 1 match becomes rejected to give them another player." in str(
            dialog.query_one("#confirm-detail").render()
        )
        await pilot.press("n")
        await settle(pilot)
        assert [type(e) for e in outbox.entries] == [Entry, GhostEntry]

        await pilot.press("x")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert [(type(e), e.state) for e in outbox.entries] == [(Entry, State.REJECTED)]
        assert outbox.entries[0].external_id == external_id
        assert "*Dan was discarded" in outbox.reason_of(outbox.entries[0])
        assert "*Dan" not in [p.label for p in group.cached_players()]


async def test_retry_on_a_ghost_sends_it_again_under_its_name_never_as_a_match(make_app):
    group, transport = offline_demo(refused={"Zed"})
    async with make_app(client=group).run_test(size=(120, 30)) as pilot:
        await open_form(pilot)
        transport.down = True
        await make_ghost(pilot, "Zed")
        outbox = await open_outbox(pilot)
        await send_now(pilot, transport)
        assert outbox.entries[0].state is State.REJECTED
        inner: RefusingNames = transport.inner  # type: ignore[assignment]
        inner.names.clear()  # the service takes the name now
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert [(type(e), e.state) for e in outbox.entries] == [(GhostEntry, State.SENT)]
        assert "*Zed" in [p.label for p in await group.players(refresh=True)]


async def test_a_ghost_saved_before_any_list_was_read_is_still_offered_by_the_form(make_app):
    group, transport = offline_demo()
    async with make_app(client=group).run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        transport.down = True  # nothing read yet: the mirror holds no list of players
        await make_ghost(pilot, "Dan")
        screen = await open_form(pilot)
        offered = [p for p in screen.form.rows[0].picker.players if p.label == "*Dan"]
        assert len(offered) == 1 and is_local_id(offered[0].id)
