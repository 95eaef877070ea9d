"""Startup time of `rankterm demo` against a minimal Textual app, and the bytes rankterm writes while idle.

    python benchmarks/bench_startup.py [--runs 7] [--idle 10]

1. Startup: each run is a fresh `python -c` process, timed by the parent from spawn to exit (wall time).
   The child builds the app the way `rankterm demo` does (demo client included) and exits, through
   `call_later(app.exit)`, when the first screen is ready: `on_ready` for the plain "first screen" figure,
   and once the dashboard's workers have finished for "first screen with data". The minimal app is an
   `App` with one `Static`, started and stopped the same way. Both run headless (no terminal needed).
   Prints the medians and the ratios (target: rankterm / minimal <= 1.5).
2. Idle bytes: `rankterm demo` runs under a pseudo-terminal (`pty.fork`, 80x24). The parent waits for the
   first screen, presses "r" (rankings; `--keys` picks other screens), waits for its first paint (no output
   for 1.5 s), counts every byte the app writes during the next `--idle` seconds (target: 0), quits (ctrl+q).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RANKTERM_CHILD = """
import asyncio
from rankterm.cli import make_demo_client, make_profile_client
from rankterm.config import load_config
from rankterm.tui.app import RanktermApp

WAIT_FOR_DATA = {wait}

class Bench(RanktermApp):
    async def on_ready(self) -> None:
        while WAIT_FOR_DATA and (self.client is None or any(w.is_running for w in self.workers)):
            await asyncio.sleep(0.005)
        self.call_later(self.exit)

app = Bench(config=load_config(), client=make_demo_client(), demo=True,
            demo_factory=make_demo_client, client_factory=make_profile_client)
app.run(headless=True, size=(80, 24))
"""

IMPORTS_CHILD = "import rankterm.cli, rankterm.config, rankterm.tui.app"

MINIMAL_CHILD = """
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("Hello")
    def on_ready(self) -> None:
        self.call_later(self.exit)

Minimal().run(headless=True, size=(80, 24))
"""


def _env(tmp: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        RANKTERM_CONFIG=f"{tmp}/config.toml",
        RANKTERM_CACHE_DIR=f"{tmp}/cache",
        RANKTERM_DATA_DIR=f"{tmp}/data",
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    env.pop("NO_COLOR", None)
    return env


def time_child(code: str, runs: int, env: dict[str, str]) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def _read_for(fd: int, seconds: float) -> bytes:
    """Everything the child writes during `seconds`."""
    out = bytearray()
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return bytes(out)


def _read_until_quiet(fd: int, quiet: float, limit: float) -> bytes:
    """Read until the child has written nothing for `quiet` seconds (at most `limit` seconds)."""
    out = bytearray()
    end = time.monotonic() + limit
    while time.monotonic() < end:
        chunk = _read_for(fd, quiet)
        if not chunk:
            break
        out += chunk
    return bytes(out)


def idle_bytes(idle: float, env: dict[str, str], key: str = "r") -> tuple[int, int, int]:
    """(bytes of the first screen, bytes of the first paint after `key`, bytes during `idle` idle seconds)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: rankterm demo on this pseudo-terminal
        os.environ.clear()
        os.environ.update(env)
        os.environ["TERM"] = "xterm-256color"
        os.execv(sys.executable, [sys.executable, "-m", "rankterm", "demo"])
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.kill(pid, signal.SIGWINCH)
        first = _read_until_quiet(fd, quiet=1.5, limit=30)
        os.write(fd, key.encode())
        rankings = _read_until_quiet(fd, quiet=1.5, limit=30)
        during = _read_for(fd, idle)
        os.write(fd, b"\x11")  # ctrl+q
        _read_until_quiet(fd, quiet=0.5, limit=5)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)
    return len(first), len(rankings), len(during)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument(
        "--keys", default="r", help="screens to idle on, by their key (default r: rankings; try rdgpml)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(tmp)
        minimal = time_child(MINIMAL_CHILD, args.runs, env)
        imports = time_child(IMPORTS_CHILD, args.runs, env)
        rows = [
            ("rankterm demo, first screen", RANKTERM_CHILD.format(wait=False)),
            ("rankterm demo, with its data", RANKTERM_CHILD.format(wait=True)),
        ]
        m_min = statistics.median(minimal)
        print(f"startup, median of {args.runs} runs (process start to exit when ready, headless 80x24):")
        print(f"  minimal Textual app              {m_min * 1000:7.0f} ms")
        print(
            f"  (only importing rankterm's cli, config and app: {statistics.median(imports) * 1000:.0f} ms)"
        )
        for label, code in rows:
            median = statistics.median(time_child(code, args.runs, env))
            print(f"  {label:<32} {median * 1000:7.0f} ms   ratio {median / m_min:.2f}")
        print("  target: ratio <= 1.5")
        for key in args.keys:
            screen, paint, idle = idle_bytes(args.idle, env, key)
            print(f"idle output under a pty (80x24), `rankterm demo`, then key {key!r}:")
            print(f"  first screen {screen} bytes; first paint after {key!r} {paint} bytes")
            print(f"  bytes written during {args.idle:g} idle seconds after that paint: {idle}   (target 0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
