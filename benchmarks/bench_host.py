"""What a seat of `rankterm host` and of `rankterm web` costs: the wait for the first screen, memory, and the
quiet at rest.

    python benchmarks/bench_host.py [--modes warm,exec] [--servers ssh,web] [--runs 5] [--shown 4]
                                    [--seats 12] [--rest 10] [--pages [--objects]] [--traced] [--chromium]

Each of `--modes` times each of `--servers` is a server of its own (`rankterm host --demo`, `rankterm web
--demo`), all running at once: `warm`, each seat forked by the server's warm parent (today's); `exec`, each
seat a fork+exec of a fresh `rankterm` (`RANKTERM_SEATS=exec`, as before the warm parent); `rehearsed`, a
trial: warm, and the warm parent runs the app once, headless, before it forks any seat (`warm_objects.py`);
so that all are measured in the same minutes.

1. First screen: OpenSSH's `ssh -tt` joining each host on 127.0.0.1 (80x24), timed from the spawn of `ssh`
   until "Home" has been drawn; a browser's websocket to each web server (`tests/support/web_guest.py`: what
   the page's xterm.js is sent, without painting it), timed from its connect until the same (with
   `--chromium`, a page of the tests' headless Chromium, from its opening: the page, xterm.js and the
   seat); against
   `rankterm demo` started locally on a pty until the same; all alternate within each run (this shared
   machine's speed drifts within minutes). Medians, and their ratio (seat over local; target for warm seats
   <= 0.6).
2. `--shown` guests of each server, each having shown Home, the rankings, the players and the matches: each
   seat's own memory (USS: private pages) and its proportional share (PSS), from /proc/PID/smaps_rollup;
   medians, and the sum of PSS with the warm parent's (what the seats cost the machine in all). Target for a
   warm seat's USS <= 25 MB. With `--pages` (as root: page frame numbers), where a warm seat's private pages
   are: copied from the warm parent (a page it had, written by the seat) or new, per kind of mapping; with
   `--objects`, which of the warm parent's Python objects (by type: code, str, ...) lie on the pages a seat
   copied, against all it holds (`warm_objects.py`: the warm parent maps its objects as it freezes them).
   With `--traced`, what a warm seat allocated itself since its fork and still holds (tracemalloc in each
   seat, which makes its USS larger: read no USS figure of such a run), by where, and the modules it imported.
3. With `--seats` guests joined at once to each SSH host (each on the table demo's Home, settled): the
   resident memory of each seat's `rankterm` process (median, and the sum) and of the host process itself;
   then over `--rest` seconds with nobody pressing a key: the host's CPU (its own process, % of one core) and
   the bytes each guest's terminal received (target 0).

Prints the load average, since other work on the machine moves every figure.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests

from tests.support.ssh import (  # noqa: E402
    RunningHost,
    SshGuest,
    children_of,
    is_service,
    is_warm_parent,
    start_host,
)
from tests.support.terminal import PtySeat, home_env  # noqa: E402
from tests.support.web_guest import CHROMIUM_FLAGS, ChromiumGuest, WebGuest  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from warm_objects import (  # noqa: E402
    MAP_VARIABLE,
    REHEARSE_VARIABLE,
    TRACE_VARIABLE,
    bytes_by_type,
    read_map,
    sitecustomize_dir,
)

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


def warm_parent_of(server) -> int | None:
    found = [pid for pid in children_of(server.process.pid) if is_warm_parent(pid)]
    return found[0] if found else None


@dataclass
class RunningWeb:
    """A `rankterm web` process on 127.0.0.1:`port`, and what it said when it started."""

    process: subprocess.Popen
    port: int
    lines: list[str] = field(default_factory=list)

    def seat_pids(self) -> list[int]:
        """Its seats: its children running `rankterm seat --desk-fd N` (not the warm parent, not the demo)."""
        found = []
        for pid in children_of(self.process.pid):
            with contextlib.suppress(FileNotFoundError):
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if b"--desk-fd" in argv and not is_warm_parent(pid) and not is_service(pid):
                    found.append(pid)
        return found

    def wait_for_seats(self, count: int, limit: float) -> list[int]:
        end = time.monotonic() + limit
        while len(pids := self.seat_pids()) != count and time.monotonic() < end:
            time.sleep(0.05)
        return pids


@contextlib.contextmanager
def start_web(args: list[str], env: dict[str, str], limit: float = 60.0) -> Iterator[RunningWeb]:
    """`python -m rankterm web --port P *args` with `env`, once it listens; ended (SIGTERM) at the end."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "rankterm", "web", "--port", str(port), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    web = RunningWeb(process, port)
    try:
        assert process.stdout is not None
        end = time.monotonic() + limit
        while time.monotonic() < end and not any("seats at once" in line for line in web.lines):
            line = process.stdout.readline()
            if not line:
                raise SystemExit(f"rankterm web ended: {''.join(web.lines)}")
            web.lines.append(line)
        while time.monotonic() < end:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.1)
        yield web
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Server:
    """One server measured: its label (`ssh warm`, `web exec`, ...), the running process, and how a guest
    joins it."""

    label: str
    running: RunningHost | RunningWeb
    guest: Callable[[], Any]
    """A new guest's seat (`SshGuest`, `WebGuest` or `ChromiumGuest`), joining as it is made."""

    @property
    def warm(self) -> bool:
        return not self.label.endswith("exec")


