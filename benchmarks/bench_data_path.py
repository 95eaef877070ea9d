"""CPU of the part of `rankterm demo`'s way to Home's data that is rankterm's own imports and parse set-up,
measured alone, beside another checkout in the same minutes.

    python benchmarks/bench_data_path.py [--runs 9] --against OLD_CHECKOUT

`bench_startup.py` times the whole start, whose CPU figures swing by 100 ms from run to run on this shared
machine under load: too much to see a 20 ms cut. Here each run is a fresh process that first imports what
both trees load anyway (Textual, httpx, pydantic, Starlette, the wire's models, the client, the app, the
mirror), then takes the CPU time (`time.process_time`) of what the demo's opening and Home's first load add: the
embedded service (`rankterm.server.seed`), the board's reads
(`rankterm.tui.screens.board`), the story (`stats.kept`), the evening's rows (`stats.compact`), the held
matches' parse (`stats.source`), and two parses of a page of matches by the client (``list[Match]``, as a
sync and the last match read them; the client in-process, as the demo's: until 2026-11-29 it was one on a
URL, whose socket pool the demo never loads). The two trees take turns within each run. Prints the medians
and the ratio, and the load average.

`--parts` instead splits rankterm's own imports on the way to the demo's Home (the first screen's, then the
demo group's and Home's reads') into parts, in the order the app loads them: each a fresh process that first
imports what the floor of `bench_startup.py` imports and validates one pydantic model with it (so that
pydantic's own first use is not counted), then takes the CPU of each part in turn (what a part shares with an
earlier one is counted with the earlier). Prints each part's median, the sum, and with `--against` the other
tree's beside it.

`--reads` times, in a process that has imported all of that already, the opening of a demo group as
`rankterm demo` opens it (`demo_group(make_demo_client)`: the in-process service, its client, the kept mirror
copied in) and Home's reads through it (`read_view`: the latest standings, the standings before the last
match, the last five matches; then the sync's check of the newest page), first as the app's start does them,
then again on a second group in the same process (every validator built, the caches of the code warm).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import time
import httpx, pydantic, textual.app, textual.widgets, starlette.applications
import rankterm.wire.models, rankterm.client.client, rankterm.tui.app, rankterm.mirror
from rankterm.wire.models import Match

start = time.process_time()
import rankterm.server.seed
import rankterm.tui.screens.board, rankterm.stats.kept, rankterm.stats.compact, rankterm.stats.source

# In-process, as the demo's client: one on a URL would load the socket pool (httpcore, h11) here.
client = rankterm.client.client.RankingClient.in_process(None, key="k", secret="s", base_url="http://bench.rankterm/")
for _ in range(2):
    client.parse("matches", list[Match], [])
print(time.process_time() - start)
"""


PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the command line (rankterm.cli)", ("rankterm.cli",)),
    ("config (tomllib, zones)", ("rankterm.config",)),
    ("the app: tui.app, its screens' table, palette, themes", ("rankterm.tui.app",)),
    ("Home's screen and its footer", ("rankterm.tui.screens.home", "rankterm.tui.live")),
    ("the wire's models (pydantic classes)", ("rankterm.wire.models",)),
    ("client.transport (httpcore, h11 where it holds the pool)", ("rankterm.client.transport",)),
    ("the client", ("rankterm.client.client",)),
    ("the embedded service (server.seed: app, store, metrics)", ("rankterm.server.seed",)),
    ("the mirror", ("rankterm.mirror",)),
    ("the outbox (outbox.outbox, its sender)", ("rankterm.outbox.outbox",)),
    ("the outbox's runner and the session", ("rankterm.tui.outbox_runner", "rankterm.tui.session")),
    ("the board's reads (screens.board: stats.changes, effect)", ("rankterm.tui.screens.board",)),
    (
        "the story (stats.kept), the evening's rows",
        ("rankterm.stats.kept", "rankterm.stats.compact"),
    ),
)
"""The parts of `--parts`, in the order `rankterm demo` loads them on the way to Home's data."""

PARTS_CHILD = """
import json, time, importlib
import sqlite3, httpx, pydantic, textual.app, textual.widgets
import starlette.applications, starlette.responses, starlette.routing

class Answer(pydantic.BaseModel):
    n: int

Answer.model_validate({{"n": 1}})
out = []
for _, modules in {parts!r}:
    start = time.process_time()
    for name in modules:
        importlib.import_module(name)
    out.append(time.process_time() - start)
print(json.dumps(out))
"""


def part_cpus(root: Path) -> list[float]:
    """CPU seconds of each of `PARTS` in a fresh process importing `root`'s rankterm."""
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", PARTS_CHILD.format(parts=PARTS)],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]


