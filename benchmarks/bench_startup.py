"""Startup time of `rankterm demo` against a minimal Textual app, and the bytes rankterm writes while idle.

    python benchmarks/bench_startup.py [--runs 7] [--idle 10] [--keys r] [--against OLD_CHECKOUT]

1. Startup: each run is a fresh `python -c` process, timed by the parent from spawn to the child's own READY
   stamp (wall time), with the CPU time the child had spent by then beside it (all its threads: on this
   shared 2-core machine the work, not the waiting, sets the figure). The child builds the app with
   `rankterm.cli.build_app`, exactly as `rankterm demo` does (the first screen, Home, comes up at once and the
   demo group is opened from a thread), and stamps READY when the first screen is ready (Textual's ready, for
   the "first screen" figure) or once the demo group is open and its data is on the first screen: on Home, the
   standings read (its title says after which match), the last match and tonight's story written; on the
   Service screen (a checkout where it, as the dashboard, came first) its three panels done loading, the
   service's status and the match counters written, the quota bars mounted; and the screen painted after that
   ("with its data"; until 2026-11-23 the stamp came before that last paint); a
   third figure also waits for every worker the app started (the lists the match form reads ahead, the live
   probe's first look). The minimal app is an `App` with one `Static`, started and stopped the same way. All
   run headless (no terminal needed).
   The floor the house sets under "with its data": the minimal app, which once up does what DESIGN.md has
   the demo do for its first data, with the packages it names and nothing of rankterm: Starlette answers
   httpx in-process (ASGITransport) from an sqlite3 database, pydantic validates the answer into a model, the
   screen shows it and is painted. What "with its data" takes above that floor is rankterm's own work (its
   modules, the demo group, the first screen's reads and layout); the report says how much the target leaves.
   The children run in turn within each run (minimal, floor, the rows), not row after row: this machine's
   speed drifts within minutes, and a ratio of two figures taken minutes apart measured the drift.
   The child waits for the data without polling while the group is opened: it awaits the app's workers (the
   one opening the demo group, then the first screen's load), as a user's app would sit idle. (A loop waking
   every 2 ms took the GIL from the thread opening the group some 200 times a second: it measured itself.)
   One untimed run of each child comes first: it writes the bytecode of modules changed since the last run
   (as an installed package has it; PYTHONDONTWRITEBYTECODE is dropped for the children) and seeds the demo
   group of the day into the cache dir, with the app's mirror of it (its matches held, the story told:
   `rankterm.cli.demo_mirror`); the timed runs copy both, as every start but a day's first does.
   Prints the medians and the ratios (targets: first screen <= 1.5, with its data <= 2) and the load average.
   `--against OLD_CHECKOUT` (e.g. `git worktree add --detach /tmp/old b4ccbe9`, where the dashboard came
   first) times the same two rankterm children on that checkout too (its `rankterm` put first on PYTHONPATH,
   its own config, cache and data folders), in the same turns, and prints this tree's figure over the old's.
2. Idle bytes: `rankterm demo` runs under a pseudo-terminal (`pty.fork`, 80x24). The parent waits for the
   first screen, presses "r" (rankings; `--keys` picks other screens, "" none), waits for its first paint (no
   output for 1.5 s), counts every byte the app writes during the next `--idle` seconds (target: 0), quits
   (ctrl+q).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests

from tests.support.terminal import PtySeat  # noqa: E402

RANKTERM_CHILD = """
import asyncio
import time
from rankterm.cli import build_app

WAIT = {wait!r}

def home_shown(screen) -> bool:
    # Home holds the demo group's data: the standings read, the last match and tonight's story written.
    title = str(screen.query_one("#home-title").render())
    tonight = str(screen.query_one("#home-tonight").render())
    last = str(screen.query_one("#home-last").render())
    return screen.view is not None and "after match" in title and bool(tonight.strip()) and "#" in last

def service_shown(screen, prefix) -> bool:
    # The Service screen's (the dashboard's) three panels hold the figures: none loading, each text filled.
    panels = [screen.query_one(f"#{{prefix}}-{{name}}") for name in ("status", "counters", "quota")]
    texts = [str(screen.query_one(f"#{{prefix}}-{{name}}-text").render()) for name in ("status", "counters")]
    return not any(p.loading for p in panels) and all(t.strip() for t in texts) and bool(screen.query("UsageBar"))

def data_shown(app) -> bool:
    # The first screen holds the demo group's data: Home's, or (an older checkout) the dashboard's figures.
    screen = app.screen
    kind = type(screen).__name__
    try:
        if kind == "HomeScreen":
            return home_shown(screen)
        return service_shown(screen, "dash" if kind == "DashboardScreen" else "service")
    except Exception:
        return False