def timed_first_screen(start, limit: float = 60.0) -> float:
    began = time.perf_counter()
    seat = start()
    try:
        if not seat.wait_for("Home", limit):
            raise SystemExit(f"no first screen within {limit} s: {seat.seen[-300:]!r}")
        return time.perf_counter() - began
    finally:
        seat.close()


def first_screens(servers: list[Server], env: dict[str, str], runs: int) -> None:
    seats: dict[str, list[float]] = {server.label: [] for server in servers}
    local: list[float] = []
    for server in servers:
        timed_first_screen(server.guest)  # untimed: bytecode written, caches warm
    for _ in range(runs):
        for server in servers:
            seats[server.label].append(timed_first_screen(server.guest))
        local.append(timed_first_screen(lambda: PtySeat(["demo"], env)))
    b = statistics.median(local)
    for label, times in seats.items():
        a = statistics.median(times)
        print(
            f"first screen, {label} seats, median of {runs}: {a * 1000:.0f} ms, local cold start "
            f"{b * 1000:.0f} ms, ratio {a / b:.2f}"
        )


SHOWN = [(b"r", "Rankings — "), (b"p", "Players — "), (b"m", "Matches — ")]
"""Each guest's keys, and what shows the screen came."""


def shown_memory(
    servers: list[Server], count: int, pages: bool, objects: Path | None, traces: Path | None
) -> None:
    """`count` guests of each server, each on Home, then the rankings, the players and the matches: memory."""
    guests: list = []
    try:
        for server in servers:
            mine = [server.guest() for _ in range(count)]
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
            pids = server.running.wait_for_seats(count, 10)
            seats = [rollup_mib(pid) for pid in pids]
            uss = [s["uss"] for s in seats]
            pss = [s["pss"] for s in seats]
            parent = warm_parent_of(server.running)
            extra = rollup_mib(parent) if parent else {"uss": 0.0, "pss": 0.0, "rss": 0.0}
            print(
                f"memory, {server.label} seats, {len(pids)} seats after Home, rankings, players, matches: "
                f"USS {statistics.median(uss):.1f} MiB a seat (median; {', '.join(f'{x:.1f}' for x in uss)}), "
                f"PSS {statistics.median(pss):.1f} MiB a seat, RSS {statistics.median(s['rss'] for s in seats):.1f}"
                f" MiB a seat; the warm parent USS {extra['uss']:.1f} MiB PSS {extra['pss']:.1f} MiB; "
                f"seats and warm parent, PSS in all {sum(pss) + extra['pss']:.0f} MiB"
            )
            if pages and parent and pids:
                where_pages(server.label, pids, parent, objects)
            if traces is not None and server.warm and pids:
                traced(server.label, pids, traces)
    finally:
        for guest in guests:
            guest.close()


PAGE = os.sysconf("SC_PAGE_SIZE")
PFN_MASK = (1 << 55) - 1


def mappings(pid: int) -> list[tuple[int, int, str]]:
    found = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split()
        start, end = (int(x, 16) for x in fields[0].split("-"))
        found.append((start, end, fields[5] if len(fields) > 5 else ""))
    return found


