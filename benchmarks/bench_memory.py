"""Memory of the app as people run it: resident set size after opening rankings, players and matches.

    python benchmarks/bench_memory.py [--runs 3] [--port 8710]

Each run starts the real `rankterm` process on a pseudo-terminal (80x24, `tests.support.terminal.PtySeat`),
waits for its first screen to settle (no output for 1.5 s after its first), presses r (rankings), p (players)
and m (matches), letting each screen settle, then reads the process's resident set size from the kernel:
``VmRSS`` of ``/proc/<pid>/status`` (no psutil; ``VmHWM``, the peak, beside it). 1 MB here is 10^6 bytes; MiB is 2^20.

(a) `rankterm demo`: the app with its in-process demo group (the embedded service in the same process).
(b) the app on a remote service: `rankterm serve --demo` runs as a separate process on 127.0.0.1 (`--port`), and
    the app opens it through a profile (`rankterm --profile room`); only the app's process is measured.

Prints the medians of `--runs` runs and the targets: (a) <= 80 MB, (b) <= 60 MB; and, for scale, the same
reading of a bare Textual app (one `Static`, a real terminal driver) on the same pty, and of the floor that
the house sets under (b): the same bare app that also does what DESIGN.md has the client do, with the
packages it names and nothing of rankterm (httpx sends one request to the same `rankterm serve`, `GET
status`, answered 403 without a token but through the same sockets, streams and parser; pydantic validates
the answer into a model; sqlite3 opens a database as the client's copy does; a `DataTable` is shown). What (b) holds above that floor is rankterm's own code, screens and data; the line after (b) says
how much the target leaves for it. httpx imports its own command line (click, pygments) when they are
installed, which rankterm never loads (`rankterm.cli` marks `httpx._main` absent): the same floor without it
is read too, and what (b) holds above that one is printed beside.

`--against OLD_CHECKOUT` (e.g. `git worktree add --detach /tmp/old COMMIT`) measures (a) and (b) of that
checkout too (its `rankterm` first on PYTHONPATH, its own config, cache and data folders: for (a) kept from
run to run as this tree's are, so that both seed the day's demo and its mirror in their first run only; until
2026-11-29 the other checkout's (a) had a fresh folder each run and seeded every time, some 4 MB more), each
run taking its turn right after this tree's, against the same `rankterm serve` (this tree's), and prints this tree's
figures beside the old's. The children start in a folder of their own: until 2026-11-29 they started in the
caller's, and from a checkout's root `python -m rankterm` ran that checkout for the other one's rows too (the
working folder comes first on sys.path), so those comparisons set this tree beside itself.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET  # noqa: E402
from tests.support.terminal import PtySeat, home_env, room_env  # noqa: E402

SCREENS = (b"r", b"p", b"m")
TARGETS = {"demo": 80.0, "remote": 60.0}


def status_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB, as /proc/<pid>/status gives them."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def measure(args: list[str], env: dict[str, str]) -> dict[str, int]:
    """Start `rankterm *args` on a pty, open the three screens, and read its memory (KiB)."""
    seat = PtySeat(args, env)
    try:
        end = time.monotonic() + 30
        while not seat.read(0.1) and time.monotonic() < end:
            pass  # the quiet spell counts from its first output: on a busy machine its imports take seconds
        seat.settle(quiet=1.5, limit=30)
        for key in SCREENS:
            seat.press(key)
            seat.settle(quiet=1.5, limit=30)
        return status_kib(seat.pid)
    finally:
        seat.close()


MINIMAL = """
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("Hello")

Minimal().run()
"""

STACK_FLOOR = """
import sqlite3, sys
import httpx, pydantic
from textual.app import App
from textual.widgets import DataTable, Static

class Answer(pydantic.BaseModel):
    status: str = ""

class Floor(App):
    def compose(self):
        yield Static("Hello")
        yield DataTable()

    async def on_mount(self):
        self.copy = sqlite3.connect(sys.argv[2])
        self.copy.execute("create table if not exists t (x)")
        async with httpx.AsyncClient(base_url=sys.argv[1]) as client:
            answer = Answer.model_validate((await client.get("status")).json())
        self.query_one(Static).update(answer.status or "answered")

Floor().run()
"""


STACK_FLOOR_NO_CLI = 'import sys; sys.modules.setdefault("httpx._main", None)\n' + STACK_FLOOR
"""The floor as rankterm imports httpx: without httpx's own command line (`httpx._main`: click, pygments),
which `rankterm.cli` marks absent. The floor above holds those packages; rankterm never does."""


def measure_script(code: str, env: dict[str, str], *args: str) -> dict[str, int]:
    """The same reading for a script of its own (a bare Textual app, the stack's floor) on a pty of the same
    size, once it has written nothing for 1.5 s after its first output."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        os.environ.clear()
        os.environ.update(env)
        os.execv(sys.executable, [sys.executable, "-c", code, *args])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    end = time.monotonic() + 30
    quiet_since: float | None = None  # counted from its first output, as for rankterm's (`measure`)
    while time.monotonic() < end and (quiet_since is None or time.monotonic() - quiet_since < 1.5):
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                break
            quiet_since = time.monotonic()
    try:
        return status_kib(pid)
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)