async def settle(app, groups=None) -> bool:
    # Awaits the running workers of `groups` (all when None); False when none was running.
    running = [w for w in app.workers if w.is_running and (groups is None or w.group in groups)]
    if running:
        await app.workers.wait_for_complete(running)
    return bool(running)

async def until_ready(pilot) -> None:
    # Runs once the first screen is up (Textual's ready). WAIT "data": also until the demo group is open
    # and its data is on the first screen; "workers": until every worker the app started is done too
    # (the match form's lists read ahead, the live probe's first look). It awaits the workers that do it
    # rather than polling while the group is opened (a poll every 2 ms takes the GIL from that thread).
    app = pilot.app
    while WAIT != "screen" and (app.client is None or not data_shown(app)):
        if not await settle(app, ("app-open", "home", "service", "dashboard")):
            await asyncio.sleep(0.002)  # the opening worker is not started yet, or the panels not updated
    if WAIT != "screen":
        # ... and painted: the screen's callbacks after a refresh run once no layout or repaint is pending.
        painted = asyncio.get_running_loop().create_future()
        app.screen.call_after_refresh(lambda: painted.set_result(None))
        await painted
    while WAIT == "workers" and await settle(app):
        pass
    print("READY", time.time(), time.process_time(), flush=True)
    app.exit()

app = build_app(demo=True, profile=None)  # exactly what `rankterm demo` runs
app.run(headless=True, size=(80, 24), auto_pilot=until_ready)
"""

OLD = "the other checkout,"
"""How the rows of `--against` are labelled."""

IMPORTS_CHILD = 'import time, rankterm.cli, rankterm.config, rankterm.tui.app; print("READY", time.time(), time.process_time())'

MINIMAL_CHILD = """
import time
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("Hello")

async def until_ready(pilot) -> None:
    print("READY", time.time(), time.process_time(), flush=True)
    pilot.app.exit()

Minimal().run(headless=True, size=(80, 24), auto_pilot=until_ready)
"""


STACK_FLOOR_CHILD = """
import asyncio
import time
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("Hello")

async def until_ready(pilot) -> None:
    import sqlite3
    import httpx
    import pydantic
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    class Answer(pydantic.BaseModel):
        n: int

    async def root(request):
        return JSONResponse({{"n": sqlite3.connect(":memory:").execute("select 1").fetchone()[0]}})

    service = Starlette(routes=[Route("/", root)])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=service), base_url="http://demo") as client:
        answer = Answer.model_validate((await client.get("/")).json())
    pilot.app.query_one(Static).update(str(answer.n))
    painted = asyncio.get_running_loop().create_future()
    pilot.app.screen.call_after_refresh(lambda: painted.set_result(None))
    await painted
    print("READY", time.time(), time.process_time(), flush=True)
    pilot.app.exit()

Minimal().run(headless=True, size=(80, 24), auto_pilot=until_ready)
""".format()


def _env(tmp: str, root: Path = ROOT) -> dict[str, str]:
    """The children's environment: rankterm's folders under `tmp`, the `rankterm` of `root` imported."""
    env = dict(os.environ)
    env.update(
        RANKTERM_CONFIG=f"{tmp}/config.toml",
        RANKTERM_CACHE_DIR=f"{tmp}/cache",
        RANKTERM_DATA_DIR=f"{tmp}/data",
        PYTHONPATH=str(root) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    env.pop("NO_COLOR", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the untimed first run writes what a package install would
    return env


def time_child(code: str, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawning `code` to its "READY <epoch> <cpu>" line, and the CPU seconds the child had
    spent by then.

    The moment of readiness is stamped by the child itself, so that what happens after it (shutting
    down, a thread still finishing the demo group) is not counted as startup.
    """
    start = time.time()
    done = subprocess.run(  # run from a folder with no `rankterm` in it: PYTHONPATH picks the checkout
        [sys.executable, "-c", code],
        env=env,
        cwd=env["RANKTERM_DATA_DIR"],
        check=True,
        capture_output=True,
        text=True,
    )
    stamp = next(line.split() for line in done.stdout.splitlines() if line.startswith("READY "))
    return float(stamp[1]) - start, float(stamp[2])


def time_children(
    children: list[tuple[str, dict[str, str]]], runs: int
) -> list[tuple[list[float], list[float]]]:
    """(walls, cpus) of each child (its code, its environment) over `runs` runs, the children taking turns
    within each run, after one untimed run of each (it writes bytecode and seeds the day's demo group)."""
    for code, env in children:
        os.makedirs(env["RANKTERM_DATA_DIR"], exist_ok=True)
        time_child(code, env)
    figures: list[tuple[list[float], list[float]]] = [([], []) for _ in children]
    for _ in range(runs):
        for (code, env), (walls, cpus) in zip(children, figures, strict=True):
            wall, cpu = time_child(code, env)
            walls.append(wall)
            cpus.append(cpu)
    return figures


