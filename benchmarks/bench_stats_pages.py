"""A player's page in the real app on a big group, from the mirror: this code beside an earlier one.

The group: 10,000 matches among 60 players built as `bench_stats.py` does (the embedded service on a SQLite
file under `--work`, kept for the next run), or with `--db FILE` a service database kept by
`bench_server.py --db` (100,000 matches among 500 players; copied once under `--work`). It is served by
`rankterm serve` (this checkout's code, quotas lifted) on a port kept with it. Each code tree (`--before`,
default /tmp/stats-before: `git worktree add /tmp/stats-before <commit>`, a commit with
`rankterm.mirror.Group`; and this checkout) has its own mirror under `--work`, synced once before the runs.
Then, `--runs` times, for each code in turn, a new process (PYTHONPATH on that code) runs the app
(`App.run_test`, 80x24) with a `Group` on its mirror:

- opens the rankings, puts the cursor on a player and times Enter -> the page's figures drawn (its head
  line, facts and form on screen), wall and CPU (the process's: the app and the thread reading the mirror),
  and the page's own work (the read in a thread + drawing the figures);
- waits for the page to settle (the sync check, the ree history read within the quota), goes back, and
  opens the same page again: the time and the requests that second open makes;
- the longest the event loop went without running, from Enter to the page settled (a frozen UI shows here).

Prints the medians (and the max) of each code and their ratio this/before.

    python benchmarks/bench_stats_pages.py [--matches 10000] [--players 60] [--runs 5] [--work DIR]
    python benchmarks/bench_stats_pages.py --db /tmp/g100k.db [--runs 5] [--work DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stats_cli import HERE, free_port, prepare, wait_for
from trees import group_tree

from rankterm.client.client import RankingClient
from rankterm.config import Config
from rankterm.mirror import Group, Mirror

SECRET_ENV = "RANKTERM_BENCH_SECRET"


def build(work: Path, matches: int, players: int) -> None:
    """The group of `matches` among `players` in `work`/service.db (`bench_stats.plan`), when not there."""
    import subprocess

    from bench_stats import BIG, GAMES, plan

    from rankterm.server.app import create_app
    from rankterm.server.quota import QuotaLimits
    from rankterm.server.store import Store

    done, wanted = work / "built.json", {"matches": matches, "players": players}
    if done.exists() and json.loads(done.read_text()).get("group") == wanted:
        return
    for path in work.glob("*"):
        if path.is_file():
            path.unlink()
    big = {name: BIG for name in QuotaLimits.__dataclass_fields__}
    store = Store(work / "service.db")
    key, secret = store.create_client(store.create_group("Big group"))

    async def record() -> None:
        app = create_app(store, limits=QuotaLimits(**big))
        async with RankingClient.in_process(app, key=key, secret=secret, batch_size=100) as client:
            rng = random.Random(11)
            group = Group(client)
            people = [str((await group.create_player(f"Player {i:02d}")).id) for i in range(players)]
            games = {name: ((await group.create_game(name=name)).id, kind) for name, kind in GAMES}
            await group.add_matches(plan(rng, people, games, matches))

    t = time.perf_counter()
    asyncio.run(record())
    store.close()
    subprocess.run(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(work / "service.db"), "--quota", "unlimited",
         "--show-quota"],
        cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": str(HERE)}, capture_output=True, check=True,
    )  # fmt: skip
    (work / "creds.json").write_text(json.dumps({"key": key, "secret": secret, "port": free_port()}))
    done.write_text(json.dumps({"group": wanted}))
    print(f"group built: {matches} matches, {players} players in {time.perf_counter() - t:.0f} s")


def new_group(url: str, key: str, mirror: Path) -> Group:
    """The group as a new process of this code reads it: the mirror file opened afresh, nothing parsed."""
    client = RankingClient(url, key=key, secret=os.environ[SECRET_ENV])
    return Group(client, Mirror(mirror, client.scope))


class LoopWatch:
    """The longest the event loop went without running a 5 ms tick: how long the UI was frozen."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.005)
            last = now

    def __enter__(self) -> LoopWatch:
        self.worst = 0.0
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def settle(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def one_run(group: Group, row: int) -> dict[str, float | int | str]:
    from textual.widgets import DataTable

    from rankterm.tui.app import RanktermApp
    from rankterm.tui.screens.stats.player_page import PlayerPageScreen, PlayerStory

    app = RanktermApp(config=Config(), client=group, demo=True)
    out: dict[str, float | int | str] = {}
    parts: dict[str, tuple[float, float]] = {}

    def timed(name: str, call: Any) -> Any:
        """`call`, its first run's wall and CPU (its thread's) kept under `name`."""

        def run(*args: Any, **kw: Any) -> Any:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return call(*args, **kw)
            finally:
                parts.setdefault(name, (time.perf_counter() - wall, time.thread_time() - cpu))

        return run

    mounted: list[float] = []
    on_mount = PlayerPageScreen.on_mount

    def note_mount(self: PlayerPageScreen) -> None:
        mounted.append(time.perf_counter())
        on_mount(self)

    painted: list[tuple[float, float]] = []
    refresh = PlayerPageScreen._compositor_refresh

    def note_paint(self: PlayerPageScreen) -> None:
        refresh(self)
        if not painted and self.query(PlayerStory) and self.query_one(PlayerStory).figures is not None:
            painted.append((time.perf_counter(), time.process_time()))  # the first paint with the figures

    mounts = mock.patch.object(PlayerPageScreen, "on_mount", note_mount)
    paints = mock.patch.object(PlayerPageScreen, "_compositor_refresh", note_paint)
    reads = mock.patch.object(PlayerPageScreen, "read_held", timed("read", PlayerPageScreen.read_held))
    shows = mock.patch.object(PlayerStory, "show", timed("show", PlayerStory.show))
    for patch in (mounts, paints, reads, shows):
        patch.start()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        table = app.screen.query_one("#rank-table", DataTable)
        table.focus()
        table.move_cursor(row=row)
        await settle(pilot)
        with LoopWatch() as watch:
            wall, cpu = time.perf_counter(), time.process_time()
            await pilot.press("enter")
            page = app.screen
            assert isinstance(page, PlayerPageScreen)
            story = page.query_one(PlayerStory)
            while not painted:
                await asyncio.sleep(0.001)
            out["wall"] = painted[0][0] - wall
            out["cpu"] = painted[0][1] - cpu
            await settle(pilot)
            out["frozen"] = watch.worst
        assert story.figures is not None
        for patch in (mounts, reads, shows):  # the first open only
            patch.stop()
        out["mounted"] = mounted[0] - wall
        out["figures_wall"] = parts["read"][0] + parts["show"][0]
        out["figures_cpu"] = parts["read"][1] + parts["show"][1]
        out["played"] = story.figures.played
        history = story.history
        out["points"] = f"{history.loaded}/{history.wanted}" if history else "-"
        await pilot.press("escape")
        await settle(pilot)
        calls = group.client.calls
        painted.clear()
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.press("enter")
        while not painted:
            await asyncio.sleep(0.001)
        out["second_wall"] = painted[0][0] - wall
        out["second_cpu"] = painted[0][1] - cpu
        await settle(pilot)
        out["second_requests"] = group.client.calls - calls
        await pilot.press("escape")
        await settle(pilot)
        paints.stop()
    group.mirror.close()
    return out


async def child(url: str, key: str, mirror: Path, row: int | None) -> None:
    """In a process of one code: sync the mirror (`row` None), or one run, printed as a JSON line."""
    os.environ["RANKTERM_LIVE_EVERY"] = "0"  # no live probe between the opens
    if row is None:
        from rankterm.stats.source import sync_group

        group = new_group(url, key, mirror)
        t = time.perf_counter()
        await sync_group(group, max_age=0)
        await group.aclose()
        group.mirror.close()
        print(json.dumps({"synced": time.perf_counter() - t}))
        return
    group = new_group(url, key, mirror)
    out = await one_run(group, row)
    await group.aclose()
    print(json.dumps(out))


def serve_group(a: argparse.Namespace) -> tuple[Path, str, str, Any]:
    """The benchmark's group served by `rankterm serve` in the background, in a work folder of its own (nothing
    of the user's is touched): the folder, the service's URL, the client's key and the server process."""
    import subprocess

    size = "100k" if a.db else f"{a.matches}"
    work = a.work or Path(tempfile.gettempdir()) / f"rankterm-bench-stats-pages-{size}"
    work.mkdir(parents=True, exist_ok=True)
    for name, value in (("RANKTERM_CONFIG", work / "config.toml"), ("RANKTERM_CACHE_DIR", work / "cache"),
                        ("RANKTERM_DATA_DIR", work / "data")):  # fmt: skip
        os.environ[name] = str(value)  # nothing of the user's is touched
    if a.db:
        _, key, secret, port = prepare(a.db, work)
    else:
        build(work, a.matches, a.players)
        creds = json.loads((work / "creds.json").read_text())
        key, secret, port = creds["key"], creds["secret"], creds["port"]
    os.environ[SECRET_ENV] = secret
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(work / "service.db"), "--port", str(port)],
        cwd=tempfile.gettempdir(),
        env={**os.environ, "PYTHONPATH": str(HERE)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return work, url, key, server


def main() -> None:
    import subprocess

    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--matches", type=int, default=10_000)
    cli.add_argument("--players", type=int, default=60)
    cli.add_argument("--runs", type=int, default=5)
    cli.add_argument(
        "--db", type=Path, help="a service database kept by bench_server.py --db (else one is built)"
    )
    cli.add_argument("--work", type=Path, help="where the group and the mirrors are kept between runs")
    cli.add_argument("--before", type=Path, default=Path("/tmp/stats-before"), help="the earlier code tree")
    cli.add_argument("--child", nargs=4, metavar=("URL", "KEY", "MIRROR", "ROW"), help=argparse.SUPPRESS)
    a = cli.parse_args()
    if a.child:
        url, key, mirror, row = a.child
        asyncio.run(child(url, key, Path(mirror), None if row == "sync" else int(row)))
        return
    before = group_tree(a.before)
    size = "100k" if a.db else f"{a.matches}"
    work, url, key, server = serve_group(a)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    codes = {"before": before, "this": HERE}

    def run_child(code: str, row: str) -> dict[str, Any]:
        done = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                url,
                key,
                str(work / code / "mirror.db"),
                row,
            ],
            cwd=tempfile.gettempdir(),
            env={**os.environ, "PYTHONPATH": str(codes[code])},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            raise SystemExit(f"{code}: the run failed: {done.stderr[-1500:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    try:
        wait_for(port)
        for code in codes:
            (work / code).mkdir(exist_ok=True)
            synced = run_child(code, "sync")["synced"]
            print(f"{code:6} mirror synced in {synced:.1f} s (cold the first time)")
        results: dict[str, list[dict[str, Any]]] = {code: [] for code in codes}
        for i in range(a.runs):
            row = [0, 5, 11, 17, 23][i % 5] + i // 5
            for code in codes:
                results[code].append(run_child(code, str(row)))
    finally:
        server.terminate()
        server.wait()

    def med(code: str, name: str) -> float:
        return statistics.median(float(r[name]) * 1000 for r in results[code])

    this = results["this"]
    print(f"{size} matches; pages of players playing {', '.join(str(r['played']) for r in this)} matches "
          f"(chart points {', '.join(str(r['points']) for r in this)}); each open a new process")  # fmt: skip
    print(f"{'median of ' + str(a.runs) + ', ms (max)':58}{'before':>16}{'this':>16}{'this/before':>13}")
    for name, label in (
        ("figures_wall", "the page's read (a thread) + figures drawn, wall"),
        ("figures_cpu", "the same, CPU"),
        ("mounted", "Enter -> the page composed and mounted (Textual), wall"),
        ("wall", "Enter -> figures drawn, first open in a process, wall"),
        ("cpu", "Enter -> figures drawn, first open in a process, CPU"),
        ("frozen", "longest event-loop stall from Enter to page settled"),
        ("second_wall", "second open, Enter -> figures drawn, wall"),
        ("second_cpu", "second open, Enter -> figures drawn, CPU"),
    ):
        cells = [
            f"{med(c, name):7.1f} ({max(float(r[name]) * 1000 for r in results[c]):6.1f})" for c in codes
        ]
        print(f"{label:58}{cells[0]:>16}{cells[1]:>16}{med('this', name) / med('before', name):12.2f}x")
    for code in codes:
        print(f"{code:6} requests made by the second opens: {[r['second_requests'] for r in results[code]]}")


if __name__ == "__main__":
    main()
