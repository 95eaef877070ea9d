"""The Stats mode's pickers and a game's page on a big group, from the mirror: this code beside earlier ones.

The group is `bench_stats_pages.py`'s (10,000 matches among 60 players built under `--work`, or with `--db FILE`
a service database kept by `bench_server.py --db`: 100,000 matches among 500 players), served by `rankterm
serve` (this checkout's code, quotas lifted). Each code tree (this checkout and each `--before LABEL=DIR`,
default before=/tmp/stats-before; each a tree with `rankterm.mirror.Group`) has its own mirror under `--work`
(mirror-LABEL), synced once before the runs. Then, `--runs` times, for each code in turn, a new process
(PYTHONPATH on that code) with a `Group` on its mirror:

- reads the pickers' roster (`source.held_roster`: who and what the held matches name), the first read in
  the process, wall and CPU: what the Stats mode reads in a thread before its pickers are filled;
- runs the app (`App.run_test`, 80x24) and opens the page of the game with the most matches
  (`GamePageScreen`): Enter -> the figures drawn, and -> the standings drawn with each player's played, won
  and rate in the game, wall and CPU (the process's: the app and its threads); the longest the event loop
  went without running from the push to the standings drawn (a frozen UI shows here).

Prints the medians (and the max) of each code, and the ratio of this code to each earlier one.

    python benchmarks/bench_stats_mode.py [--runs 5] [--before before=/tmp/stats-before] [--before head=DIR]
    python benchmarks/bench_stats_mode.py --db /tmp/g100k.db [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stats_cli import HERE, wait_for
from bench_stats_pages import LoopWatch, new_group, serve_group, settle
from trees import group_tree

from rankterm.mirror import Group


async def game_page(group: Group, game_id: int) -> dict[str, float]:
    """Open the game's page in the app: Enter -> figures drawn, -> standings drawn (wall, CPU), the worst stall."""
    from textual.widgets import DataTable

    from rankterm.config import Config
    from rankterm.tui.app import RanktermApp
    from rankterm.tui.screens.stats.game_page import GamePageScreen, GameStory

    app = RanktermApp(config=Config(), client=group, demo=True)
    out: dict[str, float] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        with LoopWatch() as watch:
            wall, cpu = time.perf_counter(), time.process_time()
            app.push_screen(GamePageScreen(game_id))
            while not isinstance(app.screen, GamePageScreen) or not app.screen.query(GameStory):
                await asyncio.sleep(0.001)
            story = app.screen.query_one(GameStory)
            table = story.query_one("#gs-standings", DataTable)
            while story.figures is None:
                await asyncio.sleep(0.001)
            out["figures_wall"], out["figures_cpu"] = time.perf_counter() - wall, time.process_time() - cpu
            while table.row_count == 0:
                await asyncio.sleep(0.001)
            out["standings_wall"] = time.perf_counter() - wall
            out["standings_cpu"] = time.process_time() - cpu
            out["frozen"] = watch.worst
        out["rows"] = table.row_count
        out["played"] = story.figures.played
        await pilot.press("escape")
        await settle(pilot)
    return out


async def child(url: str, key: str, mirror: Path, sync: bool) -> None:
    """In a process of one code: sync the mirror, or one run, printed as a JSON line."""
    os.environ["RANKTERM_LIVE_EVERY"] = "0"
    from rankterm.stats.source import held_roster, sync_group

    group = new_group(url, key, mirror)
    if sync:
        t = time.perf_counter()
        await sync_group(group, max_age=0)
        out: dict[str, Any] = {"synced": time.perf_counter() - t}
    else:
        wall, cpu = time.perf_counter(), time.process_time()
        roster = held_roster(group)
        out = {"roster_wall": time.perf_counter() - wall, "roster_cpu": time.process_time() - cpu}
        out["players"], out["games"] = len(roster.players), len(roster.games)
        game = max(roster.game_played, key=lambda g: (roster.game_played[g], -g))
        out.update(await game_page(group, game))
    await group.aclose()
    group.mirror.close()
    print(json.dumps(out))


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--matches", type=int, default=10_000)
    cli.add_argument("--players", type=int, default=60)
    cli.add_argument("--runs", type=int, default=5)
    cli.add_argument("--db", type=Path, help="a service database kept by bench_server.py --db")
    cli.add_argument("--work", type=Path, help="where the group and the mirrors are kept between runs")
    cli.add_argument(
        "--before",
        action="append",
        metavar="LABEL=DIR",
        help="an earlier code tree (default before=/tmp/stats-before)",
    )
    cli.add_argument("--child", nargs=4, metavar=("URL", "KEY", "MIRROR", "WHAT"), help=argparse.SUPPRESS)
    a = cli.parse_args()
    if a.child:
        url, key, mirror, what = a.child
        asyncio.run(child(url, key, Path(mirror), what == "sync"))
        return
    trees = dict(item.split("=", 1) for item in a.before or ["before=/tmp/stats-before"])
    codes = {label: group_tree(Path(tree)) for label, tree in trees.items()} | {"this": HERE}
    size = "100k" if a.db else f"{a.matches}"
    work, url, key, server = serve_group(a)
    port = int(url.rsplit(":", 1)[1].strip("/"))

    def run_child(code: str, what: str) -> dict[str, Any]:
        (work / f"mirror-{code}").mkdir(exist_ok=True)
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", url, key,
             str(work / f"mirror-{code}" / "mirror.db"), what],
            cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": str(codes[code])},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"{code}: the run failed: {done.stderr[-1500:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    try:
        wait_for(port)
        for code in codes:
            synced = run_child(code, "sync")["synced"]
            print(f"{code:6} mirror synced in {synced:.1f} s (cold the first time)")
        results: dict[str, list[dict[str, Any]]] = {code: [] for code in codes}
        for _ in range(a.runs):
            for code in codes:
                results[code].append(run_child(code, "run"))
    finally:
        server.terminate()
        server.wait()

    def med(code: str, name: str) -> float:
        return statistics.median(float(r[name]) * 1000 for r in results[code])

    this = results["this"]
    print(f"{size} matches; {this[0]['players']} players, {this[0]['games']} games; the game's page: "
          f"{this[0]['played']} matches, {this[0]['rows']} standings rows; each run a new process")  # fmt: skip
    earlier = [c for c in codes if c != "this"]
    head = "".join(f"{c:>16}" for c in codes) + "".join(f"{'this/' + c:>14}" for c in earlier)
    print(f"{'median of ' + str(a.runs) + ', ms (max)':52}{head}")
    for name, label in (
        ("roster_wall", "the pickers' roster, first read, wall"),
        ("roster_cpu", "the pickers' roster, first read, CPU"),
        ("figures_wall", "game page: open -> figures drawn, wall"),
        ("figures_cpu", "game page: open -> figures drawn, CPU"),
        ("standings_wall", "game page: open -> standings drawn, wall"),
        ("standings_cpu", "game page: open -> standings drawn, CPU"),
        ("frozen", "game page: longest event-loop stall"),
    ):
        cells = "".join(
            f"{f'{med(c, name):8.1f} ({max(float(r[name]) * 1000 for r in results[c]):6.1f})':>16}"
            for c in codes
        )
        ratios = "".join(f"{med('this', name) / med(c, name):13.3f}x" for c in earlier)
        print(f"{label:52}{cells}{ratios}")


if __name__ == "__main__":
    main()
