"""A player's page in the real app on a big group: 10,000 matches among 60 players, from the mirror.

Builds the group as `bench_stats.py` does (the embedded service on a SQLite file, 60 players, 8 games),
syncs it into a file-backed mirror (both kept under `--work`, so a second run reuses them), then for each of
`--runs` players runs the app (`App.run_test`, 80x24, a client on that mirror and the in-process service):

- a new app and client on the mirror (a new process, as far as parsing goes: nothing parsed yet), opens the
  rankings, puts the cursor on the player and times Enter -> the page's figures drawn (its head line, facts
  and form on screen), wall and CPU (this process's: the app, the in-process service and the thread that
  reads the mirror);
- waits for the page to settle (the sync check, the ree history read within the quota), goes back, and
  opens the same page again: the requests that second open makes (0 when nothing changed);
- the longest the event loop went without running, from Enter to the page settled (a frozen UI shows here).

Prints medians (and the max) over the runs.

    python benchmarks/bench_stats_pages.py [--matches 10000] [--players 60] [--runs 5] [--work DIR]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stats import BIG, GAMES, plan

from rankterm.client.client import RankingClient
from rankterm.client.mirror import Mirror
from rankterm.config import Config
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from rankterm.stats import budget
from rankterm.stats.history import player_history
from rankterm.stats.source import held_roster, sync_group
from rankterm.wire.ids import service_scope

URL = "http://bench.rankterm/"
LIMITS = QuotaLimits(calls_per_hour=BIG, calls_per_year=BIG, matches_per_hour=BIG, matches_per_day=BIG,
                     matches_per_year=BIG, ranking_calls_per_hour=BIG, ranking_calls_per_day=BIG,
                     ranking_calls_per_year=BIG)  # fmt: skip


async def build(work: Path, matches: int, players: int) -> tuple[Store, str, str]:
    """The service's store and the client's credentials; the group and the mirror built when not there,
    and every player's ree history read into the mirror (as each page's first open does, in as many hours
    as the quota share takes: here the share's ledger is reset between players)."""
    done, wanted = work / "built.json", {"matches": matches, "players": players}
    built = json.loads(done.read_text()) if done.exists() else {}
    if {k: built.get(k) for k in wanted} != wanted:
        built = {}
        for name in ("service.db", "mirror.db", "creds.json"):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{work / name}{suffix}").unlink(missing_ok=True)
    store = Store(work / "service.db")
    if built:
        creds = json.loads((work / "creds.json").read_text())
        key, secret = creds["key"], creds["secret"]
    else:
        key, secret = store.create_client(store.create_group("Big group"))
        (work / "creds.json").write_text(json.dumps({"key": key, "secret": secret}))
    mirror = Mirror(work / "mirror.db", service_scope(URL, key))
    client = RankingClient.in_process(
        create_app(store, limits=LIMITS), key=key, secret=secret, base_url=URL, batch_size=100, mirror=mirror
    )
    t = time.perf_counter()
    if not built:
        rng = random.Random(11)
        people = [str((await client.create_player(f"Player {i:02d}")).id) for i in range(players)]
        games = {name: ((await client.create_game(name=name)).id, kind) for name, kind in GAMES}
        await client.add_matches(plan(rng, people, games, matches))
        built = dict(wanted)
        done.write_text(json.dumps(built))
    if not built.get("histories"):
        await sync_group(client, max_age=0)
        for pid in held_roster(client).players:
            mirror.set_note(budget.NOTE, None)
            await player_history(client, pid, max_points=12)
            mirror.set_note(budget.NOTE, None)
            await player_history(client, pid)
        built["histories"] = True
        done.write_text(json.dumps(built))
        print(f"group built, mirrored, histories read: {matches} matches, {players} players in "
              f"{time.perf_counter() - t:.0f} s")  # fmt: skip
    await client.aclose()
    mirror.close()
    return store, key, secret


