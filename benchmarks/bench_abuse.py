"""Cheap abuse against `rankterm serve`, measured: what it costs the service and the other clients.

    python benchmarks/bench_abuse.py [--code DIR] [--factions 100000] [--matches 10000,30000] [--timeout 120]
                                     [--keep DIR] [--runs 5] [--parts factions,flood,backdated]

Each part runs the real `rankterm serve` in its own process on 127.0.0.1 (a SQLite file, default quota), from
this checkout or, with ``--code DIR``, from another (``PYTHONPATH=DIR``, e.g. ``git archive`` of an older
commit unpacked in DIR), so the same minutes measure both. This process is the clients (httpx):

1. **factions**: a dry run of one match with `--factions` empty factions (``{}``, compact JSON: ≈300 KB at
   100,000). Printed: the time to its answer, and how long a ``GET players`` sent 20 ms after it waited,
   beside the same ``GET players`` on the quiet service; medians of `--runs` (one run when an answer takes
   more than `--timeout` seconds: then "no answer within N s").
2. **flood**: 400 wrong secrets (``GET auth``) at 40 concurrent from 127.0.0.1, while a client that already
   holds a token sends ``GET players`` one after the other from 127.0.0.2 (another address: all of
   127.0.0.0/8 is this machine). Printed: that client's p50/p99 during the flood beside 200 requests on the
   quiet service, their ratio, and the statuses the flood got (401 tried, 429 refused unhashed).
3. **backdated**: a group of N matches (each of `--matches`; built once with `bench_server.Loader` and kept
   in `--keep`, copied per run), then one request of 100 matches dated before the group's first: the
   re-rating of every later match. A reader sends ``GET rankings/last`` one after the other meanwhile (the
   calls and ranking calls limits raised to 10^9, so that it never runs out: every call is still counted).
   Printed: the request's wall time and the service process's CPU time over it (/proc/<pid>/stat), once
   alone and once beside the reader (whose reads the service answers meanwhile, on the same cores), with
   the reader's longest wait while it ran beside its median on the quiet service.

Figures are wall-clock on a shared machine: compare the two checkouts run in the same minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import httpx  # noqa: E402

from rankterm.server import quota  # noqa: E402
from rankterm.server.store import Store  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
FLOOD = 400
FLOOD_AT_ONCE = 40
QUIET_REQUESTS = 200
BACKDATED = 100


def service(db: Path, code: Path | None, workdir: Path) -> tuple[subprocess.Popen[str], str]:
    """`rankterm serve --db DB --port 0` from `code` (None: this checkout); the process and its base URL."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(code or ROOT), "HOME": str(workdir)}
    env["XDG_DATA_HOME"] = env["XDG_CACHE_HOME"] = env["XDG_CONFIG_HOME"] = str(workdir)
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=workdir,  # not this checkout: its folder would come first on the path
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"rankterm service on (http://\S+/)", line)
        if found:
            return proc, found.group(1)
    raise SystemExit("rankterm serve did not start")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)  # a service stuck in a request does not stop on SIGTERM in time
    proc.wait()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


async def token(http: httpx.AsyncClient, key: str, secret: str) -> dict[str, str]:
    answer = await http.get("auth", params={"key": key, "secret": secret})
    return {"Authorization": f"Bearer {answer.json()['success']['token']}"}


async def timed(call) -> float:
    began = time.perf_counter()
    await call
    return time.perf_counter() - began


def small_group(db: Path) -> tuple[str, str, int, list[str]]:
    with Store(db) as store:
        group = store.create_group("Abuse")
        key, secret = store.create_client(group)
        players = [store.create_player(group, name).id for name in ("Ann", "Bob")]
        game = store.create_game(group, name="Go").id
    return key, secret, game, players


# ------------------------------------------------------------------ 1. factions


