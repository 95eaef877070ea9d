"""Seasons and "what changed" over a group's mirror of 10,000 and 100,000 matches: cold, warm, and after one
match more; this code beside an earlier one (`--before`, a tree of another commit, run with PYTHONPATH on it).

The history: synthetic matches over three years (60 players at 10,000, 500 at 100,000, 20 games), held in a
mirror file built once under `--work`. For each code and each measure, a copy of that file is read by new
processes, as the CLI or a seat starting would read it:

- `stats changes` (every event of the history: leaders, champions, nemeses, streaks, milestones), a quarter's
  standings (2025-Q2), a year's (2025), and the roll of honour by quarter;
- cold: the first ask in a new process on a mirror that keeps nothing yet (the matches parsed, the walk);
- warm: the same ask again in that process; then in a next process on the same file (what the first kept);
- one match more: a match appended to the mirror (as a sync appends it) and asked again, in the first process
  (a seat that keeps going) and in the next one.

The earlier code keeps nothing between asks: it answers each with `changes(held_matches(group))` and
`season_standings(held_matches(group), ...)` (the held matches parsed once per process). This code answers with
`rankterm.stats.kept` when it is there. Medians of `--runs` rounds, wall and CPU. Target: warm ≤ 1 s.

    git archive b4ccbe9 | tar -x -C /tmp/seasons-before      # the earlier code
    python benchmarks/bench_seasons.py [--runs 3] [--sizes 10000,100000] [--before /tmp/seasons-before]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from trees import group_tree

from rankterm.wire.models import Faction, Game, Match, Player

WEIGHTS = ["light", "midlight", "normal", "normal", "heavy"]
START = datetime(2024, 1, 1, 18, 0)
SPAN = timedelta(days=3 * 365)
MEASURES = ("stats changes", "standings 2025-Q2", "standings 2025", "roll of honour by quarter")
STEPS = ("cold", "warm", "one match more", "next process", "one more, next process")
SCOPE = "bench-seasons"


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


def rows(matches: list[Match]) -> list[tuple[int, str | None, str]]:
    """Matches as the mirror holds them: (number, game id, wire JSON)."""
    return [
        (m.number, None if m.game is None else str(m.game.id), json.dumps(m.to_wire(), separators=(",", ":")))
        for m in matches
    ]


def build(work: Path, size: int) -> Path:
    """The mirror of `size` matches (and two more, kept aside to append), built once under `work`."""
    from rankterm.mirror import Mirror

    path, extra = work / f"mirror-{size}.db", work / f"two-more-{size}.json"
    if path.exists() and extra.exists():
        return path
    t = time.perf_counter()
    matches = history(size + 2, 60 if size <= 10_000 else 500, random.Random(size))
    mirror = Mirror(path, SCOPE)
    mirror.held.put_matches(rows(matches[:-2]), replace_all=True, dumped=True)
    mirror.close()
    extra.write_text(json.dumps(rows(matches[-2:])))
    print(f"  mirror of {size:,} matches built in {time.perf_counter() - t:.0f} s", flush=True)
    return path


# ---------------------------------------------------------------------- in a child process (either code)


def open_group(path: Path | None) -> Any:
    """A group on the mirror at `path` (None: in memory), with a client that is never asked."""
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group, Mirror

    return Group(RankingClient("http://127.0.0.1:9/", key="k", secret="s"), Mirror(path, SCOPE))


def ask(measure: str) -> Callable[[Any], object]:
    """What the code in this process answers `measure` with, on a group."""
    from rankterm.stats.seasons import period_of, roll_of_honour, season_standings
    from rankterm.stats.source import held_matches
    from rankterm.wire.localtime import seat_zone

    zone = seat_zone("UTC")
    now = START + SPAN + timedelta(days=30)
    try:
        from rankterm.stats import kept
    except ImportError:  # the earlier code: nothing kept
        from rankterm.stats.changes import changes

        earlier: dict[str, Callable[[Any], object]] = {
            "stats changes": lambda g: changes(held_matches(g)),
            "standings 2025-Q2": lambda g: season_standings(held_matches(g), period_of("2025-Q2"), zone),
            "standings 2025": lambda g: season_standings(held_matches(g), period_of("2025"), zone),
            "roll of honour by quarter": lambda g: roll_of_honour(held_matches(g), "quarter", zone, now),
        }
        return earlier[measure]
    answers: dict[str, Callable[[Any], object]] = {
        "stats changes": kept.held_changes,
        "standings 2025-Q2": lambda g: kept.kept_season(g, period_of("2025-Q2"), zone),
        "standings 2025": lambda g: kept.kept_season(g, period_of("2025"), zone),
        "roll of honour by quarter": lambda g: kept.kept_roll(g, "quarter", zone, now),
    }
    return answers[measure]


def timed(run: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def child(path: Path, measure: str, first: bool, extra: Path) -> None:
    """One process's asks, printed as a JSON line: the first process cold then warm; the next one on the
    same file, then with one match appended."""
    group = open_group(path)
    answer = ask(measure)
    out: dict[str, tuple[float, float]] = {}
    more = [tuple(r) for r in json.loads(extra.read_text())]
    if first:
        out["cold"] = timed(lambda: answer(group))
        out["warm"] = timed(lambda: answer(group))
        group.mirror.held.put_matches(more[:1], dumped=True)
        out["one match more"] = timed(lambda: answer(group))
    else:
        out["next process"] = timed(lambda: answer(group))
        group.mirror.held.put_matches(more[1:], dumped=True)
        out["one more, next process"] = timed(lambda: answer(group))
    group.mirror.close()
    print(json.dumps(out))


# ---------------------------------------------------------------------- the parent


def run_child(tree: Path | None, path: Path, measure: str, first: bool, extra: Path) -> dict[str, Any]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(path), measure, str(extra)]
    if first:
        command.append("--first")
    done = subprocess.run(command, env=env, cwd="/", capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--before", type=Path, help="a tree of the earlier code (PYTHONPATH on it)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-seasons"))
    parser.add_argument("--measures", default=",".join(MEASURES))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--first", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        path, measure, extra = args.child
        child(Path(path), measure, args.first, Path(extra))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    codes: list[tuple[str, Path | None]] = [("this", None)]
    if args.before is not None:
        codes.insert(0, ("before", group_tree(args.before)))
    for size in (int(s) for s in args.sizes.split(",")):
        print(
            f"{size:,} matches over three years ({args.runs} run{'s' if args.runs > 1 else ''}):", flush=True
        )
        pristine = build(args.work, size)
        extra = args.work / f"two-more-{size}.json"
        for measure in args.measures.split(","):
            for label, tree in codes:
                figures: dict[str, list[tuple[float, float]]] = {step: [] for step in STEPS}
                for _ in range(args.runs):
                    copy = args.work / f"copy-{size}.db"
                    shutil.copyfile(pristine, copy)
                    for first in (True, False):
                        for step, value in run_child(tree, copy, measure, first, extra).items():
                            figures[step].append(tuple(value))
                    copy.unlink()
                said = "  ".join(
                    f"{step} {statistics.median(w for w, _ in values) * 1000:7.0f} ms"
                    f" ({statistics.median(c for _, c in values) * 1000:.0f} CPU)"
                    for step, values in figures.items()
                )
                print(f"  {measure:27s} {label:6s} {said}", flush=True)


if __name__ == "__main__":
    main()
