"""Load test of `rankterm serve` on loopback: concurrent clients recording matches and reading rankings.

Starts the real command (`python -m rankterm serve --db DB --port 0 --workers N`) as a subprocess, makes one
API client per concurrent client task, then for --seconds each task loops: record a match (2-4 players) or
read the standings/matches. Prints requests/s and p50/p99 latency (all requests and per kind), the error
count, and checks afterwards that every accepted match is present, each once ("lost" counts those missing).
Bounded by --seconds; loopback only.

``--db`` is a SQLite file (default: a new one in a temporary directory) or a ``postgresql://…`` URL (an
existing database, empty or not: this run's matches carry ids of their own); ``--workers`` is the number
of server processes (PostgreSQL only); ``--clients`` the number of concurrent client tasks.

    python benchmarks/bench_load.py [--clients 16] [--seconds 30]
    python benchmarks/bench_load.py --db postgresql://user@/rankterm?host=/run/postgresql --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from rankterm.api.client import RankingClient
from rankterm.api.errors import RanktermError
from rankterm.api.models import NewFaction, NewMatch


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def new_client(db: Path | str) -> tuple[str, str]:
    out = subprocess.run(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(db), "--new-client"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return re.search(r"key:\s+(\S+)", out).group(1), re.search(r"secret:\s+(\S+)", out).group(1)


async def worker(
    n: int,
    tag: str,
    url: str,
    key: str,
    secret: str,
    players: list[str],
    game: int,
    until: float,
    lat: dict,
    accepted: list[str],
    errors: list[str],
) -> None:
    rng = random.Random(n)
    client = RankingClient(url, key=key, secret=secret, retries=0)
    await client.authenticate()
    i = 0
    while time.perf_counter() < until:
        kind = rng.choice(["match", "match", "rankings", "matches"])
        t0 = time.perf_counter()
        try:
            if kind == "match":
                ext = f"load-{tag}-{n}-{i}"
                chosen = rng.sample(players, rng.randint(2, 4))
                m = NewMatch(
                    game=game,
                    weight="normal",
                    external_id=ext,
                    factions=[
                        NewFaction(players=[p], rank=r + 1, points=str(10 - r)) for r, p in enumerate(chosen)
                    ],
                )
                answer = await client.add_matches(m)
                if answer.accepted_count != 1:
                    errors.append(f"rejected {answer.rejected[0].errors}")
                else:
                    accepted.append(ext)
                i += 1
            elif kind == "rankings":
                await client.rankings_page(1)
            else:
                await client.matches_page(1)
        except RanktermError as exc:
            errors.append(str(exc))
        lat[kind].append(time.perf_counter() - t0)
    await client.aclose()


async def run(url: str, creds: list[tuple[str, str]], seconds: float, label: str) -> None:
    setup = RankingClient(url, key=creds[0][0], secret=creds[0][1])
    players = [(await setup.create_player(f"Load {i}")).id for i in range(12)]
    game = (await setup.create_game(name="Catan")).id
    lat: dict[str, list[float]] = defaultdict(list)
    accepted: list[str] = []
    errors: list[str] = []
    tag = secrets.token_hex(3)
    start = time.perf_counter()
    await asyncio.gather(
        *(
            worker(n, tag, url, k, s, players, game, start + seconds, lat, accepted, errors)
            for n, (k, s) in enumerate(creds)
        )
    )
    elapsed = time.perf_counter() - start
    total = sum(len(v) for v in lat.values())
    every = [v for values in lat.values() for v in values]
    print(
        f"{label} clients={len(creds)} duration={elapsed:.1f} s requests={total} ({total / elapsed:.0f} req/s)"
    )
    print(
        f"  all       n={total:6d}  p50 {statistics.median(every) * 1000:7.1f} ms"
        f"  p99 {pct(every, 0.99) * 1000:7.1f} ms"
    )
    for kind, values in sorted(lat.items()):
        print(
            f"  {kind:9s} n={len(values):6d}  p50 {statistics.median(values) * 1000:7.1f} ms"
            f"  p99 {pct(values, 0.99) * 1000:7.1f} ms"
        )
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    recorded = [m.external_id for m in await setup.all_matches()]
    await setup.aclose()
    mine = [e for e in recorded if e.startswith(f"load-{tag}-")]
    ok = sorted(mine) == sorted(accepted) and len(set(mine)) == len(mine)
    lost = len(set(accepted) - set(mine))
    print(
        f"accepted {len(accepted)}, present afterwards {len(mine)}, lost {lost},"
        f" each once: {'yes' if ok else 'NO'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16, help="concurrent client tasks (default: 16)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--db", default=None, help="SQLite file or postgresql://… URL (default: a temporary file)"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="server processes (PostgreSQL only; default: 1)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "load.db")
        engine = "postgresql" if db.startswith(("postgresql://", "postgres://")) else "sqlite"
        label = f"{engine} workers={args.workers}"
        creds = [new_client(db) for _ in range(args.clients)]
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "rankterm",
                "serve",
                "--db",
                db,
                "--port",
                "0",
                "--workers",
                str(args.workers),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            url = None
            for line in proc.stdout:
                if m := re.search(r"service on (http://\S+/)", line):
                    url = m.group(1)
                    break
            if url is None:
                raise SystemExit("the service did not start")
            asyncio.run(run(url, creds, args.seconds, label))
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
