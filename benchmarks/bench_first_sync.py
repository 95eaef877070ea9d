"""A seat's first sync of a large group beside its floor: a bare httpx client reading the same pages.

    python benchmarks/bench_first_sync.py --db STORE [--before DIR] [--serve-code DIR] [--rounds 3]

STORE is a service database with a large history, e.g. the 100,000-match store `bench_server.py` builds
(`python benchmarks/bench_server.py --db DB`); it is copied, never changed. On the copy a new API client is
made and every quota is set unlimited (`rankterm serve --quota unlimited`), and `rankterm serve` serves it
on 127.0.0.1 (the code of `--serve-code`, this checkout by default: the same service for every run).

Each round runs, one after the other, each in a process of its own:

- **bare**: an `httpx.AsyncClient` (`GET auth`, then pages 1..N of `matches`, 8 in flight, each answer's
  JSON decoded and dropped): the floor, what reading the pages costs;
- **rankterm**: `Group.sync_matches()` on an empty mirror file, as a seat's first sync does;
- **before** (with `--before DIR`, e.g. `git worktree add /tmp/sync-before <commit>`, a commit with
  `rankterm.mirror.Group`): the same with that checkout's code (PYTHONPATH=DIR).

Printed per round and as medians: each one's seconds (the token read before the clock starts), the
rankterm/bare ratio, the matches the mirror holds after the sync, and each process's peak resident set
(VmHWM; 1 MB = 10^6 bytes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path

from trees import group_tree

ROOT = Path(__file__).resolve().parent.parent
CHILD = "--child"
"""Runs one of `CHILDREN` in this process (the parent starts each in a process of its own, PYTHONPATH on the
code measured): nothing of rankterm or of the tests is imported before it."""


def peak_kib() -> int:
    """This process's peak resident set (VmHWM), KiB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


async def bare(url: str, key: str, secret: str) -> None:
    """The floor: the pages read by httpx alone, 8 in flight, each answer's JSON decoded and dropped."""
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=60, limits=httpx.Limits(max_connections=8)) as http:
        token = (await http.get("auth", params={"key": key, "secret": secret})).json()["success"]
        token = token["token"] if isinstance(token, dict) else token
        headers = {"Authorization": f"Bearer {token}"}
        began, cpu = time.perf_counter(), time.process_time()
        first = (await http.get("matches/1", headers=headers)).json()["success"]
        pages = iter(range(2, int(first["totalPages"]) + 1))
        rows = len(first["data"])

        async def reader() -> None:
            nonlocal rows
            for n in pages:
                answer = await http.get(f"matches/{n}", headers=headers)
                answer.raise_for_status()
                rows += len(answer.json()["success"]["data"])

        await asyncio.gather(*(reader() for _ in range(8)))
        print("RESULT", time.perf_counter() - began, rows, peak_kib(), time.process_time() - cpu)


async def first_sync(url: str, key: str, secret: str, mirror_path: str) -> None:
    """A seat's first sync: `Group.sync_matches()` on an empty mirror file (the token read before the clock)."""
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group, Mirror

    client = RankingClient(url, key=key, secret=secret)
    async with Group(client, Mirror(Path(mirror_path), client.scope)) as group:
        await client.authenticate()
        began, cpu = time.perf_counter(), time.process_time()
        await group.sync_matches()
        took, cpu = time.perf_counter() - began, time.process_time() - cpu
        print("RESULT", took, group.mirror.held.match_numbers()[0], peak_kib(), cpu)
        group.mirror.close()


CHILDREN: dict[str, Callable[..., Coroutine[object, object, None]]] = {"bare": bare, "sync": first_sync}