async def factions(code: Path | None, count: int, runs: int, limit: float, work: Path) -> None:
    db = work / "factions.db"
    key, secret, game, _ = small_group(db)
    proc, url = service(db, code, work)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=limit) as http:
            headers = await token(http, key, secret)
            quiet = [await timed(http.get("players", headers=headers)) for _ in range(20)]
            match = {"game": game, "weight": "normal", "factions": [{} for _ in range(count)]}
            body = json.dumps([match], separators=(",", ":"))
            answers: list[float] = []
            waits: list[float] = []
            for _ in range(runs):
                post = asyncio.create_task(
                    timed(
                        http.post(
                            "matches/match",
                            params={"dryrun": 1},
                            content=body,
                            headers={**headers, "Content-Type": "application/json"},
                        )
                    )
                )
                await asyncio.sleep(0.02)
                async with httpx.AsyncClient(base_url=url, timeout=limit) as other:
                    try:
                        waits.append(await timed(other.get("players", headers=headers)))
                    except httpx.TimeoutException:
                        waits.append(float("inf"))
                try:
                    answers.append(await post)
                except httpx.TimeoutException:
                    answers.append(float("inf"))
                    break
    finally:
        stop(proc)
    answer, wait = statistics.median(answers), statistics.median(waits)
    said = ms(answer) if answer != float("inf") else f"no answer within {limit:g} s"
    said_wait = ms(wait) if wait != float("inf") else f"no answer within {limit:g} s"
    print(
        f"  {count:,} factions ({len(body) / 1000:,.0f} KB), dry run: answer median {said} ({len(answers)} runs)"
    )
    print(
        f"  a GET players sent 20 ms after it: median {said_wait}; quiet: median {ms(statistics.median(quiet))}"
    )


# ------------------------------------------------------------------ 2. flood


ATTACKER = """
import asyncio, collections, json, sys, httpx

async def main(url, key, count, at_once):
    statuses = collections.Counter()
    left = list(range(count))
    limits = httpx.Limits(max_connections=at_once)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        async def wrong():
            while left:
                left.pop()
                answer = await http.get("auth", params={"key": key, "secret": "wrong"})
                statuses[answer.status_code] += 1
        await asyncio.gather(*(wrong() for _ in range(at_once)))
    print(json.dumps(dict(statuses)))

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
"""
"""The flood, from a process of its own (its client's own work never slows the neighbour measured here)."""


async def flood(code: Path | None, work: Path) -> None:
    db = work / "flood.db"
    key, secret, _, _ = small_group(db)
    proc, url = service(db, code, work)
    neighbour = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    try:
        async with httpx.AsyncClient(base_url=url, transport=neighbour, timeout=120) as http:
            headers = await token(http, key, secret)
            quiet = [await timed(http.get("players", headers=headers)) for _ in range(QUIET_REQUESTS)]
            began = time.perf_counter()
            attacker = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                ATTACKER,
                url,
                key,
                str(FLOOD),
                str(FLOOD_AT_ONCE),
                stdout=asyncio.subprocess.PIPE,
            )
            finished = asyncio.create_task(attacker.communicate())
            during: list[float] = []
            while not finished.done():
                during.append(await timed(http.get("players", headers=headers)))
            out, _ = await finished
            took = time.perf_counter() - began
    finally:
        stop(proc)
    statuses = json.loads(out)
    p50q, p99q, p50f, p99f = pct(quiet, 0.5), pct(quiet, 0.99), pct(during, 0.5), pct(during, 0.99)
    print(f"  GET players from 127.0.0.2, quiet ({len(quiet)}): p50 {ms(p50q)}, p99 {ms(p99q)}")
    print(
        f"  during {FLOOD} wrong secrets at {FLOOD_AT_ONCE} concurrent from 127.0.0.1 ({took:.1f} s,"
        f" {len(during)} requests): p50 {ms(p50f)}, p99 {ms(p99f)}; ratio p50 {p50f / p50q:.1f}x,"
        f" p99 {p99f / p99q:.1f}x"
    )
    print(f"  the flood's answers by status: {dict(sorted(statuses.items()))}")


# ------------------------------------------------------------------ 3. backdated


def built(keep: Path, matches: int) -> Path:
    """A database of `matches` matches among 500 players (bench_server's season), built once."""
    from bench_server import Loader, load

    path = keep / f"abuse-{matches}.db"
    if not path.exists():
        keep.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".building")
        for stale in keep.glob(partial.name + "*"):
            stale.unlink()
        print(f"  building {matches:,} matches into {path} (once) ...", file=sys.stderr, flush=True)
        loader = Loader(partial, 500, 1, matches)
        load(loader, matches)
        loader.store.close()
        partial.rename(path)
    return path


