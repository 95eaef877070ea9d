"""The period pickers and the board's line of what changed tonight, over synthetic histories of 10,000 and
100,000 matches (`bench_seasons.history`: three years, 60 or 500 players), held in a mirror in memory.

- every past year, quarter and month with matches (`periods_by`: what `rankterm seasons` and the Seasons
  screen walk; the period pickers take the group's first and last match from its subsets instead);
- the board's tonight (`board.held_tonight`: the story the mirror keeps (`stats.kept`), walked only over the
  new matches, then the events of the last `TONIGHT_HOURS`): with one match more appended to the mirror (as a
  sync appends it), and with nothing new;
- a period's board (`board.period_view`: the standings from an even start, then the period's last five
  matches), for a quarter, once the held matches are parsed.

Target: each ≤ 1 s at 100,000 matches (warm: the matches are parsed). Medians of `--runs` calls, wall and CPU.

    python benchmarks/bench_periods.py [--runs 3] [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

from bench_seasons import SCOPE, history, open_group, rows, timed

from rankterm.mirror import Group
from rankterm.stats.seasons import period_of, periods_by
from rankterm.tui.screens.board import held_tonight, period_view
from rankterm.wire.localtime import SeatZone, seat_zone
from rankterm.wire.models import Match


def median_of(run: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs` calls."""
    times = [timed(run) for _ in range(runs)]
    return statistics.median(w for w, _ in times), statistics.median(c for _, c in times)


def every_period(matches: list[Match], zone: SeatZone) -> None:
    for kind in ("month", "quarter", "year"):
        periods_by(matches, kind, zone)


def line(label: str, wall: float, cpu: float) -> None:
    print(f"  {label:42s} {wall * 1000:8.0f} ms wall  {cpu * 1000:8.0f} ms CPU")


def figures(matches: list[Match], runs: int) -> None:
    zone = seat_zone("UTC")
    line("past months, quarters and years", *median_of(partial(every_period, matches, zone), runs))
    group: Group = open_group(None)
    first = len(matches) - runs
    group.mirror.held.put_matches(rows(matches[:first]), replace_all=True, dumped=True)
    last = datetime.strptime(matches[-1].date, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()
    line("tonight, the first read (the story walked)", *timed(partial(held_tonight, group, last)))
    walls, cpus = [], []
    for match in matches[first:]:
        group.mirror.held.put_matches(rows([match]), dumped=True)
        wall, cpu = timed(partial(held_tonight, group, last))
        walls.append(wall)
        cpus.append(cpu)
    line("tonight, one match more", statistics.median(walls), statistics.median(cpus))
    line("tonight, nothing new", *median_of(partial(held_tonight, group, last), runs))
    quarter = period_of("2025-Q2")
    period_view(group, quarter, zone)  # the held matches parsed
    line(
        "board of a quarter (standings, last five)",
        *median_of(partial(period_view, group, quarter, zone), runs),
    )
    group.mirror.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        matches = history(size, 60 if size <= 10_000 else 500, random.Random(size))
        print(f"{size:,} matches over three years (mirror scope {SCOPE}):")
        figures(matches, args.runs)


if __name__ == "__main__":
    main()
