"""Round trip: the demo group exported with `rankterm.importing.export`, imported into an empty
`rankterm serve` (a fresh store served by uvicorn on a real socket, a new group with its API client, as
`rankterm serve` makes them) through the outbox, and the standings after the last match are identical in the
main subset and in every game's (every player's ree, change, belt, title, status, and the places; see
`standing` for the one thing the ghosts' * may reorder); importing the same file again records nothing.
The CSV export comes back the same way.

Both services read one settable clock, so the activity status (computed against "now") agrees too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from rankterm.client.client import RankingClient
from rankterm.importing import open_source, plan_import, send_plan
from rankterm.importing.export import export_to_path
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox, OutboxSender
from rankterm.server.app import create_app
from rankterm.server.seed import seed_demo
from rankterm.server.store import Store
from rankterm.wire.models import RankingRow
from tests.support.clock import SettableClock
from tests.support.live import UvicornThread


def standing(rows: list[RankingRow]) -> dict[str, Any]:
    """The standings as a person reads them: each player's ree, change, belt, title and status by name (a
    ghost's * aside: every imported player is a ghost), and which places each ree holds (so a player of a
    ree no one else has is at the same place).

    Players with the same ree (co-op partners with the same history) are ordered by the service by display
    name, and an imported member becomes a ghost whose name starts with *: their order among themselves, and
    so their change of place (deltaPosition), may differ; the places that ree holds do not."""
    places: dict[float | None, list[int]] = {}
    for row in rows:
        places.setdefault(row.ree, []).append(row.position)
    return {
        "players": {
            row.player.display_name.lstrip("*"): (row.ree, row.delta_ree, row.belt, row.title, row.status)
            for row in rows
        },
        "places": places,
    }


async def standings(group: RankingClient | Group) -> dict[str, dict[str, Any]]:
    """Every subset's standings after its last match, by subset name."""
    group = Group.of(group)  # a client: read through its group
    out = {}
    for subset in await group.subsets(refresh=True):
        if subset.count_matches:
            out[subset.name] = standing(
                await group.all_rankings(subset=None if subset.is_main else subset.id)
            )
    return out


@asynccontextmanager
async def demo_and_empty_group(
    demo_db: Path | str, empty_db: Path | str, matches: int, *, socket: bool
) -> AsyncIterator[tuple[Group, Group, Outbox]]:
    """The group of the demo of `matches` matches (in-process), one of a new empty group (on a real socket
    with `socket`, as `rankterm serve` makes it), and an outbox for the latter; both services on one clock."""
    clock = SettableClock()
    demo_store, empty_store = Store(demo_db, clock=clock), Store(empty_db, clock=clock)
    server = None
    try:
        key, secret = seed_demo(demo_store, matches=matches)
        demo = RankingClient.in_process(
            create_app(demo_store, clock=clock), key=key, secret=secret, clock=clock
        )
        new_key, new_secret = empty_store.create_client(empty_store.create_group("Our group"))
        app = create_app(empty_store, clock=clock)
        if socket:
            server = UvicornThread(app)
            server.start()
            target = RankingClient(server.base_url, key=new_key, secret=new_secret, clock=clock)
        else:
            target = RankingClient.in_process(app, key=new_key, secret=new_secret, clock=clock)
        # The outbox in memory: on disk each entry is synced (several fsyncs a match), which these tests, about
        # the standings, do not need; tests/importing/test_import_plan.py imports through an outbox file.
        outbox = Outbox(None, scope=target.scope)
        try:
            yield Group(demo), Group(target), outbox
        finally:
            outbox.close()
            await target.aclose()
            await demo.aclose()
    finally:
        if server is not None:
            server.stop()
        empty_store.close()
        demo_store.close()


async def test_export_the_demo_import_into_an_empty_serve_same_standings(tmp_path: Path) -> None:
    on_disk = tmp_path / "demo.db", tmp_path / "serve.db"
    async with demo_and_empty_group(*on_disk, 80, socket=True) as (demo, target, outbox):
        export = tmp_path / "demo.json"
        counts = await export_to_path(demo.client, export, "json", group={"name": "demo"})
        assert counts.matches == 80
        source = open_source(export)
        assert source.kind == "rankterm"
        with await plan_import(target, source, outbox=outbox) as plan:
            assert (plan.to_record, plan.skipped_count) == (80, 0)
            assert len(plan.new_players) == counts.players
            report = await send_plan(plan, target, outbox, OutboxSender(outbox, target).send_pending)
        assert (report.recorded, report.rejected, report.waiting) == (80, 0, 0)

        before, after = await standings(demo), await standings(target)
        assert set(after) == set(before) and len(before) > 2
        for subset, rows in before.items():
            assert after[subset] == rows, subset
        imported = {m.external_id: m for m in await target.all_matches()}
        original = {m.external_id: m for m in await demo.all_matches()}
        assert {k: (m.number, m.date, m.weight) for k, m in imported.items()} == {
            k: (m.number, m.date, m.weight) for k, m in original.items()
        }

        with await plan_import(target, open_source(export), outbox=outbox) as again:
            assert (again.to_record, again.already) == (0, 80)
            second = await send_plan(again, target, outbox, OutboxSender(outbox, target).send_pending)
        assert second.recorded == 0 and len(await target.all_matches()) == 80


async def test_the_csv_export_comes_back_the_same_too(tmp_path: Path) -> None:
    async with demo_and_empty_group(":memory:", ":memory:", 40, socket=False) as (demo, target, outbox):
        export = tmp_path / "demo.csv"
        await export_to_path(demo.client, export, "csv")
        source = open_source(export)
        assert source.kind == "rankterm-csv"
        with await plan_import(target, source, outbox=outbox) as plan:
            report = await send_plan(plan, target, outbox, OutboxSender(outbox, target).send_pending)
        assert (report.recorded, plan.skipped_count) == (40, 0)
        assert await standings(target) == await standings(demo)
