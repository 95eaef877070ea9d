"""What a seat pays to follow a match played earlier than the group's latest: the calls and time of the one
sync that finds it, against a full read of the group's matches.

    python benchmarks/bench_backdated_sync.py [--matches 3000] [--days 0.5 1 31]

A group of `--matches` matches (the demo's season plan, seeded into an in-memory store) is read by a seat
into its mirror (a `Group`'s, in memory). Another seat then records a duel dated that many days before the group's latest
match; the embedded service places it at its date. The seat's next `sync_matches()` tells the change from
page 1 of the matches and reads older pages only down to it: the calls it makes (the first page included),
its time, where the match was placed, and what reading everything again would have cost (one call a page).
Each backdate runs on its own copy of the store.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rankterm.client.client import RankingClient  # noqa: E402
from rankterm.mirror import Group  # noqa: E402
from rankterm.server.app import create_app  # noqa: E402
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, seed_demo  # noqa: E402
from rankterm.server.store import Store  # noqa: E402
from rankterm.wire.models import DATE_FORMAT, NewFaction, NewMatch, Weight  # noqa: E402


async def one(template: Store, days: float) -> str:
    store = template.clone()
    app = create_app(store)
    seat = Group(RankingClient.in_process(app, key=DEMO_KEY, secret=DEMO_SECRET))
    other = Group(RankingClient.in_process(app, key=DEMO_KEY, secret=DEMO_SECRET))
    try:
        await seat.sync_matches()
        latest = seat.cached_matches(limit=1)[0]
        when = datetime.strptime(latest.date, DATE_FORMAT) - timedelta(days=days)
        players = [p.id for p in await other.players()][:2]
        game = (await other.games())[0].id
        match = NewMatch(
            game=game,
            weight=Weight.NORMAL,
            date=when.strftime(DATE_FORMAT),
            external_id="backdated",
            factions=[NewFaction(players=[players[0]], rank=1), NewFaction(players=[players[1]], rank=2)],
        )
        await other.add_matches(match)
        await seat.client.authenticate()
        placed: list[int] = []
        seat.history_listeners.append(placed.append)
        calls, began = seat.client.calls, time.perf_counter()
        await seat.sync_matches()
        took = time.perf_counter() - began
        held, _ = seat.mirror.held.match_numbers()
        where = f"placed at {placed[0]}, {held - placed[0]} after it" if placed else "placed last"
        full = -(-held // 25)
        return (
            f"backdated {days:>5g} day(s): {where}; sync {seat.client.calls - calls} calls, {took * 1000:.0f} ms"
            f" (reading everything: {full} calls)"
        )
    finally:
        await seat.aclose()
        await other.aclose()
        store.close()


async def main(matches: int, days: list[float]) -> None:
    template = Store(":memory:")
    began = time.perf_counter()
    seed_demo(template, matches=matches)
    print(f"{matches} matches seeded in {time.perf_counter() - began:.1f} s")
    for d in days:
        print(await one(template, d))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--days", type=float, nargs="+", default=[0.5, 1, 31])
    args = parser.parse_args()
    asyncio.run(main(args.matches, args.days))
