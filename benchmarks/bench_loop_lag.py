"""The event loop's lag while a person opens every screen of the app on a big group: how long the UI froze.

The group: `--matches` (10,000 by default; 100,000 with `--matches 100000`) built once with
`bench_server.py`'s loader (500 players at 100,000, 60 below 20,000) under `--work`, or a service database
kept by `bench_server.py --db` (`--db FILE`; copied once). It is served by `rankterm serve` (this checkout's
code, quotas lifted) on 127.0.0.1; the app of a code tree (this checkout, or `--code DIR`, e.g. an export
of an earlier commit) reads it through one mirror under `--work`, synced once (then brought up to date).

Each run is a new process (PYTHONPATH on the code) running the app headless (`App.run_test`, 80x24) with a
client on its mirror. A 10 ms ticker on the app's loop records how late each tick fires (its lag: the time
the loop spent on something else). Then, step by step, it opens what a person can open, as the keys do (a
picker's value is set as its overlay would set it), and waits until the step's workers are done and the
loop has been quiet for `QUIET` s: the first open of the app (Home's first data), Rankings (its subset
switch, the period picker's periods: this month, quarter, year, an earlier year, quarter and month, on the
main subset and on the largest game's), Players, a player's page, Games, a game's page, Matches (its subset
switch), the match form, Service, Seasons (by month, quarter, year), the Stats mode's tabs, the outbox, the
scoreboard, Home again.

Printed per step: the longest lag and the p99 of the ticks' lags (ms), the ticks counted and the seconds
until settled; with several runs, the median (and max) of each. The load average before and after, and the
machine's floor in the same minutes: the ticker idle, beside a thread of pure Python, and in a bare Textual app
opening a trivial screen beside that thread.
`--profile` also samples the loop thread's stack from a watcher thread whenever a tick is 20 ms overdue,
and prints, for each step over `LIMIT` ms, the places (rankterm's innermost frames) seen most. `--spy FILE`
shows who holds the interpreter while the loop is late (a thread's C call that keeps the GIL stalls the loop
though the loop's thread has nothing to do): the run goes under `py-spy record --gil` (a chrome trace kept in
FILE, installed with `pip install py-spy`), and for each step over `LIMIT` ms it prints, of the time its
stalls lasted, the share each place held the GIL (by thread: the loop's or a worker's) and the share nobody
did (the loop waited for a core, or for I/O).

    python benchmarks/bench_loop_lag.py [--matches 10000] [--runs 1] [--code DIR] [--profile]
    python benchmarks/bench_loop_lag.py --matches 100000 [--work DIR]
    python benchmarks/bench_loop_lag.py --db STORE
`--callbacks` times each callback the loop runs (its thread's CPU) and prints, per step, the longest one;
`--callbacks-profile` runs each under cProfile and prints, for each step whose longest is over `LIMIT` ms, the
functions that took its time (by own and by cumulative time; under cProfile a callback takes 1.5-3x as long).

    python benchmarks/bench_loop_lag.py --matches 100000 --spy /tmp/trace.json
    python benchmarks/bench_loop_lag.py --matches 100000 --callbacks [--callbacks-profile]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stats_cli import HERE, prepare, wait_for

TICK = 0.010
"""The ticker's period (s)."""
QUIET = 0.3
"""A step is settled when no worker runs and the loop went this long with no worker started (s)."""
LIMIT = 50.0
"""The target: no stall longer than this (ms)."""
SAMPLE_AFTER = 0.020
"""`--profile`: a stack is sampled when a tick is this overdue (s)."""
STALL = 0.040
"""`--spy`: a tick this late (s) is a stall whose interval is looked up in the trace."""
SECRET_ENV = "RANKTERM_BENCH_SECRET"


# ---------------------------------------------------------------------------------------------- the meter