def frames(pagemap, start: int, end: int) -> list[int]:
    """The page frame of each present page of [start, end) (0 where absent), with bit 56 (exclusively
    mapped) kept above it."""
    pagemap.seek(start // PAGE * 8)
    data = pagemap.read((end - start) // PAGE * 8)
    entries = struct.unpack(f"{len(data) // 8}Q", data)
    return [(e & PFN_MASK) | (e & (1 << 56)) if e >> 63 & 1 else 0 for e in entries]


def kind_of(name: str) -> str:
    if name == "[heap]":
        return "malloc heap ([heap])"
    if name.startswith("/"):
        return "data of libpython" if "libpython" in name else "data of other .so and files"
    return name or "anonymous (pymalloc arenas, mmap'd blocks, thread stacks)"


def where_pages(label: str, pids: list[int], parent: int, objects: Path | None) -> None:
    """For each seat of `pids`: its private pages that are the warm parent's pages it wrote (copied), and those
    the parent never had (new), by kind of mapping; medians over the seats, in MiB. With `objects` (the folder
    of the warm parents' object maps): which objects the copied pages hold."""
    per_seat: list[tuple[collections.defaultdict[str, float], collections.defaultdict[str, float]]] = []
    copied_pages: list[set[int]] = []
    with open(f"/proc/{parent}/pagemap", "rb") as parent_map:
        theirs: dict[int, int] = {}
        for start, end, _ in mappings(parent):
            for i, frame in enumerate(frames(parent_map, start, end)):
                if frame:
                    theirs[start + i * PAGE] = frame & PFN_MASK
        if not any(theirs.values()):
            print("pages: page frame numbers read as 0 (they need root): not measured")
            return
        for pid in pids:
            copied: collections.defaultdict[str, float] = collections.defaultdict(float)
            new: collections.defaultdict[str, float] = collections.defaultdict(float)
            mine: set[int] = set()
            copied_pages.append(mine)
            with open(f"/proc/{pid}/pagemap", "rb") as seat_map:
                for start, end, name in mappings(pid):
                    if name in ("[vvar]", "[vsyscall]", "[vvar_vclock]"):
                        continue
                    for i, frame in enumerate(frames(seat_map, start, end)):
                        if not frame or not frame & (1 << 56):  # absent, or shared with another process
                            continue
                        address = start + i * PAGE
                        (copied if address in theirs else new)[kind_of(name)] += PAGE / 2**20
                        if address in theirs:
                            mine.add(address)
            per_seat.append((copied, new))
    kinds = sorted({k for c, n in per_seat for k in (*c, *n)})
    print(f"pages of a {label} seat, median of {len(per_seat)} (MiB): copied from the warm parent / new")
    for kind in kinds:
        c = statistics.median(s[0][kind] for s in per_seat)
        n = statistics.median(s[1][kind] for s in per_seat)
        print(f"  {kind:58} {c:6.1f} / {n:6.1f}")
    total_c = statistics.median(sum(s[0].values()) for s in per_seat)
    total_n = statistics.median(sum(s[1].values()) for s in per_seat)
    print(f"  {'in all':58} {total_c:6.1f} / {total_n:6.1f}")
    if objects is not None and (objects / f"{parent}.map").exists():
        objects_on_pages(set(theirs), copied_pages, objects / f"{parent}.map")


def objects_on_pages(parents: set[int], copied: list[set[int]], map_path: Path) -> None:
    """Which of the warm parent's objects lie on the pages each seat copied, by type: MiB of each type on the
    parent's pages, on the pages a seat copied (median), and the share copied."""
    starts, sizes, kinds = read_map(map_path)
    everywhere = bytes_by_type(parents, PAGE, starts, sizes, kinds)
    per_seat = [bytes_by_type(pages, PAGE, starts, sizes, kinds) for pages in copied]
    code_pages = {a - a % PAGE for a, k in zip(starts, kinds, strict=True) if k == "code"} & parents
    print(
        f"objects of the warm parent ({len(starts)} mapped): MiB on its pages / on the pages a seat copied "
        f"(median of {len(per_seat)}) / share"
    )
    for kind, total in everywhere.most_common(14):
        mine = statistics.median(c[kind] for c in per_seat)
        print(f"  {kind:40} {total / 2**20:6.1f} / {mine / 2**20:6.1f} / {100 * mine / total:3.0f} %")
    total = sum(everywhere.values())
    mine = statistics.median(sum(c.values()) for c in per_seat)
    print(f"  {'all objects':40} {total / 2**20:6.1f} / {mine / 2**20:6.1f} / {100 * mine / total:3.0f} %")
    held = statistics.median(len(code_pages & pages) for pages in copied)
    print(
        f"  pages holding a code object: {len(code_pages)} of the warm parent's ({len(code_pages) * PAGE / 2**20:.1f}"
        f" MiB), of which a seat copied {held:.0f} ({held * PAGE / 2**20:.1f} MiB)"
    )


def traced(label: str, pids: list[int], folder: Path, top: int = 16) -> None:
    """What each seat of `pids` allocated itself since its fork and still holds (tracemalloc, written on
    SIGUSR1 by `warm_objects.write_traces`): medians over the seats, in MiB, by where it was allocated."""
    import json

    for pid in pids:
        os.kill(pid, signal.SIGUSR1)
    found = []
    end = time.monotonic() + 60
    for pid in pids:
        path = folder / f"{pid}.json"
        while time.monotonic() < end:
            with contextlib.suppress(FileNotFoundError, ValueError):
                found.append(json.loads(path.read_text()))
                break
            time.sleep(0.2)
    if not found:
        print("traces: no seat wrote its traces")
        return
    imported = collections.Counter(name for seat in found for name in seat.get("imported", []))
    print(
        f"modules a {label} seat imported itself (of {len(found)} seats): "
        + (", ".join(f"{name} ({n})" for name, n in sorted(imported.items())) or "none")
    )
    for key, title in (("by_file", "the allocating package"), ("by_ours", "the first line of rankterm's")):
        names: collections.Counter[str] = collections.Counter()
        for seat in found:
            names.update(seat[key])
        total = statistics.median(sum(seat[key].values()) for seat in found)
        print(
            f"a {label} seat's own blocks (tracemalloc, median of {len(found)}): {total / 2**20:.1f} MiB, by {title}"
        )
        for name, _ in names.most_common(top):
            mib = statistics.median(seat[key].get(name, 0) for seat in found) / 2**20
            print(f"  {name[:70]:70} {mib:5.2f}")


def host_ready(server, limit: float = 120.0) -> None:
    """Wait until the server's warm parent, if it has one, has started (a guest would wait for it)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and warm_parent_of(server) is None and server.process.poll() is None:
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
    parser.add_argument(
        "--modes", default="warm,exec", help="warm, exec, rehearsed, or several (comma-separated)"
    )
    parser.add_argument("--servers", default="ssh,web", help="ssh, web or both (comma-separated)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shown", type=int, default=4)
    parser.add_argument("--seats", type=int, default=12)
    parser.add_argument("--rest", type=float, default=10.0)
    parser.add_argument("--pages", action="store_true", help="where a warm seat's private pages are")
    parser.add_argument(
        "--objects", action="store_true", help="with --pages: which objects lie on the pages a seat copied"
    )
    parser.add_argument(
        "--traced",
        action="store_true",
        help="what a warm seat allocates itself, by where (tracemalloc in the seats: their USS is then larger)",
    )
    parser.add_argument("--chromium", action="store_true", help="web guests in headless Chromium pages")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = home_env(Path(tmp))
        env["RANKTERM_LIVE_EVERY"] = os.environ.get("RANKTERM_LIVE_EVERY", "5")
        objects = traces = None
        if args.objects or args.traced or "rehearsed" in args.modes:
            env["PYTHONPATH"] = f"{sitecustomize_dir(Path(tmp) / 'site')}:{env['PYTHONPATH']}"
        if args.objects:
            objects = Path(tmp) / "objects"
            objects.mkdir()
            env[MAP_VARIABLE] = str(objects)
        if args.traced:
            traces = Path(tmp) / "traces"
            traces.mkdir()
            env[TRACE_VARIABLE] = str(traces)
        print(
            f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)"
        )
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        kinds = [k.strip() for k in args.servers.split(",") if k.strip()]
        seats = str(max(args.seats, args.shown, 1))
        with contextlib.ExitStack() as stack:
            browser = None
            if args.chromium and "web" in kinds:
                import shutil

                from playwright.sync_api import sync_playwright

                playwright = stack.enter_context(sync_playwright())
                chromium = shutil.which("chromium") or shutil.which("chromium-browser")
                browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
                stack.callback(browser.close)
            servers: list[Server] = []
            for kind in kinds:
                for mode in modes:
                    mode_env = {**env, "RANKTERM_SEATS": "exec" if mode == "exec" else "warm"}
                    if mode == "rehearsed":
                        mode_env[REHEARSE_VARIABLE] = "1"
                    if kind == "ssh":
                        host = stack.enter_context(start_host(["--demo", "--max-seats", seats], mode_env))
                        servers.append(Server(f"ssh {mode}", host, partial(SshGuest, host.port)))
                    else:
                        web = stack.enter_context(start_web(["--demo", "--max-seats", seats], mode_env))
                        guest: Callable[[], Any] = partial(WebGuest, web.port)
                        if browser is not None:
                            guest = partial(ChromiumGuest, browser, web.port)
                        servers.append(Server(f"web {mode}", web, guest))
            for server in servers:
                if server.warm:
                    host_ready(server.running)
            if args.runs:
                first_screens(servers, env, args.runs)
            if args.shown:
                shown_memory(servers, args.shown, args.pages, objects, traces)
            if args.seats:
                for server in servers:
                    if server.label.startswith("ssh"):
                        print(f"at rest, {server.label} seats:")
                        at_rest(server.running, args.seats, args.rest)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
