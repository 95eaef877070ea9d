"""The minute before a match, measured: odds, the fairest splits, the table's model, and how often odds came true.

- odds (`chances_first`) for 2, 4, 8 and 12 factions of random skills: median per call (target ≤ 5 ms at 12);
- the three fairest splits of 12 players into 2, 3, 4 and 6 teams, random skills and a table of newcomers
  (all at the initial skill): median per search (target ≤ 1 s each);
- the table's model (`TableModel`) over a synthetic history of 10,000 and 100,000 matches (2-5 factions of
  1-3 players among 60 or 500 players, weights as the demo's): the full replay (wall and CPU), a follow with
  nothing new (a warm start of a model held in memory), one match appended, one match played before the
  others inserted at 90 % of the history (the replay from the checkpoint before it); the warm start from the
  model kept in the mirror (its JSON read back);
- on the demo group: the share of matches whose favourite finished first, beside picking at random and beside
  openskill's `predict_win` over the same ratings, with the Brier scores (`rankterm stats predictions`).

    python benchmarks/bench_odds.py [--runs 5] [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import demo_app
from rankterm.stats.model import TableModel
from rankterm.stats.odds import Side, chances_first
from rankterm.stats.predictions import score_predictions
from rankterm.stats.teams import fairest_splits
from rankterm.wire.models import Faction, Game, Match, Player
from rankterm.wire.rating import Skill, initial_skill

WEIGHTS = ["light", "midlight", "normal", "normal", "heavy"]


def timed(run: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs` calls."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def odds_hundred(table: Sequence[Side]) -> None:
    """`chances_first` of `table`, 100 times."""
    for _ in range(100):
        chances_first(table)


def replay(matches: Sequence[Match]) -> None:
    """A new model following the whole history."""
    TableModel().follow(matches)


def follow_both(model: TableModel, first: Sequence[Match], then: Sequence[Match]) -> None:
    """`model` back on `first`, then on to `then`."""
    model.follow(first)
    model.follow(then)


def restore(text: str) -> None:
    """A kept model read back from its JSON."""
    TableModel.restored(json.loads(text))


def history(size: int, players: int, rng: random.Random) -> list[Match]:
    """`size` matches among `players`, numbered in played order."""
    people = [Player(id=f"p{i}", display_name=f"Player {i}") for i in range(players)]
    games = [Game(id=g, name=f"Game {g}") for g in range(1, 21)]
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
        out.append(
            Match(
                id=f"m{number}",
                number=number,
                date=f"2026-01-01 00:00:{number % 60:02d}",
                weight=rng.choice(WEIGHTS),
                game=rng.choice(games),
                factions=factions,
            )
        )
    return out


def odds_figures(runs: int) -> None:
    rng = random.Random(7)
    print("odds for n factions (median of calls):")
    for n in (2, 4, 8, 12):
        table = [Side(rng.gauss(28, 6), rng.uniform(1, 8.3)) for _ in range(n)]
        wall, cpu = timed(partial(odds_hundred, table), runs)
        print(f"  {n:2d} factions: {wall * 10:.3f} ms wall, {cpu * 10:.3f} ms CPU a call")


def teams_figures(runs: int) -> None:
    rng = random.Random(3)
    spread = {f"P{i}": Skill(rng.gauss(27, 4), rng.uniform(2, 8.3)) for i in range(12)}
    newcomers = {f"P{i}": initial_skill() for i in range(12)}
    print("the three fairest splits of 12 players (median):")
    for teams in (2, 3, 4, 6):
        for name, skills in (("random skills", spread), ("newcomers", newcomers)):
            wall, cpu = timed(partial(fairest_splits, skills, teams), runs)
            print(f"  {teams} teams, {name:13s}: {wall * 1000:7.1f} ms wall, {cpu * 1000:7.1f} ms CPU")


def model_figures(runs: int, sizes: list[int]) -> None:
    print("the table's model (median):")
    for size in sizes:
        rng = random.Random(size)
        matches = history(size, 60 if size <= 10_000 else 500, rng)
        model = TableModel()
        full_wall, full_cpu = timed(partial(replay, matches), max(1, runs // 2))
        model.follow(matches)
        warm, _ = timed(partial(model.follow, matches), runs)
        extra = history(1, 60, random.Random(1))[0].model_copy(update={"id": "extra", "number": size + 1})
        appended = [*matches, extra]
        one, _ = timed(partial(follow_both, model, matches, appended), runs)
        at = size * 9 // 10
        inserted = [*matches[:at], extra.model_copy(update={"id": "early"}), *matches[at:]]
        moved, _ = timed(partial(follow_both, model, matches, inserted), runs)
        text = json.dumps(model.snapshot())
        restored, _ = timed(partial(restore, text), runs)
        print(
            f"  {size:>7,} matches: warm start from the kept model {restored * 1000:.1f} ms ({len(text) / 1e6:.1f} MB)"
        )
        print(
            f"  {size:>7,} matches: full replay {full_wall:6.2f} s wall ({full_cpu:6.2f} s CPU, "
            f"{full_wall / size * 1e6:.0f} µs a match); nothing new {warm * 1000:6.1f} ms; "
            f"one appended {one * 1000:6.1f} ms*; one played at 90 % {moved * 1000:7.1f} ms*"
        )
    print("  * each includes going back to the history as it was first (a second replay of the same size)")


async def demo_scores() -> None:
    app, key, secret = demo_app()
    async with Group(RankingClient.in_process(app, key=key, secret=secret)) as group:
        matches = sorted(await group.all_matches(), key=lambda m: m.number)
    s = score_predictions(matches)
    print(f"the demo's {s.matches} matches predicted from the ratings before each:")
    print(
        f"  favourite finished first: rankterm {s.winner_picked:.1%}, at random {s.baseline:.1%}, "
        f"openskill predict_win {s.openskill_winner_picked:.1%}"
    )
    print(f"  pairs ordered right: {s.pairwise:.1%} (at random 50%)")
    print(
        f"  Brier (lower is better): rankterm {s.brier:.3f}, even chances {s.baseline_brier:.3f}, "
        f"openskill predict_win {s.openskill_brier:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    odds_figures(args.runs)
    teams_figures(args.runs)
    model_figures(args.runs, [int(s) for s in args.sizes.split(",") if s])
    asyncio.run(demo_scores())


if __name__ == "__main__":
    main()
