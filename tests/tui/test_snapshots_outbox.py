"""Snapshots of the Outbox screen at 80x24: the newest entry first, the Tries and Reason columns on screen, a
match whose ghost was made since it was queued named (`*Max`), never by the service's new id, a held match's
question ("looks like Match N — send anyway (a) / discard (x)"); End on the oldest entry, not a blank stretch
of table.

The demo group runs in-process with its clock frozen; the service's new player ids and the outbox's local ids
are numbered, not random, so the shot is the same each run. Update with
`pytest tests/tui/test_snapshots_outbox.py --snapshot-update`, then LOOK at every SVG.
"""

from __future__ import annotations

import itertools

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from rankterm.wire.models import NewFaction, NewMatch, Weight
from tests.tui.conftest import DEMO_URL, frozen_clock
from tests.tui.pilot import make_ghost, open_form, quick_fill, settle
from tests.tui.test_outbox_ghosts import offline_demo


@pytest.fixture
def numbered_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids and tries the same on every run."""
    players = itertools.count(1)
    monkeypatch.setattr("rankterm.server.players.random_id", lambda _n=11: f"player{next(players):05d}")
    locals_ = itertools.count(1)
    monkeypatch.setattr("rankterm.outbox.outbox.new_local_id", lambda: f"local-{next(locals_):016x}")


async def record(pilot, external_id: str, sides: list) -> None:
    screen = await open_form(pilot)
    await quick_fill(pilot, "Catan", sides)
    screen.form.field("external-id").value = external_id
    await pilot.press("ctrl+s")
    await settle(pilot)


async def another_seat_records(pilot, transport, external_id: str, sides: list[tuple[str, str]]) -> None:
    """A Catan match recorded by another seat, online (its client shares the service, not this seat's
    unplugged network)."""
    players = {p.label: p.id for p in pilot.app.group.cached_players()}
    catan = next(g.id for g in pilot.app.group.cached_games() if g.name == "Catan")
    http = httpx.AsyncClient(transport=transport.inner, base_url=DEMO_URL)
    other = RankingClient(DEMO_URL, key=DEMO_KEY, secret=DEMO_SECRET, http=http, clock=frozen_clock)
    factions = [NewFaction(players=[players[n]], rank=i, points=pts) for i, (n, pts) in enumerate(sides, 1)]
    await other.add_matches(
        NewMatch(game=catan, weight=Weight.NORMAL, external_id=external_id, factions=factions)
    )
    await http.aclose()


async def an_evening(pilot, transport) -> None:
    """Sent online; a ghost made offline and a match naming it, both sent when the service is back; an M003;
    a match recorded offline that another seat recorded too (held when sent); a match left pending (the service
    gone again); then the Outbox."""
    await record(pilot, "night-01", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
    transport.down = True
    await make_ghost(pilot, "Max")
    await record(pilot, "night-02", [(["Ada"], 1, "8"), (["*Max"], 2, "6")])
    await pilot.press("escape", "o")
    await settle(pilot)
    transport.down = False
    # sent here, not by a worker: the app's own send when the service answers again waits for this one
    # (instead of cancelling a worker mid-send, which counts a try more on some runs)
    await pilot.app.outbox_runner.send(force=True)
    await settle(pilot)
    await record(pilot, "demo-0001", [(["Ben"], 1, "9"), (["Chiara"], 2, "4")])  # M003: the demo's first id
    transport.down = True
    await record(pilot, "night-04", [(["Chiara"], 1, "10"), (["Ada"], 2, "3")])
    await another_seat_records(pilot, transport, "other-04", [("Chiara", "10"), ("Ada", "3")])
    transport.down = False
    await pilot.app.outbox_runner.send(force=True)  # night-04 is held: it looks like other-04
    await settle(pilot)
    transport.down = True
    await record(pilot, "night-05", [(["Ben"], 1, "6"), (["Ada"], 2, "5")])
    await pilot.press("escape", "o")
    await settle(pilot)
    pilot.app.clear_notifications()
    await settle(pilot)


def test_outbox_newest_first_80x24(snap_compare, make_app, numbered_ids) -> None:
    group, transport = offline_demo()
    assert snap_compare(
        make_app(client=group),
        terminal_size=(80, 24),
        run_before=lambda pilot: an_evening(pilot, transport),
    )


def test_outbox_end_goes_to_the_oldest_entry_80x24(snap_compare, make_app, numbered_ids) -> None:
    group, transport = offline_demo()

    async def run_before(pilot) -> None:
        await an_evening(pilot, transport)
        await pilot.press("end")
        await settle(pilot)

    assert snap_compare(make_app(client=group), terminal_size=(80, 24), run_before=run_before)