class LagMeter:
    """A ticker on the running loop: each tick's lag (how much later than `TICK` after the previous one it
    ran), kept under the current step's label; with `profile`, a watcher thread samples the loop thread's
    stack while a tick is overdue."""

    def __init__(self, profile: bool = False) -> None:
        self.lags: dict[str, list[float]] = collections.defaultdict(list)
        self.cpu: dict[str, list[float]] = collections.defaultdict(list)
        """The loop thread's own CPU time between two ticks, less a tick's period: what it ran, not what
        it waited for (a core, or the GIL held by a worker thread)."""
        self.stacks: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.label = "start"
        self.collections: dict[str, list[float]] = collections.defaultdict(list)
        """The cyclic collector's passes over 10 ms (their seconds), by step: each holds the GIL throughout,
        in whatever thread set it off."""
        self._collecting = 0.0
        self.stalls: list[tuple[float, float, str]] = []
        """Each tick later than `STALL`: from when it was due to when it ran (perf_counter), its step."""
        self._beat = time.perf_counter()
        self._task: asyncio.Task[None] | None = None
        self._profile = profile
        self._stop = threading.Event()
        self._loop_thread = threading.get_ident()

    async def _tick(self) -> None:
        cpu = time.thread_time()
        while True:
            await asyncio.sleep(TICK)
            now, cpu_now = time.perf_counter(), time.thread_time()
            lag = max(0.0, now - self._beat - TICK)
            self.lags[self.label].append(lag)
            if lag > STALL:
                self.stalls.append((self._beat + TICK, now, self.label))
            self.cpu[self.label].append(cpu_now - cpu)
            self._beat, cpu = now, cpu_now

    def _watch(self) -> None:
        """Sample the loop thread's stack every 5 ms while a tick is overdue."""
        while not self._stop.wait(0.005):
            if time.perf_counter() - self._beat < SAMPLE_AFTER:
                continue
            frame = sys._current_frames().get(self._loop_thread)
            if frame is not None and frame.f_code.co_name != "select":  # waiting, not running
                self.stacks[self.label][where(frame)] += 1

    def _collector(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting = time.perf_counter()
        elif self._collecting and (took := time.perf_counter() - self._collecting) > 0.010:
            self.collections[self.label].append(took)

    def start(self) -> None:
        import gc

        gc.callbacks.append(self._collector)
        self._loop_thread = threading.get_ident()
        self._beat = time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self._tick())
        if self._profile:
            threading.Thread(target=self._watch, daemon=True).start()

    def stop(self) -> None:
        import gc

        if self._collector in gc.callbacks:
            gc.callbacks.remove(self._collector)
        self._stop.set()
        if self._task is not None:
            self._task.cancel()


class CallbackMeter:
    """Each callback of the loop timed by its thread's CPU (`asyncio.Handle._run` wrapped), under cProfile;
    per step, the longest callback's CPU and the profile of it."""

    def __init__(self, meter: LagMeter, profiled: bool) -> None:
        self._meter = meter
        self._profiled = profiled
        self.longest: dict[str, float] = collections.defaultdict(float)
        self.what: dict[str, str] = {}
        self.profiles: dict[str, list[str]] = {}
        self._run: Any = None

    def rename(self, old: str, new: str) -> None:
        """What was kept under the step `old` now under `new`."""
        if old in self.longest:
            self.longest[new] = self.longest.pop(old)
        if old in self.what:
            self.what[new] = self.what.pop(old)
        if old in self.profiles:
            self.profiles[new] = self.profiles.pop(old)

    def start(self) -> None:
        import cProfile

        handle = asyncio.events.Handle
        self._run = run = handle._run
        meter = self

        def timed(this: Any) -> None:
            profile = cProfile.Profile(time.thread_time) if meter._profiled else None
            began = time.thread_time()
            if profile is not None:
                profile.enable()
            try:
                run(this)
            finally:
                if profile is not None:
                    profile.disable()
                took = time.thread_time() - began
                label = meter._meter.label
                if took > meter.longest[label]:
                    meter.longest[label] = took
                    meter.what[label] = repr(this)[:120]
                    if profile is not None and took * 1000 > LIMIT:
                        meter.profiles[label] = told_profile(profile)

        handle._run = timed  # type: ignore[method-assign,assignment]

    def stop(self) -> None:
        if self._run is not None:
            asyncio.events.Handle._run = self._run  # type: ignore[method-assign]