async def backdated(code: Path | None, source: Path, work: Path, with_reader: bool) -> None:
    db = Path(tempfile.mkdtemp(dir=work)) / "backdated.db"
    shutil.copy(source, db)
    with Store(db) as store:
        group = store.groups()[0][0]
        key, secret = store.create_client(group)
        with store._write() as conn:
            conn.execute("DELETE FROM quota_counters")
        # Counted as ever (each read's count is a write), but never run out by a reader reading flat out.
        store.set_quota(quota.parse_settings("calls=1000000000,rankingCalls=1000000000"))
        total = store.match_status(group).total
        players = [p.id for p in store.players_page(group, 1).data]
        games = [g.id for g in store.games(group)]
    proc, url = service(db, code, work)
    body = [
        {
            "game": games[i % len(games)],
            "weight": "normal",
            "date": f"2001-01-01 {i // 60:02d}:{i % 60:02d}:00",
            "factions": [
                {"players": [players[(2 * i) % len(players)]], "rank": 1},
                {"players": [players[(2 * i + 1) % len(players)]], "rank": 2},
            ],
        }
        for i in range(BACKDATED)
    ]
    try:
        async with (
            httpx.AsyncClient(base_url=url, timeout=3600) as http,
            httpx.AsyncClient(base_url=url, timeout=3600) as reader,
        ):
            headers = await token(http, key, secret)
            quiet = [await timed(reader.get("rankings/last", headers=headers)) for _ in range(20)]
            reads: list[tuple[float, float]] = []
            done = asyncio.Event()

            async def read_on() -> None:
                while not done.is_set():
                    began = time.perf_counter()
                    answer = await reader.get("rankings/last", headers=headers)
                    assert answer.status_code == 200, answer.text
                    reads.append((began, time.perf_counter()))

            if with_reader:
                reading = asyncio.create_task(read_on())
                await asyncio.sleep(0.2)
            cpu, began = cpu_seconds(proc.pid), time.perf_counter()
            answer = await http.post("matches/match", json=body, headers=headers)
            wall, used = time.perf_counter() - began, cpu_seconds(proc.pid) - cpu
            ended = time.perf_counter()
            done.set()
            if with_reader:
                await reading
            assert answer.status_code == 200 and answer.json()["success"]["acceptedCount"] == BACKDATED, (
                answer.text[:300]
            )
    finally:
        stop(proc)
    if not with_reader:
        print(
            f"  {total:,} matches, {BACKDATED} dated before the first, alone: wall {wall:.2f} s, CPU {used:.2f} s"
        )
        return
    overlapping = [end - start for start, end in reads if end > began and start < ended]
    longest = max(overlapping) if overlapping else float("nan")
    print(
        f"  {total:,} matches, {BACKDATED} dated before the first: wall {wall:.2f} s, service CPU {used:.2f} s;"
        f" reader (GET rankings/last): longest wait {ms(longest)} over {len(overlapping)} reads,"
        f" quiet median {ms(statistics.median(quiet))}"
    )


async def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--code", type=Path, default=None, help="checkout the service runs from (default: this)"
    )
    parser.add_argument("--factions", type=int, default=100_000)
    parser.add_argument("--matches", default="10000,30000", help="group sizes of the backdated part")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds an answer is waited for")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "rankterm-bench-abuse")
    parser.add_argument("--parts", default="factions,flood,backdated")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    print(f"service code: {args.code or ROOT}")
    with tempfile.TemporaryDirectory(prefix="bench-abuse-") as tmp:
        work = Path(tmp)
        if "factions" in parts:
            print("1. one match of many empty factions (dry run)")
            await factions(args.code, args.factions, args.runs, args.timeout, work)
        if "flood" in parts:
            print("2. wrong secrets from one address")
            await flood(args.code, work)
        if "backdated" in parts:
            print("3. a backdated batch re-rates the group")
            for matches in (int(n) for n in args.matches.split(",")):
                source = built(args.keep, matches)
                await backdated(args.code, source, work, with_reader=False)
                await backdated(args.code, source, work, with_reader=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