def run_child(name: str, args: list[str], code: Path) -> tuple[float, int, int, float]:
    """(seconds, matches read or held, peak RSS in KiB, CPU seconds) of one child process."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run(
        [sys.executable, __file__, CHILD, name, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        cwd=tempfile.gettempdir(),
    )
    found = re.search(r"RESULT (\S+) (\d+) (\d+) (\S+)", out.stdout)
    if found is None:
        raise RuntimeError(f"the run failed:\n{out.stdout}\n{out.stderr[-3000:]}")
    return float(found.group(1)), int(found.group(2)), int(found.group(3)), float(found.group(4))


def printed(name: str, text: str) -> str:
    """The value `rankterm serve --new-client` printed after "`name`:"."""
    found = re.search(rf"{name}:\s+(\S+)", text)
    if found is None:
        raise SystemExit(f"rankterm serve --new-client printed no {name}: {text!r}")
    return found.group(1)


def serve_cmd(code: Path, db: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(code)}
    return subprocess.run(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(db), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tempfile.gettempdir(),
    ).stdout


def main() -> None:
    sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests
    from tests.support.live import start_serve

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, type=Path, help="a service database (copied, never changed)")
    parser.add_argument("--before", type=Path, help="a checkout of the previous release, run beside")
    parser.add_argument(
        "--serve-code", type=Path, default=ROOT, help="the checkout whose `rankterm serve` serves"
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    before = None if args.before is None else group_tree(args.before)

    with tempfile.TemporaryDirectory(prefix="bench-first-sync-") as tmp:
        db = Path(tmp) / "service.db"
        shutil.copyfile(args.db, db)
        made = serve_cmd(args.serve_code, db, "--new-client")
        key, secret = printed("key", made), printed("secret", made)
        serve_cmd(args.serve_code, db, "--quota", "unlimited", "--show-quota")
        proc, _, url = start_serve(
            ["--db", str(db), "--port", "0"],
            env={"PYTHONPATH": str(args.serve_code)},
            stderr=subprocess.DEVNULL,
        )
        try:
            runs: dict[str, list[tuple[float, int, int, float]]] = {"bare": [], "rankterm": [], "before": []}
            commands = {
                "bare": ("bare", [url, key, secret], ROOT),
                "rankterm": ("sync", [url, key, secret, ""], ROOT),
            }
            if before is not None:
                commands["before"] = ("sync", [url, key, secret, ""], before)
            names = list(commands)
            for round_ in range(1, args.rounds + 1):
                for name in names[round_ - 1 :] + names[: round_ - 1]:  # each goes first in turn
                    child, child_args, code = commands[name]
                    if child == "sync":  # an empty mirror: a first sync
                        child_args = [*child_args[:3], str(Path(tmp) / f"mirror-{name}-{round_}.db")]
                    runs[name].append(run_child(child, child_args, code))
                line = "  ".join(
                    f"{name} {r[-1][0]:6.1f} s (CPU {r[-1][3]:5.1f} s, {r[-1][1]:,} matches, peak"
                    f" {r[-1][2] * 1024 / 1e6:4.0f} MB)"
                    for name, r in runs.items()
                    if r
                )
                ratio = runs["rankterm"][-1][0] / runs["bare"][-1][0]
                print(f"round {round_}: {line}  rankterm/bare {ratio:.2f}", flush=True)
        finally:
            proc.terminate()
            proc.wait(timeout=30)

    def median(name: str, at: int) -> float:
        return statistics.median(r[at] for r in runs[name])

    def summary(name: str) -> str:
        return f"{median(name, 0):6.1f} s   CPU {median(name, 3):5.1f} s   peak {median(name, 2) * 1024 / 1e6:4.0f} MB"

    print(f"\nmedians of {args.rounds} rounds (same service, same minutes):")
    print(f"  bare httpx, 8 in flight:  {summary('bare')}")
    ratio = median("rankterm", 0) / median("bare", 0)
    print(
        f"  rankterm first sync:      {summary('rankterm')}   ratio to bare {ratio:.2f} (goal <= 1.5, <= 150 MB)"
    )
    if runs["before"]:
        ratio = median("before", 0) / median("bare", 0)
        print(f"  previous release:         {summary('before')}   ratio to bare {ratio:.2f}")


if __name__ == "__main__":
    if sys.argv[1:2] == [CHILD]:
        asyncio.run(CHILDREN[sys.argv[2]](*sys.argv[3:]))
    else:
        main()
