"""Round trip (issue 12): the demo group exported with `rankterm.api.export`, imported into an empty
`rankterm serve` (a fresh store served by uvicorn on a real socket, a new group with its API client, as
`rankterm serve` makes them) through the outbox, and the standings after the last match are identical,
row by row, in the main subset and in every game's; importing the same file again records nothing.

Both services read one settable clock, so the activity status (computed against "now") agrees too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rankterm.api.client import RankingClient
from rankterm.api.export import export_to_path
from rankterm.api.importing import open_source, plan_import, send_plan
from rankterm.api.models import RankingRow
from rankterm.api.outbox import Outbox, OutboxSender
from rankterm.server.app import create_app
from rankterm.server.seed import seed_demo
from rankterm.server.store import Store
from rankterm.testing.clock import SettableClock
from rankterm.testing.live import UvicornThread


def standing(row: RankingRow) -> tuple[Any, ...]:
    """A row as a person reads it: name (a ghost's * aside: every imported player is a ghost), ree, moves."""
    return (
        row.player.display_name.lstrip("*"),
        row.position,
        row.ree,
        row.delta_ree,
        row.delta_position,
        row.belt,
        row.title,
        row.status,
    )


async def standings(client: RankingClient) -> dict[str, list[tuple[Any, ...]]]:
    """Every subset's standings after its last match, by subset name."""
    out = {}
    for subset in await client.subsets(refresh=True):
        if subset.count_matches:
            rows = await client.all_rankings(subset=None if subset.is_main else subset.id)
            out[subset.name] = [standing(r) for r in rows]
    return out


async def test_export_the_demo_import_into_an_empty_serve_same_standings(tmp_path: Path) -> None:
    clock = SettableClock()
    demo_store = Store(tmp_path / "demo.db", clock=clock)
    key, secret = seed_demo(demo_store, matches=120)
    demo = RankingClient.in_process(create_app(demo_store, clock=clock), key=key, secret=secret, clock=clock)
    export = tmp_path / "demo.json"
    counts = await export_to_path(demo, export, "json", group={"name": "demo"})
    assert counts.matches == 120

    empty_store = Store(tmp_path / "serve.db", clock=clock)
    group = empty_store.create_group("Our group")
    new_key, new_secret = empty_store.create_client(group)
    server = UvicornThread(create_app(empty_store, clock=clock))
    server.start()
    target = RankingClient(server.base_url, key=new_key, secret=new_secret, clock=clock)
    # The outbox in memory: on disk each entry is synced (several fsyncs a match), which this test, about the
    # standings, does not need; tests/api/test_import_plan.py imports through an outbox file.
    outbox = Outbox(None, scope=target.scope)
    try:
        source = open_source(export)
        assert source.kind == "rankterm"
        with await plan_import(target, source, outbox=outbox) as plan:
            assert (plan.to_record, plan.skipped_count) == (120, 0)
            assert len(plan.new_players) == counts.players
            report = await send_plan(plan, target, outbox, OutboxSender(outbox, target).send_pending)
        assert (report.recorded, report.rejected, report.waiting) == (120, 0, 0)

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
            assert (again.to_record, again.already) == (0, 120)
            second = await send_plan(again, target, outbox, OutboxSender(outbox, target).send_pending)
        assert second.recorded == 0 and len(await target.all_matches()) == 120
    finally:
        outbox.close()
        await target.aclose()
        await demo.aclose()
        server.stop()
        empty_store.close()
        demo_store.close()