READS_CHILD = """
import asyncio, json, time
import pydantic

class Answer(pydantic.BaseModel):
    n: int

Answer.model_validate({"n": 1})
from rankterm.cli.app import make_demo_client
from rankterm.cli.demo_mirror import demo_group
from rankterm.tui.screens.board import read_view
import rankterm.server.seed, rankterm.mirror, rankterm.client.client

async def reads(group):
    await read_view(group, None, "Main")
    await group.sync_matches()

out = []
for _ in range(2):
    start = time.process_time()
    group = demo_group(make_demo_client)
    opened = time.process_time()
    asyncio.run(reads(group))
    out += [opened - start, time.process_time() - opened]
print(json.dumps(out))
"""

READS = ("opening the demo group", "Home's reads, first", "opening it again", "Home's reads again")


def read_cpus(root: Path, home: Path) -> list[float]:
    """CPU seconds of each of `READS` in a fresh process importing `root`'s rankterm, its cache under `home`."""
    env = dict(os.environ, PYTHONPATH=str(root), RANKTERM_CACHE_DIR=str(home / "cache"))
    env["RANKTERM_DATA_DIR"] = str(home / "data")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", READS_CHILD], env=env, cwd=home, capture_output=True, text=True, check=True
    )
    return [float(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]


def report_reads(trees: dict[str, Path], runs: int) -> None:
    """`--reads`: the demo group's opening and Home's reads, each tree's median, taking turns within each run."""
    with tempfile.TemporaryDirectory() as name:
        homes = {tree: Path(name) / str(i) for i, tree in enumerate(trees)}
        for home in homes.values():
            home.mkdir()
        for tree, root in trees.items():
            read_cpus(root, homes[tree])  # untimed: seeds the day's demo and its kept mirror, writes bytecode
        figures: dict[str, list[list[float]]] = {tree: [] for tree in trees}
        for _ in range(runs):
            for tree, root in trees.items():
                figures[tree].append(read_cpus(root, homes[tree]))
    print(f"CPU of the demo group's opening and Home's reads, imports done, median of {runs}:")
    print(f"  {'step':<40}" + "".join(f"{n[-22:]:>24}" for n in trees))
    for i, label in enumerate(READS):
        cells = "".join(f"{statistics.median(run[i] for run in figures[n]) * 1000:21.1f} ms" for n in trees)
        print(f"  {label:<40}" + cells)
    print(f"  load average (1, 5, 15 min) after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def report_parts(trees: dict[str, Path], runs: int) -> None:
    """`--parts`: each part's median CPU in each tree, the trees taking turns within each run."""
    for root in trees.values():
        part_cpus(root)  # untimed: writes the bytecode of modules changed since the last run
    figures: dict[str, list[list[float]]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, root in trees.items():
            figures[name].append(part_cpus(root))
    print(
        f"CPU of rankterm's own imports on the way to the demo's Home, above the floor's packages, median of {runs}:"
    )
    names = list(trees)
    print(f"  {'part':<58}" + "".join(f"{n[-22:]:>24}" for n in names))
    totals = dict.fromkeys(names, 0.0)
    for i, (label, _) in enumerate(PARTS):
        cells = []
        for name in names:
            median = statistics.median(run[i] for run in figures[name])
            totals[name] += median
            cells.append(f"{median * 1000:21.1f} ms")
        print(f"  {label:<58}" + "".join(cells))
    print(f"  {'sum':<58}" + "".join(f"{totals[n] * 1000:21.1f} ms" for n in names))
    print(f"  load average (1, 5, 15 min) after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def cpu(root: Path) -> float:
    """CPU seconds of the measured part in a fresh process importing `root`'s rankterm."""
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, cwd="/", capture_output=True, text=True, check=True
    )
    return float(done.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--against", type=Path, help="a checkout of another commit (required but with --parts or --reads)"
    )
    parser.add_argument(
        "--parts", action="store_true", help="rankterm's own imports, part by part (see above)"
    )
    parser.add_argument(
        "--reads", action="store_true", help="the demo group's opening and Home's reads (see above)"
    )
    args = parser.parse_args()
    if args.parts or args.reads:
        trees = {"this tree": ROOT}
        if args.against is not None:
            trees[str(args.against)] = args.against.resolve()
        (report_parts if args.parts else report_reads)(trees, args.runs)
        return 0
    if args.against is None:
        parser.error("--against is required (but with --parts or --reads)")
    trees = {"this tree": ROOT, str(args.against): args.against.resolve()}
    for root in trees.values():
        cpu(root)  # untimed: writes the bytecode of modules changed since the last run
    figures: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, root in trees.items():
            figures[name].append(cpu(root))
    print(
        f"CPU of the service's, the board's, the story's and the parse's set-up on the way to Home's data, median of {args.runs}:"
    )
    medians = {name: statistics.median(values) for name, values in figures.items()}
    for name, median in medians.items():
        print(f"  {name:<40} {median * 1000:6.1f} ms   (min {min(figures[name]) * 1000:.1f})")
    new, old = medians.values()
    print(f"  this tree over the other: {new / old:.2f} ({(new - old) * 1000:+.1f} ms)")
    print(f"  load average (1, 5, 15 min) after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
