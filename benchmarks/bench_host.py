"""What a seat of `rankterm host` costs: the wait for the first screen over SSH, memory, and the quiet at rest.

    python benchmarks/bench_host.py [--modes warm,exec] [--runs 5] [--shown 4] [--seats 12] [--rest 10]

Each of `--modes` is a `rankterm host --demo` of its own, all running at once: `warm`, each seat forked by the
host's warm parent (today's); `exec`, each seat a fork+exec of a fresh `rankterm` (`RANKTERM_SEATS=exec`, as
before the warm parent), so that both are measured in the same minutes.

1. First screen: OpenSSH's `ssh -tt` joining each host on 127.0.0.1 (80x24), timed from the spawn of `ssh`
   until "Home" has been drawn, against `rankterm demo` started locally on a pty until the same; all alternate
   within each run (this shared machine's speed drifts within minutes). Medians, and their ratio (SSH over
   local; target for warm seats <= 0.6).
2. `--shown` guests of each host, each having shown Home, the rankings, the players and the matches: each
   seat's own memory (USS: private pages) and its proportional share (PSS), from /proc/PID/smaps_rollup;
   medians, and the sum of PSS with the warm parent's (what the seats cost the machine in all). Target for a
   warm seat's USS <= 25 MB.
3. With `--seats` guests joined at once (each on the table demo's Home, settled): the resident memory of
   each seat's `rankterm` process (median, and the sum) and of the host process itself; then over `--rest`
   seconds with nobody pressing a key: the host's CPU (its own process, % of one core) and the bytes each
   guest's terminal received (target 0).

Prints the load average, since other work on the machine moves every figure.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests

from tests.support.ssh import SshGuest, children_of, is_warm_parent, start_host  # noqa: E402
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


def rollup_mib(pid: int) -> dict[str, float]:
    """USS (private clean + dirty), PSS and RSS of `pid`, in MiB, from /proc/PID/smaps_rollup."""
    fields: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0]) / 1024
    return {
        "uss": fields.get("Private_Clean", 0.0) + fields.get("Private_Dirty", 0.0),
        "pss": fields.get("Pss", 0.0),
        "rss": fields.get("Rss", 0.0),
    }


def warm_parent_of(host) -> int | None:
    found = [pid for pid in children_of(host.process.pid) if is_warm_parent(pid)]
    return found[0] if found else None


def timed_first_screen(start, limit: float = 60.0) -> float:
    began = time.perf_counter()
    seat = start()
    try:
        if not seat.wait_for("Home", limit):
            raise SystemExit(f"no first screen within {limit} s: {seat.seen[-300:]!r}")
        return time.perf_counter() - began
    finally:
        seat.close()


def first_screens(hosts: dict, env: dict[str, str], runs: int) -> None:
    over_ssh: dict[str, list[float]] = {mode: [] for mode in hosts}
    local: list[float] = []
    for host in hosts.values():
        timed_first_screen(partial(SshGuest, host.port))  # untimed: bytecode written, caches warm
    for _ in range(runs):
        for mode, host in hosts.items():
            over_ssh[mode].append(timed_first_screen(partial(SshGuest, host.port)))
        local.append(timed_first_screen(lambda: PtySeat(["demo"], env)))
    b = statistics.median(local)
    for mode, times in over_ssh.items():
        a = statistics.median(times)
        print(
            f"first screen, {mode} seats, median of {runs}: over SSH {a * 1000:.0f} ms, local cold start "
            f"{b * 1000:.0f} ms, ratio {a / b:.2f}"
        )


SHOWN = [(b"r", "Rankings — "), (b"p", "Players — "), (b"m", "Matches — ")]
"""Each guest's keys, and what shows the screen came."""


def shown_memory(hosts: dict, count: int) -> None:
    """`count` guests of each host, each on Home, then the rankings, the players and the matches: memory."""
    guests: list[SshGuest] = []
    try:
        for mode, host in hosts.items():
            mine = [SshGuest(host.port) for _ in range(count)]
            guests += mine
            for guest in mine:
                if not guest.wait_for("Home", 120):
                    raise SystemExit(f"a seat never came: {guest.seen[-300:]!r}")
                guest.settle(quiet=0.5, limit=20)
                for key, title in SHOWN:
                    guest.press(key)
                    if not guest.wait_for(title, 60):
                        raise SystemExit(f"{title!r} never came: {guest.seen[-300:]!r}")
                    guest.settle(quiet=0.5, limit=20)
            pids = host.wait_for_seats(count, 10)
            seats = [rollup_mib(pid) for pid in pids]
            uss = [s["uss"] for s in seats]
            pss = [s["pss"] for s in seats]
            parent = warm_parent_of(host)
            extra = rollup_mib(parent) if parent else {"uss": 0.0, "pss": 0.0, "rss": 0.0}
            print(
                f"memory, {mode} seats, {len(pids)} seats after Home, rankings, players, matches: "
                f"USS {statistics.median(uss):.1f} MiB a seat (median; {', '.join(f'{x:.1f}' for x in uss)}), "
                f"PSS {statistics.median(pss):.1f} MiB a seat, RSS {statistics.median(s['rss'] for s in seats):.1f}"
                f" MiB a seat; the warm parent USS {extra['uss']:.1f} MiB PSS {extra['pss']:.1f} MiB; "
                f"seats and warm parent, PSS in all {sum(pss) + extra['pss']:.0f} MiB"
            )
    finally:
        for guest in guests:
            guest.close()


def host_ready(host, limit: float = 120.0) -> None:
    """Wait until the host's warm parent, if it has one, has started (a guest would wait for it)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and warm_parent_of(host) is None and host.process.poll() is None:
        time.sleep(0.1)


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
    parser.add_argument("--modes", default="warm,exec", help="warm, exec or both (comma-separated)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shown", type=int, default=4)
    parser.add_argument("--seats", type=int, default=12)
    parser.add_argument("--rest", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = home_env(Path(tmp))
        env["RANKTERM_LIVE_EVERY"] = os.environ.get("RANKTERM_LIVE_EVERY", "5")
        print(
            f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)"
        )
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        seats = str(max(args.seats, args.shown, 1))
        with contextlib.ExitStack() as stack:
            hosts = {
                mode: stack.enter_context(
                    start_host(["--demo", "--max-seats", seats], {**env, "RANKTERM_SEATS": mode})
                )
                for mode in modes
            }
            for mode, host in hosts.items():
                if mode == "warm":
                    host_ready(host)
            if args.runs:
                first_screens(hosts, env, args.runs)
            if args.shown:
                shown_memory(hosts, args.shown)
            if args.seats:
                for mode, host in hosts.items():
                    print(f"at rest, {mode} seats:")
                    at_rest(host, args.seats, args.rest)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
