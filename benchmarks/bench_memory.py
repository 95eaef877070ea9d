"""Memory of the app as people run it: resident set size after opening rankings, players and matches.

    python benchmarks/bench_memory.py [--runs 3] [--port 8710]

Each run starts the real `rankterm` process on a pseudo-terminal (80x24, `rankterm.testing.terminal.PtySeat`),
waits for its first screen to settle (no output for 1.5 s), presses r (rankings), p (players) and m (matches),
letting each screen settle, then reads the process's resident set size from the kernel: ``VmRSS`` of
``/proc/<pid>/status`` (no psutil; ``VmHWM``, the peak, beside it). 1 MB here is 10^6 bytes; MiB is 2^20.

(a) `rankterm demo`: the app with its in-process demo group (the embedded service in the same process).
(b) the app on a remote service: `rankterm serve --demo` runs as a separate process on 127.0.0.1 (`--port`), and
    the app opens it through a profile (`rankterm --profile room`); only the app's process is measured.

Prints the medians of `--runs` runs and the targets: (a) <= 80 MB, (b) <= 60 MB.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET  # noqa: E402
from rankterm.testing.terminal import PtySeat, room_env  # noqa: E402

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
        seat.settle(quiet=1.5, limit=30)
        for key in SCREENS:
            seat.press(key)
            seat.settle(quiet=1.5, limit=30)
        return status_kib(seat.pid)
    finally:
        seat.close()


def wait_for_port(port: int, limit: float = 30.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"`rankterm serve` did not listen on 127.0.0.1:{port}")


def demo_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
    env.update(
        TERM="xterm-256color",
        PYTHONPATH=str(ROOT),
        RANKTERM_CONFIG=str(tmp / "config.toml"),
        RANKTERM_CACHE_DIR=str(tmp / "cache"),
        RANKTERM_DATA_DIR=str(tmp / "data"),
    )
    return env


def report(label: str, target: float, runs: list[dict[str, int]]) -> None:
    rss = statistics.median(r["VmRSS"] for r in runs) * 1024
    hwm = statistics.median(r["VmHWM"] for r in runs) * 1024
    verdict = "met" if rss / 1e6 <= target else "NOT met"
    print(
        f"  {label:<44} VmRSS {rss / 1e6:5.1f} MB ({rss / 2**20:5.1f} MiB), peak {hwm / 1e6:5.1f} MB"
        f"   target <= {target:g} MB: {verdict}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8710, help="port of `rankterm serve` for (b)")
    args = parser.parse_args()
    print(
        f"resident memory after r, p, m (rankings, players, matches), pty 80x24, median of {args.runs} runs:"
    )
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        demo_runs = [measure(["demo"], demo_env(tmp / "demo")) for _ in range(args.runs)]
        report("(a) rankterm demo", TARGETS["demo"], demo_runs)

        address = ["--host", "127.0.0.1", "--port", str(args.port)]
        serve_env = {**demo_env(tmp / "serve"), "RANKTERM_DATA_DIR": str(tmp / "serve")}
        server = subprocess.Popen(
            [sys.executable, "-m", "rankterm", "serve", "--demo", "--db", str(tmp / "service.db"), *address],
            env=serve_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(args.port)
            url = f"http://127.0.0.1:{args.port}/"
            remote_runs = []
            for n in range(args.runs):
                env = room_env(tmp / f"room{n}", url, DEMO_KEY, DEMO_SECRET, PYTHONPATH=str(ROOT))
                remote_runs.append(measure(["--profile", "room"], env))
            report("(b) rankterm --profile room (serve --demo apart)", TARGETS["remote"], remote_runs)
        finally:
            server.terminate()
            server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
