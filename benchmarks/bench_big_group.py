"""A seat on a large group: the matches screen's first open, the seat's memory, and a match's effect in a game.

    python benchmarks/bench_big_group.py --db STORE [--code DIR] [--port 8720]

STORE is a service database with a large history, e.g. the 100,000-match store `bench_server.py` builds
(`python benchmarks/bench_server.py --db DB`); it is copied, never changed. On the copy, the quota counters
are emptied (a first full read of 100,000 matches is 4,000 calls: the embedded service allows 5,000 an hour)
and a new API client is made; `rankterm serve` then serves it on 127.0.0.1.

1. The real `rankterm` process on a pty (80x24, `tests.support.terminal.PtySeat`) opens it through a
   profile, with an empty cache: once its first screen is up, m opens Matches. Printed: the seconds from m
   to page 1 on screen ("newest first" shown), the seconds until the seat's CPU has been idle for 3 s
   (its mirror then holds the group's matches: the count is printed), and the process's peak and final
   resident set size (VmHWM, VmRSS of /proc/<pid>/status; 1 MB = 10^6 bytes).
2. A match's effect in a game's subset (what the board shows at every match), by a `Group` on the mirror
   the seat filled (in a process of its own): `match_effect` for the latest match of the largest game's
   subset; the median of 5 runs, with the CPU time beside it.

`--code DIR` runs the seat and the effect from another checkout (PYTHONPATH=DIR; e.g. a git worktree of the
previous release, one with `rankterm.mirror.Group`) against the same service, to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trees import group_tree

ROOT = Path(__file__).resolve().parent.parent
EFFECT_CHILD = "--effect-child"


async def effect_figures(url: str, key: str, secret: str, mirror_path: str, scope: str) -> None:
    """In a process of the code measured (PYTHONPATH): the effect's figures, printed on a line of their own."""
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group, Mirror
    from rankterm.stats.effect import match_effect

    async with Group(RankingClient(url, key=key, secret=secret), Mirror(Path(mirror_path), scope)) as group:
        subsets = [s for s in await group.subsets() if s.game is not None and not s.is_main]
        subset = max(subsets, key=lambda s: s.count_matches or 0)
        latest = (await group.matches_page(1, subset=subset.id)).data[0].number
        walls, cpus = [], []
        for _ in range(5):
            wall, cpu = time.perf_counter(), time.process_time()
            await match_effect(group, latest, subset.id)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        group.mirror.close()
    print("EFFECT", statistics.median(walls), statistics.median(cpus), subset.count_matches, latest)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def new_client(db: Path, env: dict[str, str]) -> tuple[str, str]:
    """A new API client of the copied store: (key, secret)."""
    done = subprocess.run(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(db), "--new-client"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    values = dict(
        line.split(" = ", 1) for line in done.stdout.splitlines() if line.startswith(("key = ", "secret = "))
    )
    return values["key"].strip('"'), values["secret"].strip('"')


def main() -> int:
    # Here, not at the top: the effect's child imports rankterm from the code measured, these from this one.
    from bench_memory import status_kib, wait_for_port  # this script's directory is on the path

    sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests
    from tests.support.terminal import PtySeat, room_env

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="a service database with a large history")
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout the seat runs from (default: this)")
    parser.add_argument("--port", type=int, default=8720)
    args = parser.parse_args()
    args.code = group_tree(args.code, "--code")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        db = tmp / "service.db"
        shutil.copyfile(args.db, db)
        with sqlite3.connect(db) as conn:
            conn.execute("DELETE FROM quota_counters")
            matches = conn.execute("SELECT count(*) FROM matches").fetchone()[0]
        serve_env = {**os.environ, "PYTHONPATH": str(ROOT), "RANKTERM_DATA_DIR": str(tmp / "serve")}
        key, secret = new_client(db, serve_env)
        url = f"http://127.0.0.1:{args.port}/"
        address = ["--host", "127.0.0.1", "--port", str(args.port)]
        server = subprocess.Popen(
            [sys.executable, "-m", "rankterm", "serve", "--db", str(db), *address],
            env=serve_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(args.port)
            seat_dir = tmp / "seat"
            env = room_env(seat_dir, url, key, secret, PYTHONPATH=str(args.code))
            os.chdir(tmp)  # `python -m` puts the working directory first on the path: not this checkout
            seat = PtySeat(["--profile", "room"], env)
            try:
                seat.settle(quiet=1.5, limit=60)
                start = time.monotonic()
                seat.press(b"m")
                shown = seat.wait_for("newest first", 600)
                first_page = time.monotonic() - start
                last_cpu, quiet_since = cpu_seconds(seat.pid), time.monotonic()
                while time.monotonic() - quiet_since < 3.0:
                    seat.read(0.5)
                    now = cpu_seconds(seat.pid)
                    if now - last_cpu > 0.05:
                        last_cpu, quiet_since = now, time.monotonic()
                synced = quiet_since - start
                memory = status_kib(seat.pid)
            finally:
                seat.close()
            mirrors = sorted((seat_dir / "cache" / "mirror").glob("*.db"))
            with sqlite3.connect(mirrors[0]) as conn:
                held = conn.execute("SELECT count(*) FROM matches").fetchone()[0]
                scope = conn.execute("SELECT value FROM meta WHERE key = 'scope'").fetchone()[0]
            effect = subprocess.run(
                [sys.executable, __file__, EFFECT_CHILD, url, key, secret, str(mirrors[0]), scope],
                env={**os.environ, "PYTHONPATH": str(args.code)},
                cwd=tmp,
                capture_output=True,
                text=True,
                check=True,
            )
            wall, cpu, in_subset, number = next(
                line.split()[1:] for line in effect.stdout.splitlines() if line.startswith("EFFECT ")
            )
        finally:
            server.terminate()
            server.wait(10)
            os.chdir(ROOT)
    print(f"a seat on a group of {matches:,} matches (code: {args.code}), pty 80x24, empty cache:")
    print(f"  m to page 1 of Matches on screen: {first_page:.2f} s" + ("" if shown else " (never shown)"))
    print(f"  until the seat's CPU was idle for 3 s (the mirror's first sync done): {synced:.1f} s")
    print(f"  matches the mirror then held: {held:,}")
    print(
        f"  memory: peak VmHWM {memory['VmHWM'] * 1024 / 1e6:.1f} MB, after VmRSS {memory['VmRSS'] * 1024 / 1e6:.1f} MB"
    )
    print(
        f"  a match's effect in a game's subset ({int(in_subset):,} matches; match {number}), median of 5:"
        f" {float(wall) * 1000:.0f} ms, CPU {float(cpu) * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == [EFFECT_CHILD]:
        asyncio.run(effect_figures(*sys.argv[2:7]))
    else:
        raise SystemExit(main())