def told_profile(profile: Any, lines: int = 14) -> list[str]:
    """A cProfile's top functions by own time and by cumulative time, a line each."""
    import pstats

    stats = pstats.Stats(profile)
    out = []
    for key, head in (("tottime", "own"), ("cumulative", "cumulative")):
        stats.sort_stats(key)
        out.append(f"  by {head} time (ms):")
        for func in stats.fcn_list[:lines]:  # type: ignore[attr-defined]
            _, calls, own, cumulative, _ = stats.stats[func]  # type: ignore[attr-defined]
            name = f"{Path(func[0]).name}:{func[1]}:{func[2]}"
            out.append(f"    {own * 1000:7.1f} {cumulative * 1000:7.1f} {calls:7}  {name}")
    return out


def where(frame: Any) -> str:
    """A stack told by its innermost frames of rankterm (up to 3), and the innermost frame of all."""
    leaf = f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"
    ours: list[str] = []
    while frame is not None and len(ours) < 3:
        name = frame.f_code.co_filename
        if "/rankterm/" in name and "/benchmarks/" not in name:
            ours.append(f"{name.rsplit('/rankterm/', 1)[1]}:{frame.f_code.co_name}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(ours) + f"  [leaf {leaf}]"


# ---------------------------------------------------------------------------------------------- the steps


async def settle(app: Any, limit: float = 180.0) -> float:
    """Until no worker of the app runs and none started for `QUIET` s; the seconds it took."""
    began = time.perf_counter()
    quiet_since = None
    while time.perf_counter() - began < limit:
        await asyncio.sleep(0.02)
        busy = [w for w in app.workers if not w.is_finished]
        if busy:
            quiet_since = None
            continue
        now = time.perf_counter()
        quiet_since = quiet_since or now
        if now - quiet_since >= QUIET:
            return quiet_since - began
    return time.perf_counter() - began


async def steps(
    app: Any, pilot: Any, step: Callable[[str, Callable[[], Awaitable[Any]]], Awaitable[None]]
) -> None:
    """Open every screen a person can open, one step each (`step(label, do)`)."""
    from textual.widgets import DataTable

    async def keys(*names: str) -> None:
        await pilot.press(*names)

    def press(*names: str) -> Callable[[], Awaitable[None]]:
        return lambda: keys(*names)

    def table_of(selector: str) -> Any:
        return app.screen.query_one(selector, DataTable)

    async def enter_on(selector: str, row: int = 0) -> None:
        table = table_of(selector)
        table.focus()
        table.move_cursor(row=row)
        await pilot.pause()
        await pilot.press("enter")

    def choose(selector: str, value: Any) -> Callable[[], Awaitable[None]]:
        async def do() -> None:
            app.screen.query_one(selector).value = value

        return do

    def largest_game_subset(selector: str) -> Any:
        picker = app.screen.query_one(selector)
        subsets = [s for s in picker._subsets.values() if s.game is not None and not s.is_main]
        return max(subsets, key=lambda s: s.count_matches or 0).id if subsets else None

    await step("Rankings (r)", press("r"))
    main_subset = app.screen.query_one("#rank-subset").value
    game_subset = largest_game_subset("#rank-subset")
    picker = app.screen.query_one("#rank-period")
    choices = list(picker._choices.values())
    wanted = [c for c in choices if c.label.startswith("This ")]  # this month, quarter, year
    past = [c for c in choices if c.key and c not in wanted]
    for test in (lambda k: len(k) == 4, lambda k: "Q" in k, lambda k: len(k) == 7 and "Q" not in k):
        wanted += [c for c in past if test(c.key)][:1]  # the latest earlier year, quarter, month
    for choice in wanted:
        await step(f"Rankings: period {choice.label}", choose("#rank-period", choice.key))
    await step("Rankings: back to all time", choose("#rank-period", ""))
    if game_subset is not None:
        await step("Rankings: the largest game's subset", choose("#rank-subset", game_subset))
        if wanted:
            await step(f"Rankings: that game, {wanted[-1].label}", choose("#rank-period", wanted[-1].key))
            await step("Rankings: that game, all time", choose("#rank-period", ""))
        await step("Rankings: back to main", choose("#rank-subset", main_subset))
    await step("Rankings: a player's page (Enter)", lambda: enter_on("#rank-table", 3))
    await step("  back (Escape)", press("escape"))
    await step("Players (p)", press("p"))
    await step("Players: a player's page (Enter)", lambda: enter_on("#players-table", 1))
    await step("  back (Escape)", press("escape"))
    await step("Games (g)", press("g"))
    await step("Games: a game's page (Enter)", lambda: enter_on("#games-table", 0))
    await step("  back (Escape)", press("escape"))
    await step("Matches (m)", press("m"))
    game_subset = largest_game_subset("#matches-subset")
    if game_subset is not None:
        await step("Matches: the largest game's subset", choose("#matches-subset", game_subset))
    await step("New match (n)", press("n"))
    await step("Service (d)", press("escape", "d"))
    await step("Seasons (e)", press("e"))
    for key, what in (("2", "quarter"), ("3", "year"), ("1", "month")):
        await step(f"Seasons: by {what} ({key})", press(key))
    await step("Stats (s)", press("s"))
    for key, tab in (("2", "head-to-head"), ("3", "game"), ("4", "tonight"), ("5", "odds"), ("1", "player")):
        await step(f"Stats: {tab} tab ({key})", press("escape", key))
    await step("Outbox (o)", press("escape", "o"))
    await step("Scoreboard (b)", press("b"))
    await step("Home (h)", press("h"))


async def floor() -> dict[str, float]:
    """What this machine does to the ticker at the time, with no app: worst and p99 lag (ms) while idle, and
    beside a thread running pure Python (it gives the GIL back every 5 ms: a loaded machine's scheduler
    decides when the loop's thread runs again)."""

    def busy(seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    out: dict[str, float] = {}
    for name in ("idle", "thread", "textual"):
        meter = LagMeter()
        meter.label = name
        if name == "textual":
            await bare_textual(meter, lambda: asyncio.to_thread(busy, 2.0))
        else:
            meter.start()
            if name == "thread":
                await asyncio.to_thread(busy, 2.0)
            else:
                await asyncio.sleep(2.0)
        meter.stop()
        out[f"{name}_worst"] = max(meter.lags[name]) * 1000
        out[f"{name}_p99"] = p99(meter.lags[name]) * 1000
    return out


async def bare_textual(meter: LagMeter, beside: Callable[[], Awaitable[None]]) -> None:
    """A bare Textual app (80x24) opening and closing a screen of one label every 0.1 s while `beside()` runs,
    measured by `meter` once the app is up: the floor of a screen's open on this machine at the time, no
    rankterm in it."""
    from textual.app import App, ComposeResult
    from textual.screen import Screen
    from textual.widgets import Label

    class Trivial(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Label("floor")

    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        meter.start()
        work = asyncio.ensure_future(beside())
        while not work.done():
            await app.push_screen(Trivial())
            await pilot.pause(0.1)
            app.pop_screen()
            await pilot.pause(0.1)
        await work


async def one_run(client: Any, profile: bool, callbacks: str = "") -> dict[str, Any]:
    """The app on `client`, every step: {label: {"lags": [...], "settled": s}}, and the sampled stacks."""
    out: dict[str, Any] = {"steps": {}, "stacks": {}, "floor": await floor(), "anchor": anchor()}
    out["loop_thread"] = threading.get_ident()
    meter = LagMeter(profile)
    meter.start()  # before the app: its first open is measured too
    timer = CallbackMeter(meter, callbacks == "profile")
    if callbacks:
        timer.start()
    from rankterm.config import Config
    from rankterm.tui.app import RanktermApp

    began = time.perf_counter()
    app = RanktermApp(config=Config(), client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        settled = await settle(app)
        out["steps"]["first open (Home's data)"] = {"settled": time.perf_counter() - began - QUIET}
        out["order"] = ["first open (Home's data)"]
        meter.lags["first open (Home's data)"] = meter.lags.pop("start")
        meter.cpu["first open (Home's data)"] = meter.cpu.pop("start")
        meter.collections["first open (Home's data)"] = meter.collections.pop("start", [])
        timer.rename("start", "first open (Home's data)")

        async def step(label: str, do: Callable[[], Awaitable[Any]]) -> None:
            label = f"{len(out['order']):2} {label}"
            meter.label = label
            out["order"].append(label)
            t = time.perf_counter()
            await do()
            settled = await settle(app)
            out["steps"][label] = {"settled": time.perf_counter() - t - (QUIET if settled else 0)}
            meter.label = "between"
            out["steps"][label]["walked"] = len(gc.get_objects())  # what a full collection would walk now

        await steps(app, pilot, step)
        del settled
        kinds = collections.Counter(type(o).__name__ for o in gc.get_objects())
        out["walked_kinds"] = kinds.most_common(12)
        out["frozen"] = gc.get_freeze_count()
    meter.stop()
    timer.stop()
    out["callbacks"] = {
        label: {"cpu": took, "what": timer.what.get(label, ""), "profile": timer.profiles.get(label, [])}
        for label, took in timer.longest.items()
    }
    stalls = out["stalls"] = []
    for due, ran, label in meter.stalls:
        first = "first open (Home's data)"
        stalls.append((due, ran, first if label == "start" else label))
    for label, lags in meter.lags.items():
        if label in out["steps"]:
            out["steps"][label]["lags"] = lags
            out["steps"][label]["cpu"] = meter.cpu[label]
            out["steps"][label]["gc"] = meter.collections.get(label, [])
    out["stacks"] = {label: counter.most_common(6) for label, counter in meter.stacks.items()}
    return out


def anchor() -> float:
    """When (perf_counter) a 50 ms spin of Python began: found by its name in a trace, it sets the trace's
    clock against this process's."""

    def bench_anchor() -> float:
        began = time.perf_counter()
        while time.perf_counter() - began < 0.05:
            pass
        return began

    return bench_anchor()


# ---------------------------------------------------------------------------------------------- the trace


def gil_holders(trace: Path, run: dict[str, Any]) -> dict[str, tuple[float, collections.Counter[str]]]:
    """For each step: the seconds its stalls lasted, and the seconds each place (its thread, rankterm's
    innermost frames, the innermost frame of all) held the GIL inside them.

    py-spy writes a thread's frames as they begin and end between two samples that caught it holding the
    GIL, and nothing for a sample that did not: the holder at a moment is taken to be the thread written
    last (a thread that let the GIL go with its stack unchanged keeps it until another is written)."""
    events = json.loads(trace.read_text())
    events.sort(key=lambda e: e["ts"])
    at = next((e["ts"] for e in events if e["name"].endswith("bench_anchor") and e["ph"] == "B"), None)
    if at is None:
        raise SystemExit(f"{trace}: the anchor's spin is not in the trace")
    shift = run["anchor"] - at / 1e6  # the trace's seconds + shift = the run's perf_counter
    stalls = sorted(run["stalls"])
    out: dict[str, tuple[float, collections.Counter[str]]] = {}
    for due, ran, label in stalls:
        total, counter = out.get(label, (0.0, collections.Counter()))
        out[label] = (total + ran - due, counter)
    stacks: dict[int, list[dict[str, Any]]] = collections.defaultdict(list)
    last = None
    holder = None
    for event in events:
        now = event["ts"] / 1e6 + shift
        if last is not None and now > last:
            for due, ran, label in stalls:
                lo, hi = max(due, last), min(ran, now)
                if hi <= lo:
                    continue
                frames = stacks[holder] if holder is not None else []
                who = "loop" if holder == run["loop_thread"] else "worker"
                place = f"{who}: {told(frames)}" if len(frames) > 1 else "(nobody seen)"
                out[label][1][place] += hi - lo
        last, holder = now, event["tid"]
        frames = stacks[event["tid"]]
        if event["ph"] == "B":
            frames.append(event)
        elif frames:
            frames.pop()
    return out


def told(frames: list[dict[str, Any]]) -> str:
    """A traced stack told as `where` tells one: rankterm's innermost frames (up to 3), the innermost."""
    leaf = frames[-1]
    ours: list[str] = []
    for frame in reversed(frames):
        name = frame["args"]["filename"]
        if "rankterm/" in name and "benchmarks/" not in name and len(ours) < 3:
            ours.append(f"{name.rsplit('rankterm/', 1)[1]}:{frame['name']}:{frame['args']['line']}")
    where_leaf = f"{Path(leaf['args']['filename']).name}:{leaf['name']}:{leaf['args']['line']}"
    return " < ".join(ours) + f"  [leaf {where_leaf}]"


def new_group(url: str, key: str, mirror: Path) -> Any:
    """A `Group` on the service and the mirror file, as a new process opens them."""
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group, Mirror
    from rankterm.wire.ids import service_scope

    client = RankingClient(url, key=key, secret=os.environ[SECRET_ENV])
    return Group(client, Mirror(mirror, service_scope(url, key)))


async def child(url: str, key: str, mirror: Path, what: str) -> None:
    """In a process of one code: sync the mirror (`what` "sync"), or one run; a JSON line on stdout."""
    os.environ["RANKTERM_LIVE_EVERY"] = "0"  # no live probe between the steps
    group = new_group(url, key, mirror)
    if what == "sync":
        from rankterm.stats.source import sync_group

        t = time.perf_counter()
        await sync_group(group, max_age=0)
        out: dict[str, Any] = {"synced": time.perf_counter() - t}
    else:
        import rankterm

        callbacks = {"callbacks": "time", "callbacks-profile": "profile"}.get(what, "")
        out = await one_run(group, what == "profile", callbacks)
        out["code"] = str(Path(rankterm.__file__).parent.parent)
    await group.aclose()
    group.mirror.close()
    print(json.dumps(out))


# ---------------------------------------------------------------------------------------------- the group


def build(source: Path, matches: int, players: int) -> None:
    """A store of `matches` among `players` at `source` (`bench_server.py`'s loader), when not there."""
    if source.exists():
        return
    from bench_server import Loader, load

    partial = source.with_suffix(".partial")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{partial}{suffix}").unlink(missing_ok=True)
    t = time.perf_counter()
    loader = Loader(partial, players, 1, matches)
    load(loader, matches)
    loader.store.close()
    partial.rename(source)
    print(f"group built: {matches:,} matches among {players} players in {time.perf_counter() - t:.0f} s")


def serve(a: argparse.Namespace) -> tuple[Path, str, str, subprocess.Popen[bytes]]:
    """The group served by `rankterm serve` in the background, from a work folder of its own: the folder, the
    service's URL, the client's key and the server process."""
    players = a.players or (60 if a.matches <= 20_000 else 500)
    work = a.work or Path(tempfile.gettempdir()) / f"rankterm-bench-loop-lag-{'db' if a.db else a.matches}"
    work.mkdir(parents=True, exist_ok=True)
    for name, value in (("RANKTERM_CONFIG", work / "config.toml"), ("RANKTERM_CACHE_DIR", work / "cache"),
                        ("RANKTERM_DATA_DIR", work / "data")):  # fmt: skip
        os.environ[name] = str(value)  # nothing of the user's is touched
    source = a.db or work / "source.db"
    if not a.db:
        build(source, a.matches, players)
    _, key, secret, port = prepare(source, work)
    os.environ[SECRET_ENV] = secret
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(work / "service.db"), "--port", str(port)],
        cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": str(HERE)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return work, url, key, server


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def p99(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--matches", type=int, default=10_000)
    cli.add_argument("--players", type=int, help="default 60 up to 20,000 matches, else 500")
    cli.add_argument("--db", type=Path, help="a service database kept by bench_server.py --db")
    cli.add_argument("--runs", type=int, default=1)
    cli.add_argument(
        "--code", type=Path, default=HERE, help="the code tree the app runs from (default: this)"
    )
    cli.add_argument("--work", type=Path, help="where the group and the mirrors are kept between runs")
    cli.add_argument("--profile", action="store_true", help="sample the loop's stack during its stalls")
    cli.add_argument("--callbacks", action="store_true", help="time each callback of the loop")
    cli.add_argument(
        "--callbacks-profile", action="store_true", help="and profile the longest of a step (cProfile)"
    )
    cli.add_argument("--spy", type=Path, help="trace the run with py-spy here; who held the GIL in stalls")
    cli.add_argument("--child", nargs=4, metavar=("URL", "KEY", "MIRROR", "WHAT"), help=argparse.SUPPRESS)
    a = cli.parse_args()
    if a.child:
        url, key, mirror, what = a.child
        asyncio.run(child(url, key, Path(mirror), what))
        return
    code = a.code.resolve()
    if not (code / "rankterm").is_dir():
        raise SystemExit(f"{code}: no code tree there")
    work, url, key, server = serve(a)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    mirror = work / "mirror" / "mirror.db"  # one for every code: the same file format, synced once
    mirror.parent.mkdir(exist_ok=True)

    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy") or ""
    if a.spy and not spy:
        raise SystemExit("--spy: py-spy is not installed (pip install py-spy)")

    def run_child(what: str) -> dict[str, Any]:
        traced = what != "sync" and a.spy
        under = (
            [spy, "record", "--gil", "--nonblocking", "-t", "-r", "200", "-f", "chrometrace"]
            if traced
            else []
        )
        if traced:
            under += ["-o", str(a.spy), "--"]
        done = subprocess.run(
            [*under, sys.executable, str(Path(__file__).resolve()), "--child", url, key, str(mirror), what],
            cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": str(code)},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"the run failed: {done.stderr[-3000:]}")
        return json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])

    load_before = load_average()
    try:
        wait_for(port)
        print(f"mirror synced in {run_child('sync')['synced']:.1f} s (cold the first time)", flush=True)
        what = (
            "profile" if a.profile
            else "callbacks-profile" if a.callbacks_profile
            else "callbacks" if a.callbacks
            else "run"
        )  # fmt: skip
        runs = [run_child(what) for _ in range(a.runs)]
    finally:
        server.terminate()
        server.wait()
    size = f"{a.matches:,} matches" if not a.db else str(a.db)
    print(f"{size}; code {runs[0]['code']}; {a.runs} run(s), each a new process; "
          f"load average {load_before} before, {load_average()} after")  # fmt: skip
    for name, what in (
        ("idle", "an idle loop"),
        ("thread", "beside a thread running pure Python"),
        ("textual", "a bare Textual app opening a one-label screen every 0.2 s beside that thread"),
    ):
        if any(f"{name}_worst" not in r["floor"] for r in runs):
            continue
        worst = statistics.median(r["floor"][f"{name}_worst"] for r in runs)
        high = statistics.median(r["floor"][f"{name}_p99"] for r in runs)
        print(f"the machine's floor, no app: {what}: longest lag {worst:.1f} ms, p99 {high:.1f} ms")
    many = a.runs > 1
    head = "median (max) of runs, " if many else ""
    print(
        f"{'step':46}{head + 'longest lag ms':>24}{'p99 ms':>16}{'loop CPU ms':>16}{'gc ms':>12}{'ticks':>7}{'settled s':>10}{'walked k':>10}"
    )
    over = []
    for label in runs[0]["order"]:
        worst = [max(r["steps"][label].get("lags") or [0.0]) * 1000 for r in runs]
        high = [p99(r["steps"][label].get("lags") or []) * 1000 for r in runs]
        busy = [max(r["steps"][label].get("cpu") or [0.0]) * 1000 for r in runs]
        passes = [max(r["steps"][label].get("gc") or [0.0]) * 1000 for r in runs]
        ticks = len(runs[0]["steps"][label].get("lags") or [])
        settled = statistics.median(r["steps"][label]["settled"] for r in runs)
        counts = [r["steps"][label].get("walked") for r in runs]
        walked = f"{statistics.median(counts) / 1000:.0f}" if None not in counts else "-"

        def cell(values: list[float]) -> str:
            return f"{statistics.median(values):7.1f} ({max(values):6.1f})" if many else f"{values[0]:7.1f}"

        flag = " *" if max(statistics.median(worst), statistics.median(busy)) > LIMIT else ""
        print(
            f"{label:46}{cell(worst):>24}{cell(high):>16}{cell(busy):>16}{cell(passes):>12}{ticks:>7}{settled:>10.2f}{walked:>10}{flag}"
        )
        if flag:
            over.append(label)
    everything = [max(r["steps"][label].get("lags") or [0.0]) * 1000 for r in runs for label in r["order"]]
    print(
        f"longest lag of all: {max(everything):.1f} ms; steps over {LIMIT:.0f} ms, lag or loop CPU (*): {len(over)}"
    )
    print("loop CPU: the most CPU the loop's thread spent between two ticks (its own work, not the waits)")
    print("gc: the cyclic collector's longest pass (over 10 ms) in the step, in any thread: it holds the GIL")
    print("walked k: thousands of objects a full collection would walk after the step (tracked, not frozen)")
    if "walked_kinds" in runs[-1]:
        kinds = ", ".join(f"{name} {count / 1000:.0f}k" for name, count in runs[-1]["walked_kinds"])
        print(f"after the last step: {runs[-1]['frozen'] / 1000:.0f}k frozen; walked, most: {kinds}")
    if a.spy:
        a.spy.with_suffix(".run.json").write_text(json.dumps(runs[-1]))  # the stalls, beside the trace
        held = gil_holders(a.spy, runs[-1])
        for label in over:
            total, counter = held.get(label, (0.0, collections.Counter()))
            if not total:
                continue
            print(f"\n{label}: who held the GIL during its stalls ({total * 1000:.0f} ms of stalls)")
            for place, seconds in counter.most_common(6):
                print(f"  {seconds * 1000:6.0f} ms  {place}")
    if a.callbacks or a.callbacks_profile:
        under = " under cProfile" if a.callbacks_profile else ""
        print(f"\nthe longest callback of the loop in each step (its thread's CPU{under}, ms):")
        for label in runs[0]["order"]:
            took = runs[0]["callbacks"].get(label)
            if took:
                print(f"  {label:46}{took['cpu'] * 1000:8.1f}  {took['what']}")
        for label in runs[0]["order"]:
            took = runs[0]["callbacks"].get(label)
            if took and took["profile"]:
                print(f"\n{label}: its longest callback, {took['cpu'] * 1000:.1f} ms: {took['what']}")
                print("\n".join(took["profile"]))
    if a.profile:
        for label in over:
            print(
                f"\n{label}: the loop's stack while a tick was {SAMPLE_AFTER * 1000:.0f} ms overdue (samples)"
            )
            for stack, count in runs[0]["stacks"].get(label, []):
                print(f"  {count:4}  {stack}")


if __name__ == "__main__":
    main()
