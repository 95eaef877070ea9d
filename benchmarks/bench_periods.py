"""The period pickers and the board's line of what changed tonight, over synthetic histories of 10,000 and
100,000 matches (`bench_seasons.history`: three years, 60 or 500 players).

- every past year, quarter and month with matches (`periods_by`: what `rankterm seasons` and the Seasons
  screen walk; the period pickers take the group's first and last match from its subsets instead);
- the board's tonight (`board.tonight`: a kept `Story` that walks only the new matches, then the events of the
  last 12 hours): with one match more, and with nothing new;
- a period's standings as the board reads them (`board.period_view`'s work: the standings, then the period's
  last five matches), for a quarter.

Target: each ≤ 1 s at 100,000 matches (warm: the matches are parsed). Medians of `--runs` calls, wall and CPU.

    python benchmarks/bench_periods.py [--runs 3] [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
from datetime import UTC, datetime

from bench_seasons import history, timed

from rankterm.stats.changes import Story
from rankterm.stats.seasons import period_matches, period_of, periods_by, season_standings
from rankterm.tui.screens.board import tonight
from rankterm.wire.localtime import seat_zone
from rankterm.wire.models import Match


def figures(matches: list[Match], runs: int) -> None:
    zone = seat_zone("UTC")
    wall, cpu = timed(
        lambda: [periods_by(matches, kind, zone) for kind in ("month", "quarter", "year")], runs
    )
    print(f"  {'past months, quarters and years':42s} {wall * 1000:8.0f} ms wall  {cpu * 1000:8.0f} ms CPU")
    quarter = period_of("2025-Q2")

    def board_period() -> object:
        season = season_standings(matches, quarter, zone)
        return season, period_matches(matches, quarter, zone)[-5:]

    wall, cpu = timed(board_period, runs)
    print(
        f"  {'board of a quarter (standings, last five)':42s} {wall * 1000:8.0f} ms wall  {cpu * 1000:8.0f} ms CPU"
    )
    last = datetime.strptime(matches[-1].date, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()
    story = Story()
    tonight(story, matches[: -runs - 1], last)  # the board's first read
    walls, cpus = [], []
    for grown in range(len(matches) - runs, len(matches) + 1):
        wall, cpu = timed(lambda grown=grown: tonight(story, matches[:grown], last), 1)
        walls.append(wall)
        cpus.append(cpu)
    print(
        f"  {'tonight, one match more':42s} {statistics.median(walls) * 1000:8.0f} ms wall  "
        f"{statistics.median(cpus) * 1000:8.0f} ms CPU"
    )
    wall, cpu = timed(lambda: tonight(story, matches, last), runs)
    print(f"  {'tonight, nothing new':42s} {wall * 1000:8.0f} ms wall  {cpu * 1000:8.0f} ms CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        matches = history(size, 60 if size <= 10_000 else 500, random.Random(size))
        print(f"{size:,} matches over three years:")
        figures(matches, args.runs)


if __name__ == "__main__":
    main()
