"""What a seat of `rankterm host` costs: the wait for the first screen over SSH, memory, and the quiet at rest.

    python benchmarks/bench_host.py [--runs 5] [--seats 12] [--rest 10]

1. First screen: OpenSSH's `ssh -tt` joining `rankterm host --demo` on 127.0.0.1 (80x24), timed from the
   spawn of `ssh` until "Home" has been drawn, against `rankterm demo` started locally on a pty until the
   same; the two alternate within each run (this shared machine's speed drifts within minutes). Medians, and
   their ratio (SSH over local).
2. With `--seats` guests joined at once (each on the table demo's Home, settled): the resident memory of
   each seat's `rankterm` process (median, and the sum) and of the host process itself; then over `--rest`
   seconds with nobody pressing a key: the host's CPU (its own process, % of one core) and the bytes each
   guest's terminal received (target 0).

Prints the load average, since other work on the machine moves every figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests

from tests.support.ssh import SshGuest, start_host  # noqa: E402
from tests.support.terminal import PtySeat, home_env  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def timed_first_screen(start, limit: float = 60.0) -> float:
    began = time.perf_counter()
    seat = start()
    try:
        if not seat.wait_for("Home", limit):
            raise SystemExit(f"no first screen within {limit} s: {seat.seen[-300:]!r}")
        return time.perf_counter() - began
    finally:
        seat.close()


def first_screens(port: int, env: dict[str, str], runs: int) -> tuple[list[float], list[float]]:
    over_ssh, local = [], []
    timed_first_screen(lambda: SshGuest(port))  # untimed: bytecode written, caches warm
    for _ in range(runs):
        over_ssh.append(timed_first_screen(lambda: SshGuest(port)))
        local.append(timed_first_screen(lambda: PtySeat(["demo"], env)))
    return over_ssh, local


def at_rest(host, seats: int, rest: float) -> None:
    guests = []
    try:
        for _ in range(seats):
            guests.append(SshGuest(host.port))
        for guest in guests:
            if not guest.wait_for("— table demo", 120):
                raise SystemExit(f"a seat never opened its group: {guest.seen[-300:]!r}")
        for guest in guests:
            guest.settle(quiet=1.0, limit=30)
        pids = host.wait_for_seats(seats, 10)
        memory = [rss_mib(pid) for pid in pids]
        print(
            f"memory, {len(pids)} seats: {statistics.median(memory):.1f} MiB a seat (median), "
            f"{sum(memory):.0f} MiB in all; the host process {rss_mib(host.process.pid):.1f} MiB"
        )
        time.sleep(1.0)
        for guest in guests:
            guest.read(0)
        host_cpu, seats_cpu = cpu_seconds(host.process.pid), sum(cpu_seconds(p) for p in pids)
        began = time.monotonic()
        received = [0] * len(guests)
        end = began + rest
        while (left := end - time.monotonic()) > 0:
            for i, guest in enumerate(guests):
                received[i] += len(guest.read(min(0.05, left)))
        spent = time.monotonic() - began
        host_share = 100 * (cpu_seconds(host.process.pid) - host_cpu) / spent
        seats_share = 100 * (sum(cpu_seconds(p) for p in pids) - seats_cpu) / spent
        print(
            f"at rest for {spent:.0f} s: the host's CPU {host_share:.2f} % of a core, all seats' "
            f"{seats_share:.2f} %; bytes each guest received: {received}"
        )
    finally:
        for guest in guests:
            guest.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seats", type=int, default=12)
    parser.add_argument("--rest", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = home_env(Path(tmp))
        env["RANKTERM_LIVE_EVERY"] = os.environ.get("RANKTERM_LIVE_EVERY", "5")
        print(
            f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)"
        )
        with start_host(["--demo", "--max-seats", str(max(args.seats, 1))], env) as host:
            if args.runs:
                over_ssh, local = first_screens(host.port, env, args.runs)
                a, b = statistics.median(over_ssh), statistics.median(local)
                print(
                    f"first screen, median of {args.runs}: over SSH {a * 1000:.0f} ms, local {b * 1000:.0f} ms, "
                    f"ratio {a / b:.2f}"
                )
            if args.seats:
                at_rest(host, args.seats, args.rest)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