def idle_bytes(idle: float, env: dict[str, str], key: str = "r") -> tuple[int, int, int]:
    """(bytes of the first screen, bytes of the first paint after `key`, bytes during `idle` idle seconds)."""
    seat = PtySeat(["demo"], {**env, "TERM": "xterm-256color"})
    try:
        first = seat.settle(quiet=1.5, limit=30)
        seat.press(key.encode())
        rankings = seat.settle(quiet=1.5, limit=30)
        during = seat.read(idle)
    finally:
        seat.close()
    return len(first), len(rankings), len(during)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument(
        "--keys", default="r", help="screens to idle on, by their key (default r: rankings; try rdgpml)"
    )
    parser.add_argument(
        "--against",
        type=Path,
        help="a checkout of another commit (git worktree add --detach DIR COMMIT): its first screen timed too",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(tmp)
        rows = [
            ("the floor: minimal + the stack's data", STACK_FLOOR_CHILD, env),
            ("rankterm demo, first screen", RANKTERM_CHILD.format(wait="screen"), env),
            ("rankterm demo, with its data", RANKTERM_CHILD.format(wait="data"), env),
            ("  ... and every worker done", RANKTERM_CHILD.format(wait="workers"), env),
        ]
        if args.against is not None:
            old_env = _env(f"{tmp}/against", args.against.resolve())
            rows += [
                (f"{OLD} first screen", RANKTERM_CHILD.format(wait="screen"), old_env),
                (f"{OLD} with its data", RANKTERM_CHILD.format(wait="data"), old_env),
            ]
        (minimal, minimal_cpu), (imports, imports_cpu), *figures = time_children(
            [(MINIMAL_CHILD, env), (IMPORTS_CHILD, env), *((code, child_env) for _, code, child_env in rows)],
            args.runs,
        )
        m_min = statistics.median(minimal)
        print(
            f"startup, median of {args.runs} runs (process start to the child's own READY stamp, headless 80x24;"
            " CPU: the child's, all threads):"
        )
        print(
            f"  minimal Textual app                    {m_min * 1000:7.0f} ms   "
            f"          CPU {statistics.median(minimal_cpu) * 1000:4.0f} ms"
        )
        print(
            f"  (only importing rankterm's cli, config and app: {statistics.median(imports) * 1000:.0f} ms,"
            f" CPU {statistics.median(imports_cpu) * 1000:.0f} ms)"
        )
        medians, cpu_medians = {}, {}
        for (label, _, _), (walls, cpus) in zip(rows, figures, strict=True):
            medians[label] = median = statistics.median(walls)
            cpu_medians[label] = statistics.median(cpus)
            print(
                f"  {label:<38} {median * 1000:7.0f} ms   ratio {median / m_min:.2f}"
                f"   CPU {statistics.median(cpus) * 1000:4.0f} ms"
            )
        print("  target: first screen ratio <= 1.5; with its data ratio <= 2")
        floor, data = medians[rows[0][0]], medians["rankterm demo, with its data"]
        print(
            f"  above the floor, rankterm's own work before its data is painted: {(data - floor) * 1000:.0f} ms;"
            f" the target leaves {(2 * m_min - floor) * 1000:.0f} ms for it"
        )
        if args.against is not None:
            print(f"  this tree against {args.against} (each with the first screen it has):")
            for what in ("first screen", "with its data"):
                new, old = medians[f"rankterm demo, {what}"], medians[f"{OLD} {what}"]
                new_cpu, old_cpu = cpu_medians[f"rankterm demo, {what}"], cpu_medians[f"{OLD} {what}"]
                print(
                    f"    {what:<14} {new * 1000:5.0f} ms against {old * 1000:5.0f} ms: ratio {new / old:.2f}"
                    f"   (CPU {new_cpu * 1000:.0f} against {old_cpu * 1000:.0f} ms: {new_cpu / old_cpu:.2f})"
                )
        print(f"  load average (1, 5, 15 min) after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for key in args.keys:
            screen, paint, idle = idle_bytes(args.idle, env, key)
            print(f"idle output under a pty (80x24), `rankterm demo`, then key {key!r}:")
            print(f"  first screen {screen} bytes; first paint after {key!r} {paint} bytes")
            print(f"  bytes written during {args.idle:g} idle seconds after that paint: {idle}   (target 0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
