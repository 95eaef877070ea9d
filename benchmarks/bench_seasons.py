"""Seasons and "what changed", measured over synthetic histories of 10,000 and 100,000 matches.

- a season's standings (`season_standings`, a hard reset replayed by the table's model) for one quarter and
  for one year of a three-year history;
- the roll of honour by quarter (every past quarter's standings);
- what changed (`changes`) over the whole history: leaders, champions, nemeses, streaks, milestones; and a
  story kept between reads (`Story`, as Home keeps it) following one match more, or nothing new.

Target: each ≤ 1 s at 100,000 matches. Medians of `--runs` calls, wall and CPU.

    python benchmarks/bench_seasons.py [--runs 3] [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from rankterm.stats.changes import Story, changes
from rankterm.stats.seasons import period_of, roll_of_honour, season_standings
from rankterm.wire.localtime import seat_zone
from rankterm.wire.models import Faction, Game, Match, Player

WEIGHTS = ["light", "midlight", "normal", "normal", "heavy"]
START = datetime(2024, 1, 1, 18, 0)
SPAN = timedelta(days=3 * 365)


def timed(run: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs` calls."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def history(size: int, players: int, rng: random.Random) -> list[Match]:
    """`size` matches among `players` over three years, numbered and dated in played order."""
    people = [Player(id=f"p{i}", display_name=f"Player {i}") for i in range(players)]
    games = [Game(id=g, name=f"Game {g}") for g in range(1, 21)]
    step = SPAN / size
    out = []
    for number in range(1, size + 1):
        sides = rng.randint(2, 5)
        size_of = rng.choice([1, 1, 1, 2, 3])
        chosen = rng.sample(people, sides * size_of)
        ranks = sorted(rng.randint(1, sides) for _ in range(sides))
        factions = [
            Faction(rank=rank, players=chosen[i * size_of : (i + 1) * size_of])
            for i, rank in enumerate(ranks)
        ]
        when = START + step * number
        out.append(
            Match(
                id=f"m{number}",
                number=number,
                date=f"{when:%Y-%m-%d %H:%M:%S}",
                weight=rng.choice(WEIGHTS),
                game=rng.choice(games),
                factions=factions,
            )
        )
    return out


def figures(matches: list[Match], runs: int) -> None:
    """Print the median of each measured call over `matches`."""
    zone = seat_zone("UTC")
    now = START + SPAN + timedelta(days=30)
    for label, run in (
        (
            "season standings, one quarter (2025-Q2)",
            lambda: season_standings(matches, period_of("2025-Q2"), zone),
        ),
        ("season standings, one year (2025)", lambda: season_standings(matches, period_of("2025"), zone)),
        ("roll of honour by quarter", lambda: roll_of_honour(matches, "quarter", zone, now)),
        ("what changed, whole history", lambda: changes(matches)),
    ):
        wall, cpu = timed(run, runs)
        print(f"  {label:42s} {wall * 1000:8.0f} ms wall  {cpu * 1000:8.0f} ms CPU")
    story = Story()
    story.follow(matches[: -runs - 1])
    walls, cpus = [], []
    for grown in range(len(matches) - runs, len(matches) + 1):
        wall, cpu = timed(lambda grown=grown: story.follow(matches[:grown]), 1)
        walls.append(wall)
        cpus.append(cpu)
    print(
        f"  {'kept story, one match more':42s} {statistics.median(walls) * 1000:8.0f} ms wall  "
        f"{statistics.median(cpus) * 1000:8.0f} ms CPU"
    )
    wall, cpu = timed(lambda: story.follow(matches), runs)
    print(f"  {'kept story, nothing new':42s} {wall * 1000:8.0f} ms wall  {cpu * 1000:8.0f} ms CPU")


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