def wait_for_port(port: int, limit: float = 30.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"`rankterm serve` did not listen on 127.0.0.1:{port}")


def report(label: str, target: float, runs: list[dict[str, int]]) -> float:
    """Print the medians of `runs`; return the median VmRSS in MB (0 when there is none)."""
    if not runs:
        return 0.0
    rss = statistics.median(r["VmRSS"] for r in runs) * 1024
    hwm = statistics.median(r["VmHWM"] for r in runs) * 1024
    verdict = (
        "" if not target else f"   target <= {target:g} MB: {'met' if rss / 1e6 <= target else 'NOT met'}"
    )
    print(
        f"  {label:<48} VmRSS {rss / 1e6:5.1f} MB ({rss / 2**20:5.1f} MiB), peak {hwm / 1e6:5.1f} MB{verdict}"
    )
    return rss / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8710, help="port of `rankterm serve` for (b)")
    parser.add_argument(
        "--against",
        type=Path,
        help="a checkout of another commit (git worktree add --detach DIR COMMIT): measured in the same turns",
    )
    args = parser.parse_args()
    old = args.against.resolve() if args.against is not None else None
    print(
        f"resident memory after r, p, m (rankings, players, matches), pty 80x24, median of {args.runs} runs:"
    )
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        # The children start in this folder: `python -m rankterm` puts its working folder first on sys.path,
        # so started from a checkout's root every one of them, the other checkout's too, ran that checkout.
        os.chdir(tmp)
        minimal_runs = [measure_script(MINIMAL, home_env(tmp / "minimal")) for _ in range(args.runs)]
        report("a bare Textual app (one Static), for scale", 0.0, minimal_runs)
        demo_runs, old_demo_runs = [], []
        for _ in range(args.runs):
            demo_runs.append(measure(["demo"], home_env(tmp / "demo")))
            if old is not None:
                old_demo_runs.append(measure(["demo"], home_env(tmp / "old-demo", PYTHONPATH=str(old))))
        demo = report("(a) rankterm demo", TARGETS["demo"], demo_runs)
        old_demo = report(f"    the same, {old}", 0.0, old_demo_runs) if old is not None else 0.0

        address = ["--host", "127.0.0.1", "--port", str(args.port)]
        serve_env = {**home_env(tmp / "serve"), "RANKTERM_DATA_DIR": str(tmp / "serve")}
        server = subprocess.Popen(
            [sys.executable, "-m", "rankterm", "serve", "--demo", "--db", str(tmp / "service.db"), *address],
            env=serve_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(args.port)
            url = f"http://127.0.0.1:{args.port}/"
            remote_runs, floor_runs, bare_floor_runs, old_runs = [], [], [], []
            for n in range(args.runs):
                env = room_env(tmp / f"room{n}", url, DEMO_KEY, DEMO_SECRET, PYTHONPATH=str(ROOT))
                remote_runs.append(measure(["--profile", "room"], env))
                floor_runs.append(measure_script(STACK_FLOOR, env, url, str(tmp / f"floor{n}.db")))
                bare_floor_runs.append(measure_script(STACK_FLOOR_NO_CLI, env, url, str(tmp / f"bare{n}.db")))
                if old is not None:
                    old_env = room_env(tmp / f"old-room{n}", url, DEMO_KEY, DEMO_SECRET, PYTHONPATH=str(old))
                    old_runs.append(measure(["--profile", "room"], old_env))
            floor = report("the floor: a bare app with the client's stack", 0.0, floor_runs)
            bare_floor = report("  the same without httpx's command line", 0.0, bare_floor_runs)
            remote = report(
                "(b) rankterm --profile room (serve --demo apart)", TARGETS["remote"], remote_runs
            )
            print(
                f"  above the floor: rankterm's own code, screens and data take {remote - floor:.1f} MB;"
                f" the target leaves {TARGETS['remote'] - floor:.1f} MB for them"
            )
            print(
                f"  above the floor without httpx's command line (as rankterm imports httpx): {remote - bare_floor:.1f} MB"
            )
            if old is not None:
                old_remote = report(f"    the same, {old}", 0.0, old_runs)
                print(f"  this tree against {old}:")
                print(f"    (a) {demo:5.1f} MB against {old_demo:5.1f} MB: {demo - old_demo:+.1f} MB")
                print(
                    f"    (b) {remote:5.1f} MB against {old_remote:5.1f} MB: {remote - old_remote:+.1f} MB;"
                    f" above the floor {remote - floor:.1f} MB against {old_remote - floor:.1f} MB"
                )
        finally:
            server.terminate()
            server.wait(10)
        print(f"  load average (1, 5, 15 min) after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
