"""Import 10,000 plays into an empty embedded service and print the time, the requests and the memory.

Files are generated (20 players, 8 catalogue games, 2 to 5 players a play, scores, a co-op game, a team
game) as BoardGameGeek XML, CSV and BG Stats JSON; each run is a fresh process (so its peak memory, ru_maxrss,
is its own) that plans the file (the dry run), then sends it through the outbox into a fresh embedded service
in process. Printed per run: plays, matches recorded, requests, seconds for the dry run and for sending,
matches a second, and the process's peak memory; the 1,000 and 10,000 play runs of one format side by side
show whether memory stays flat.

    python benchmarks/bench_import.py [--plays 10000] [--small 1000]
    python benchmarks/bench_import.py --outbox [--matches 10000] [--runs 3]

`--outbox` measures the outbox alone, without a service or an importer: 10,000 matches queued on disk and in
memory, one at a time (`add`, a sync each) and a chunk of 100 at a time (`add_many`, what the importer does),
then settled as the sender does in batches of 10 (marked in doubt before the POST, then sent); the median of
`--runs` runs of each, and disk over memory. Run against an older tree (PYTHONPATH) it measures what that
tree does (a tree with `rankterm.outbox`).

The service's quota is lifted (by default it takes 500 matches an hour: a real 10,000-play import into
`rankterm serve` goes out over about 20 hours, the rest waiting in the outbox). The outbox is in memory for
the big runs (what is measured is the importer and the service); one run with the
outbox on disk (synced: the real thing; a chunk of 100 queued in one write, a batch marked in one) shows what
durability costs a match.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import fields
from datetime import datetime, timedelta
from pathlib import Path
from xml.sax.saxutils import quoteattr

GAMES = [
    ("Catan", 13, ""),
    ("Carcassonne", 822, ""),
    ("Ticket to Ride", 9209, ""),
    ("Azul", 230802, ""),
    ("Splendor", 148228, ""),
    ("Pandemic", 30549, "coop"),
    ("Codenames", 178900, "teams"),
    ("Hive", 2655, ""),
]
PLAYERS = [f"Player {chr(65 + i)}" for i in range(20)]


def plays(n: int, seed: int = 1):
    """(date, game, bgg id, kind, [(name, score, win, team)]) for n plays, oldest first."""
    rng = random.Random(seed)
    start = datetime(2023, 1, 1, 19, 0)
    for i in range(n):
        name, bgg, kind = rng.choice(GAMES)
        when = start + timedelta(minutes=i * 150)
        seats = rng.sample(PLAYERS, 4 if kind == "teams" else rng.randint(2, 5))
        if kind == "coop":
            won = rng.random() < 0.4
            rows = [(p, "", won, "") for p in seats]
        elif kind == "teams":
            rows = [(p, "", k < 2, "Red" if k < 2 else "Blue") for k, p in enumerate(seats)]
        else:
            scores = [rng.randint(0, 120) for _ in seats]
            rows = [(p, str(s), s == max(scores), "") for p, s in zip(seats, scores, strict=True)]
        yield when, name, bgg, kind, rows


def write_bgg(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write(f'<?xml version="1.0" encoding="utf-8"?>\n<plays username="bench" total="{n}" page="1">\n')
        for i, (when, name, bgg, _kind, rows) in enumerate(plays(n), start=1):
            out.write(f'<play id="{i}" date="{when:%Y-%m-%d}" quantity="1" incomplete="0" nowinstats="0">')
            out.write(f'<item name={quoteattr(name)} objecttype="thing" objectid="{bgg}"/><players>')
            for who, score, win, _team in rows:
                out.write(f'<player name={quoteattr(who)} score="{score}" win="{int(win)}"/>')
            out.write("</players></play>\n")
        out.write("</plays>\n")


def write_csv(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("date,game,player,team,rank,score,winner\n")
        for when, name, _bgg, _kind, rows in plays(n):
            for who, score, win, team in rows:
                out.write(f"{when:%Y-%m-%d %H:%M},{name},{who},{team},,{score},{int(win)}\n")


def write_bgstats(path: Path, n: int) -> None:
    people = {name: k for k, name in enumerate(PLAYERS, start=1)}
    games = {name: k for k, (name, _b, _k) in enumerate(GAMES, start=1)}
    document = {
        "players": [{"id": k, "uuid": f"p{k}", "name": name} for name, k in people.items()],
        "games": [
            {
                "id": games[name],
                "name": name,
                "bggId": bgg,
                "cooperative": kind == "coop",
                "usesTeams": kind == "teams",
            }
            for name, bgg, kind in GAMES
        ],
        "plays": [
            {
                "uuid": f"00000000-0000-4000-8000-{i:012d}",
                "gameRefId": games[name],
                "playDate": f"{when:%Y-%m-%d %H:%M:%S}",
                "ignored": False,
                "usesTeams": kind == "teams",
                "playerScores": [
                    {"playerRefId": people[who], "score": score, "winner": win, "rank": 0, "team": team}
                    for who, score, win, team in rows
                ],
            }
            for i, (when, name, _bgg, kind, rows) in enumerate(plays(n))
        ],
    }
    path.write_text(json.dumps(document))


WRITERS = {
    "bgg": (write_bgg, "plays.xml"),
    "csv": (write_csv, "plays.csv"),
    "bgstats": (write_bgstats, "bgs.json"),
}


async def child(path: Path, batch: int, disk: bool) -> dict:
    """One import in this process: returns its figures."""
    from rankterm.client.client import RankingClient
    from rankterm.importing import MapFile, open_source, plan_import, send_plan
    from rankterm.mirror import Group
    from rankterm.outbox.outbox import Outbox, OutboxSender
    from rankterm.server.app import create_app
    from rankterm.server.quota import QuotaLimits
    from rankterm.server.store import Store

    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    store = Store(work / "service.db")
    key, secret = store.create_client(store.create_group("Bench"))
    # The embedded service's default quota (500 matches an hour) would spread 10,000 over 20 hours: lifted here,
    # so what is measured is the importer and the service, not the clock.
    unlimited = QuotaLimits(**{f.name: 10**9 for f in fields(QuotaLimits)})
    app = create_app(store, limits=unlimited)
    client = RankingClient.in_process(app, key=key, secret=secret, batch_size=batch)
    group = Group(client)
    outbox = Outbox(work / "outbox.db" if disk else None, scope=client.scope)
    map_file = MapFile(cooperative=frozenset({"pandemic"}))
    started = time.perf_counter()
    plan = await plan_import(group, open_source(path), map_file=map_file, outbox=outbox)
    planned = time.perf_counter() - started
    plan_calls = client.calls
    with plan:
        report = await send_plan(plan, group, outbox, OutboxSender(outbox, group).send_pending)
        figures = {
            "plays": plan.plays_read,
            "recorded": report.recorded,
            "skipped": plan.skipped_count,
            "plan_s": planned,
            "plan_requests": plan_calls,
            "send_s": report.seconds,
            "send_requests": report.requests,
        }
    outbox.close()
    await group.aclose()
    store.close()
    figures["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def run(path: Path, batch: int, disk: bool) -> dict:
    """`child` in a fresh process (its own peak memory)."""
    args = [sys.executable, __file__, "--child", str(path), "--batch", str(batch)] + (
        ["--disk"] if disk else []
    )
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _sample_match(i: int):
    from rankterm.wire.new_match import NewFaction, NewMatch

    factions = [
        NewFaction(players=[f"P{(i + k) % 20:010d}"], rank=k + 1, points=str(100 - k)) for k in range(4)
    ]
    return NewMatch(
        game=1 + i % 8, weight="normal", name="", notes="", factions=factions, external_id=f"bench-{i:08d}"
    )


def _timed_outbox(disk: bool, n: int, how: str) -> float:
    """Seconds to queue (`how` add, add_many) or to settle (settle: in batches of 10, in doubt then sent) `n`
    matches in a fresh outbox on disk or in memory."""
    from rankterm.outbox.outbox import Outbox

    work = Path(tempfile.mkdtemp(prefix="bench-outbox-"))
    outbox = Outbox(work / "outbox.db" if disk else None, scope="bench")
    matches = [_sample_match(i) for i in range(n)]
    try:
        if how == "settle":
            outbox.add_many(matches)
            started = time.perf_counter()
            for at in range(0, n, 10):
                ids = [m.external_id for m in matches[at : at + 10]]
                outbox.mark_in_doubt(ids)
                outbox.mark_sent_each(
                    {ext: f"id-{ext}" for ext in ids}
                )  # what the sender does: a write a batch
            return time.perf_counter() - started
        started = time.perf_counter()
        if how == "add":
            for match in matches:
                outbox.add(match)
        else:
            for at in range(0, n, 100):
                outbox.add_many(matches[at : at + 100])
        return time.perf_counter() - started
    finally:
        outbox.close()


def outbox_figures(n: int, runs: int) -> None:
    """Print the outbox's own cost: `n` matches on disk and in memory, median of `runs`, and the ratio."""
    import statistics

    steps = [("add", "queue, one at a time (add)"), ("add_many", "queue, 100 at a time (add_many)")]
    steps.append(("settle", "settle in batches of 10 (sender)"))
    print(f"the outbox alone, {n:,} matches, median of {runs} runs")
    print(f"{'step':34} {'memory s':>9} {'disk s':>8} {'disk/memory':>11} {'disk ms/match':>13}")
    for how, label in steps:
        memory = statistics.median(_timed_outbox(False, n, how) for _ in range(runs))
        disk = statistics.median(_timed_outbox(True, n, how) for _ in range(runs))
        print(f"{label:34} {memory:>9.2f} {disk:>8.2f} {disk / memory:>10.1f}x {disk * 1000 / n:>13.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--outbox", action="store_true", help="measure the outbox alone (disk vs memory)")
    parser.add_argument("--matches", type=int, default=10_000, help="matches for --outbox")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of each --outbox step (the median is printed)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, default=10, help=argparse.SUPPRESS)
    parser.add_argument("--disk", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(Path(args.child), args.batch, args.disk))))
        return
    if args.outbox:
        outbox_figures(args.matches, args.runs)
        return
    folder = Path(tempfile.mkdtemp(prefix="bench-import-files-"))
    runs = [
        ("bgg", args.small, 10, False),
        ("bgg", args.plays, 10, False),
        ("bgg", args.plays, 100, False),
        ("csv", args.small, 10, False),
        ("csv", args.plays, 10, False),
        ("bgstats", args.small, 10, False),
        ("bgstats", args.plays, 10, False),
        ("bgg", args.small, 10, True),
    ]
    header = f"{'format':8} {'plays':>6} {'batch':>5} {'outbox':6} {'recorded':>8} {'dry run s':>9} {'send s':>7} {'per s':>6} {'requests':>8} {'peak MB':>8}"
    print(header)
    for fmt, n, batch, disk in runs:
        writer, name = WRITERS[fmt]
        path = folder / f"{n}-{name}"
        if not path.exists():
            writer(path, n)
        f = run(path, batch, disk)
        rate = f["recorded"] / f["send_s"] if f["send_s"] else 0.0
        requests = f["plan_requests"] + f["send_requests"]
        print(
            f"{fmt:8} {f['plays']:>6} {batch:>5} {'disk' if disk else 'memory':6} {f['recorded']:>8} "
            f"{f['plan_s']:>9.1f} {f['send_s']:>7.1f} {rate:>6.0f} {requests:>8} {f['peak_mb']:>8.0f}"
        )


if __name__ == "__main__":
    main()