def new_client(store: Store, key: str, secret: str, work: Path) -> RankingClient:
    """A client as a new process has it: the mirror file opened afresh, nothing parsed."""
    mirror = Mirror(work / "mirror.db", service_scope(URL, key))
    return RankingClient.in_process(
        create_app(store, limits=LIMITS), key=key, secret=secret, base_url=URL, mirror=mirror
    )


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


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def one_run(store: Store, key: str, secret: str, work: Path, row: int) -> dict[str, float | int | str]:
    from textual.widgets import DataTable

    from rankterm.stats import source
    from rankterm.tui.app import RanktermApp
    from rankterm.tui.screens.stats.player_page import PlayerPageScreen, PlayerStory

    for name in ("_parsed", "_narrow_memo", "_rosters"):
        getattr(source, name, {}).clear()  # as a new process: nothing parsed yet
    client = new_client(store, key, secret, work)
    app = RanktermApp(config=Config(), client=client, demo=True)
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

    PlayerPageScreen.on_mount = note_mount  # type: ignore[method-assign]
    PlayerPageScreen._compositor_refresh = note_paint  # type: ignore[method-assign]
    PlayerPageScreen.read_held = timed("read", PlayerPageScreen.read_held)  # type: ignore[method-assign]
    PlayerStory.show = timed("show", PlayerStory.show)  # type: ignore[method-assign]
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
        PlayerPageScreen.on_mount = on_mount  # type: ignore[method-assign]
        out["mounted"] = mounted[0] - wall
        PlayerPageScreen.read_held = PlayerPageScreen.__dict__["read_held"].__closure__[0].cell_contents
        PlayerStory.show = PlayerStory.__dict__["show"].__closure__[0].cell_contents
        out["figures_wall"] = parts["read"][0] + parts["show"][0]
        out["figures_cpu"] = parts["read"][1] + parts["show"][1]
        out["played"] = story.figures.played
        history = story.history
        out["points"] = f"{history.loaded}/{history.wanted}" if history else "-"
        await pilot.press("escape")
        await settle(pilot)
        calls = client.calls
        painted.clear()
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.press("enter")
        while not painted:
            await asyncio.sleep(0.001)
        out["second_wall"] = painted[0][0] - wall
        out["second_cpu"] = painted[0][1] - cpu
        await settle(pilot)
        out["second_requests"] = client.calls - calls
        await pilot.press("escape")
        await settle(pilot)
        PlayerPageScreen._compositor_refresh = refresh  # type: ignore[method-assign]
    client.mirror.close()
    return out


async def main(matches: int, players: int, runs: int, work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    for name, value in (("RANKTERM_CONFIG", work / "config.toml"), ("RANKTERM_CACHE_DIR", work / "cache"),
                        ("RANKTERM_DATA_DIR", work / "data"), ("RANKTERM_LIVE_EVERY", "0")):  # fmt: skip
        os.environ[name] = str(value)  # nothing of the user's is touched; no live probe between the opens
    store, key, secret = await build(work, matches, players)
    results = []
    for i in range(runs):
        row = [0, 5, 11, 17, 23][i % 5] + i // 5
        results.append(await one_run(store, key, secret, work, row))

    def med(name: str) -> str:
        values = [float(r[name]) * 1000 for r in results]
        return f"{statistics.median(values):7.1f} ms (max {max(values):.1f})"

    print(f"{matches} matches, {players} players; pages of players playing "
          f"{', '.join(str(r['played']) for r in results)} matches (chart points {', '.join(str(r['points']) for r in results)})")  # fmt: skip
    print(
        "figures computed: the player's matches read from the mirror (in a thread) + player_figures and the"
    )
    print(f"  page's widgets filled, first open in a process, wall  {med('figures_wall')}")
    print(f"  the same, CPU                                         {med('figures_cpu')}")
    print(f"Enter -> the page composed and mounted (Textual), wall  {med('mounted')}")
    print(f"Enter -> figures drawn, first open in a process, wall   {med('wall')}")
    print(f"Enter -> figures drawn, first open in a process, CPU    {med('cpu')}")
    print(f"longest event-loop stall from Enter to page settled     {med('frozen')}")
    print(f"second open, Enter -> figures drawn, wall               {med('second_wall')}")
    print(f"second open, Enter -> figures drawn, CPU                {med('second_cpu')}")
    print(f"requests made by the second opens: {[r['second_requests'] for r in results]}")
    store.close()


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--matches", type=int, default=10_000)
    cli.add_argument("--players", type=int, default=60)
    cli.add_argument("--runs", type=int, default=5)
    cli.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "rankterm-bench-stats-pages")
    a = cli.parse_args()
    asyncio.run(main(a.matches, a.players, a.runs, a.work))
