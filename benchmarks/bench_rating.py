"""The rating model's choice, measured: tie properties, ordinary matches, accuracy and cost of openskill's models.

    python benchmarks/bench_rating.py [--matches 2000] [--seasons 20]

For each candidate model (openskill's PlackettLuce, BradleyTerryFull, ThurstoneMostellerFull), run through
``rating.rate_match`` (weights, the 1/(n - 1) scale, bot copies and sigma rules as the service applies them):

1. Ties: random matches from equal ratings (2-8 single-player factions or teams of one size, ranks drawn
   with ties at every rank, a bot faction now and then, every weight): how many break "a faction that
   placed better never ends with a lower mu or ree than one it beat", "tied factions end with the same
   skill", "a match's result does not depend on the order its factions are listed in", and how many
   2-player ties of equals move mu.
2. Ordinary matches: mu change of an expected result and of an upset, in a duel and in a 4-player match, and
   of the winner of a fresh 4- and 8-player match (with the winner's sigma).
3. Accuracy: simulated groups (12 players with hidden strengths, 2-6 player matches, 10 % ties, 600 matches):
   how often the ree before a match orders two of its players as they then finish (second half of the
   season), and the Kendall tau of the final standings against the hidden strengths; mean over seasons.
4. Cost: CPU microseconds per ``rate_match`` over the demo season's 300 matches (2-5 factions, teams, a bot,
   ties), rated in order; the median of 7 runs.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openskill.models import BradleyTerryFull, PlackettLuce, ThurstoneMostellerFull

from rankterm.server.demo import demo_plan
from rankterm.wire import rating
from rankterm.wire.rating import WEIGHT_FACTORS, FactionResult, Skill, rate_match, ree

CANDIDATES: dict[str, Callable[[], object]] = {
    "PlackettLuce": PlackettLuce,
    "BradleyTerryFull": BradleyTerryFull,
    "ThurstoneMostellerFull": ThurstoneMostellerFull,
}


@contextmanager
def rating_with(name: str) -> Iterator[None]:
    """rate_match with another openskill model for the time of the block."""
    saved = rating._model
    setattr(rating, "_model", cache(CANDIDATES[name]))  # noqa: B010  (a private function, swapped on purpose)
    try:
        yield
    finally:
        setattr(rating, "_model", saved)  # noqa: B010


def random_equal_match(rng: random.Random) -> tuple[list[FactionResult], dict[str, Skill], str]:
    count = rng.randint(2, 8)
    size = rng.randint(1, 3)
    bot = rng.randrange(count) if rng.random() < 0.3 else None
    factions = [
        FactionResult(rng.randint(1, count), (f"bot:{i}",), bot=True)
        if i == bot
        else FactionResult(rng.randint(1, count), tuple(f"f{i}m{m}" for m in range(size)))
        for i in range(count)
    ]
    common = Skill(rng.uniform(-20.0, 60.0), rng.uniform(0.5, 25.0 / 3.0)) if rng.random() < 0.7 else None
    skills = {} if common is None else {k: common for f in factions for k in f.participants}
    return factions, skills, rng.choice(list(WEIGHT_FACTORS))


def close(a: Skill, b: Skill) -> bool:
    return math.isclose(a.mu, b.mu, abs_tol=1e-9) and math.isclose(a.sigma, b.sigma, abs_tol=1e-9)


def tie_properties(matches: int) -> dict[str, int]:
    rng = random.Random(1)
    broken = {"order kept": 0, "ties together": 0, "listing order": 0, "2-player tie moves mu": 0}
    for _ in range(matches):
        factions, skills, weight = random_equal_match(rng)
        new = rate_match(factions, skills, weight)
        pairs = list(itertools.permutations(factions, 2))
        if any(
            f.rank < g.rank
            and (
                new[f.participants[0]].mu < new[g.participants[0]].mu
                or ree(new[f.participants[0]]) < ree(new[g.participants[0]])
            )
            for f, g in pairs
        ):
            broken["order kept"] += 1
        if any(
            f.rank == g.rank and not close(new[f.participants[0]], new[g.participants[0]]) for f, g in pairs
        ):
            broken["ties together"] += 1
        shuffled = factions[:]
        rng.shuffle(shuffled)
        again = rate_match(shuffled, skills, weight)
        if any(not close(again[k], new[k]) for k in new):
            broken["listing order"] += 1
        common = Skill(rng.uniform(-20.0, 60.0), rng.uniform(0.5, 25.0 / 3.0))
        tie = rate_match(
            [FactionResult(1, ("a",)), FactionResult(1, ("b",))], {"a": common, "b": common}, weight
        )
        if tie["a"].mu != common.mu or tie["b"].mu != common.mu:
            broken["2-player tie moves mu"] += 1
    return broken


def ordinary_matches() -> str:
    strong, weak, avg = Skill(32.0, 3.0), Skill(18.0, 3.0), Skill(25.0, 3.0)
    duel = {"s": strong, "w": weak}

    def gain(factions: list[FactionResult], skills: dict[str, Skill], key: str) -> float:
        return rate_match(factions, skills, "normal")[key].mu - skills[key].mu

    expected = gain([FactionResult(1, ("s",)), FactionResult(2, ("w",))], duel, "s")
    upset = gain([FactionResult(2, ("s",)), FactionResult(1, ("w",))], duel, "w")
    four = {"s": strong, "a": avg, "b": avg, "c": avg}
    others = [FactionResult(r, (k,)) for r, k in ((2, "a"), (3, "b"), (4, "c"))]
    first = gain([FactionResult(1, ("s",)), *others], four, "s")
    last = gain([FactionResult(5, ("s",)), *others], four, "s")
    fresh = rate_match([FactionResult(r, (f"p{r}",)) for r in range(1, 5)], {}, "normal")["p1"].mu - 25.0
    eight = rate_match([FactionResult(r, (f"p{r}",)) for r in range(1, 9)], {}, "normal")["p1"]
    return (
        f"duel 32 v 18: expected {expected:+.2f}, upset {upset:+.2f} | 32 among three 25s: first {first:+.2f}, "
        f"last {last:+.2f} | fresh 4-player winner {fresh:+.2f} | fresh 8-player winner {eight.mu - 25.0:+.2f}, "
        f"sigma 8.33 -> {eight.sigma:.2f}"
    )


def accuracy(seasons: int) -> str:
    accuracies, taus = [], []
    for seed in range(seasons):
        rng = random.Random(seed)
        hidden = {f"p{i}": rng.gauss(0.0, 1.0) for i in range(12)}
        skills: dict[str, Skill] = {}
        right = total = 0
        for number in range(600):
            who = rng.sample(sorted(hidden), rng.choice([2, 3, 4, 4, 5, 6]))
            order = sorted(who, key=lambda p: -(hidden[p] + rng.gauss(0.0, 1.5)))
            ranks: dict[str, int] = {}
            for place, player in enumerate(order):
                ranks[player] = ranks[order[place - 1]] if place and rng.random() < 0.1 else place + 1
            if number >= 300:
                for a, b in itertools.combinations(who, 2):
                    ra, rb = (ree(skills.get(p, rating.initial_skill())) for p in (a, b))
                    if ranks[a] != ranks[b] and ra != rb:
                        total += 1
                        right += (ra > rb) == (ranks[a] < ranks[b])
            skills.update(rate_match([FactionResult(ranks[p], (p,)) for p in who], skills, "normal"))
        standing = sorted(hidden, key=lambda p: -ree(skills.get(p, rating.initial_skill())))
        position = {p: i for i, p in enumerate(standing)}
        truth = sorted(hidden, key=lambda p: -hidden[p])
        concordant = sum(1 if position[a] < position[b] else -1 for a, b in itertools.combinations(truth, 2))
        accuracies.append(right / total)
        taus.append(concordant / 66)
    return f"next-match pairs ordered right {statistics.mean(accuracies):.3f}, final Kendall tau {statistics.mean(taus):.3f}"


def demo_season() -> list[tuple[list[FactionResult], str]]:
    plan = demo_plan(seed=7, matches=300, last_day=date(2026, 5, 28))
    return [
        ([FactionResult(f.rank, f.players or (f"bot:{m.game}",), bot=f.bot) for f in m.factions], m.weight)
        for m in plan.matches
    ]


def cost(season: list[tuple[list[FactionResult], str]]) -> float:
    rate_match(season[0][0], {}, season[0][1])  # import openskill and build the model outside the timing
    runs = []
    for _ in range(7):
        skills: dict[str, Skill] = {}
        start = time.process_time()
        for factions, weight in season:
            skills.update(rate_match(factions, skills, weight))
        runs.append((time.process_time() - start) / len(season) * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000, help="random matches for the tie properties")
    parser.add_argument("--seasons", type=int, default=20, help="simulated seasons for the accuracy")
    args = parser.parse_args()
    season = demo_season()
    for name in CANDIDATES:
        with rating_with(name):
            print(name)
            broken = tie_properties(args.matches)
            print(
                f"  ties, matches breaking each of {args.matches}: "
                + ", ".join(f"{k} {v}" for k, v in broken.items())
            )
            print(f"  ordinary matches, mu change: {ordinary_matches()}")
            print(f"  accuracy: {accuracy(args.seasons)}")
            print(f"  cost: {cost(season):.0f} µs a match of CPU (demo season, median of 7)")


if __name__ == "__main__":
    main()
