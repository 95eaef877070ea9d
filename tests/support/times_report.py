"""Sum up a per-test times file written by tests/support/cpu_times.py, to see where a run's cores go.

    .venv/bin/python -m tests.support.times_report FILE [--by file|folder|test] [--top N] [--sort cpu|slept]
        [--workers N --cores N] [--running-as-slept]

Prints, by folder (or file) and in all: the tests, their CPU (the worker's and its ended children's), what
they slept (wall less CPU less the wait for a core: what a quiet machine leaves idle, unless another worker
fills it) and the wall they would take on a quiet machine (CPU + slept). Then the cores one worker keeps busy
on a quiet machine (CPU over CPU + slept), and for `--workers` workers on `--cores` cores the demand and the
least wall the run can take: the CPU over the cores, or the quiet wall over the workers, whichever is longer.
A file from before the ``waited`` column counts its wait as sleep; the CPU of the descendants still running at
a test's end (the ``running`` column) is CPU, not sleep, unless `--running-as-slept` (what files from before
that column could only count).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Sums:
    tests: int = 0
    cpu: float = 0.0
    slept: float = 0.0
    wall: float = 0.0

    def add(self, wall: float, cpu: float, waited: float, running: float) -> None:
        self.tests += 1
        self.cpu += cpu + running
        self.slept += max(0.0, wall - cpu - waited - running)
        self.wall += wall

    @property
    def quiet(self) -> float:
        return self.cpu + self.slept


def read(path: Path, by: str, running_as_slept: bool = False) -> tuple[dict[str, Sums], Sums]:
    """The sums by group and in all."""
    groups: dict[str, Sums] = defaultdict(Sums)
    total = Sums()
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        nodeid, wall, cpu, children = fields[0], float(fields[1]), float(fields[2]), float(fields[3])
        waited = float(fields[4]) if len(fields) > 4 else 0.0
        running = float(fields[5]) if len(fields) > 5 and not running_as_slept else 0.0
        where = nodeid.split("::")[0]
        key = {"test": nodeid, "file": where}.get(by, where.rsplit("/", 1)[0])
        for sums in (groups[key], total):
            sums.add(wall, cpu + children, waited, running)
    return groups, total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--by", choices=("file", "folder", "test"), default="folder")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", choices=("cpu", "slept"), default="cpu")
    parser.add_argument("--running-as-slept", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args(argv)
    groups, total = read(args.file, args.by, args.running_as_slept)
    print(f"{'cpu s':>8} {'slept s':>8} {'busy':>5} {'tests':>6}  {args.by}")
    for key, sums in sorted(groups.items(), key=lambda kv: -getattr(kv[1], args.sort))[: args.top]:
        busy = sums.cpu / sums.quiet if sums.quiet else 0.0
        print(f"{sums.cpu:8.1f} {sums.slept:8.1f} {busy:5.2f} {sums.tests:6d}  {key}")
    busy = total.cpu / total.quiet if total.quiet else 0.0
    print(
        f"{total.cpu:8.1f} {total.slept:8.1f} {busy:5.2f} {total.tests:6d}  all (wall as run {total.wall:.1f} s)"
    )
    demand = args.workers * busy
    least = max(total.cpu / args.cores, total.quiet / args.workers)
    print(
        f"one worker keeps {busy:.2f} of a core busy on a quiet machine; {args.workers} workers ask for "
        f"{demand:.2f} cores of {args.cores}; least wall {least:.0f} s (tail and start-up not counted)"
    )


if __name__ == "__main__":
    main()
