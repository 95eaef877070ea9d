"""CPU of the part of `rankterm demo`'s way to Home's data that is rankterm's own imports and parse set-up,
measured alone, beside another checkout in the same minutes.

    python benchmarks/bench_data_path.py [--runs 9] --against OLD_CHECKOUT

`bench_startup.py` times the whole start, whose CPU figures swing by 100 ms from run to run on this shared
machine under load: too much to see a 20 ms cut. Here each run is a fresh process that first imports what
both trees load anyway (Textual, httpx, pydantic, Starlette, the wire's models, the client, the app, the
mirror), then takes the CPU time (`time.process_time`) of what the demo's opening and Home's first load add: the
embedded service (`rankterm.server.seed`, with its metrics), the board's reads
(`rankterm.tui.screens.board`), the story (`stats.kept`), the evening's rows (`stats.compact`), the held
matches' parse (`stats.source`), and two parses of a page of matches by the client (``list[Match]``, as a
sync and the last match read them). The two trees take turns within each run. Prints the medians and the
ratio, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
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

client = rankterm.client.client.RankingClient("http://bench.rankterm/", key="k", secret="s")
for _ in range(2):
    client.parse("matches", list[Match], [])
print(time.process_time() - start)
"""


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
    parser.add_argument("--against", type=Path, required=True, help="a checkout of another commit")
    args = parser.parse_args()
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
