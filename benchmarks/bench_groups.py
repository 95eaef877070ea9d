"""Load across many groups on one `rankterm serve`, and the time of a backup and a restore.

Load: makes --groups groups (default 1,000) in a new database, each with six players and one API client,
starts the real ``rankterm serve --quota unlimited [--workers N]``, and runs --clients concurrent client
tasks (default 50) for --seconds, each writing to and reading its own group (task n: group n x groups /
clients), as `bench_load.py`'s tasks do (record a match half the time, else the standings or the matches).
Prints requests/s, p50 and p99 for each engine and worker count asked; with PostgreSQL at 1 and 2 workers,
the ratio. PostgreSQL is the test suite's throwaway server (tests/server/pg_cluster.py) unless --pg-url
names one.

    python benchmarks/bench_groups.py [--groups 1000] [--clients 50] [--seconds 20] [--runs sqlite,pg1,pg2]
    python benchmarks/bench_groups.py --backup 100000 --backup-groups 100 [--runs sqlite,pg1]

--backup N records N matches spread over --backup-groups groups (in batches of 100, not timed), then times
``rankterm admin backup`` and ``rankterm admin restore`` (the commands themselves, in their own processes)
on each engine of --runs, and checks the restored database holds the same matches. For PostgreSQL the
matches are recorded in SQLite and restored into it (timed and printed too): recording them through
PostgreSQL on this machine took over 13 minutes for 100,000.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from rankterm.server import tokens  # noqa: E402
from rankterm.server.store import Store  # noqa: E402
from rankterm.server.wire import format_time  # noqa: E402
from tests.support.live import start_serve  # noqa: E402

SECRET = "bench-groups-secret"
PLAYERS = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo")


def make_groups(db: str, count: int) -> tuple[list[tuple[str, str, list[str]]], int]:
    """`count` groups in `db`, each with PLAYERS and one client (all of one secret, hashed once: scrypt per
    client would take most of an hour at 1,000 groups); [(key, secret, player ids)] and the game id (Catan)."""
    hashed = tokens.hash_secret(SECRET)
    made = []
    with Store(db) as store:
        game: int | None = None
        now = time.time()
        for g in range(count):
            group = store.create_group(f"Group {g}")
            ids = [store.create_player(group, name).id for name in PLAYERS]
            key = f"bench{g:05d}{secrets.token_hex(4)}"
            with store._write() as conn:
                conn.execute(
                    "INSERT INTO clients (group_id, key, secret_hash, created, tokens_from) VALUES (?, ?, ?, ?, ?)",
                    (group, key, hashed, format_time(now), int(now) - 1),
                )
            made.append((key, SECRET, ids))
            if game is None:
                game = store.create_game(group, bgg_id=13).id  # the catalogue's Catan: one id for every group
    assert game is not None
    return made, game


class Clock:
    """The run's start, once every client has signed in."""

    def __init__(self, clients: int, seconds: float) -> None:
        self.barrier = asyncio.Barrier(clients)
        self.seconds = seconds
        self.start = 0.0

    def until(self) -> float:
        if not self.start:
            self.start = time.perf_counter()
        return self.start + self.seconds


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


async def worker(
    n: int,
    url: str,
    key: str,
    ids: list[str],
    game: int,
    clock: Clock,
    lat: dict,
    accepted: list,
    errors: list,
) -> None:
    """One client of its own group: signed in (untimed: every client first), then until the end record a
    match half the time, else read the standings or the matches."""
    rng = random.Random(n)
    async with httpx.AsyncClient(base_url=url, timeout=30.0) as http:
        signed = await http.get("auth", params={"key": key, "secret": SECRET})
        while signed.status_code == 429:  # the sign-in throttle: 20 tries at once from one address
            await asyncio.sleep(float(signed.headers.get("retry-after", "1")))
            signed = await http.get("auth", params={"key": key, "secret": SECRET})
        token = signed.json()["success"]["token"]
        http.headers["Authorization"] = f"Bearer {token}"
        await clock.barrier.wait()
        until = clock.until()
        i = 0
        while time.perf_counter() < until:
            kind = rng.choice(["match", "match", "rankings", "matches"])
            t0 = time.perf_counter()
            if kind == "match":
                chosen = rng.sample(ids, rng.randint(2, 4))
                body = [
                    {
                        "game": game,
                        "weight": "normal",
                        "id": f"g{n}-{i}",
                        "factions": [{"players": [p], "rank": r + 1} for r, p in enumerate(chosen)],
                    }
                ]
                answer = await http.post("matches/match", json=body)
                i += 1
            else:
                answer = await http.get("rankings/last" if kind == "rankings" else "matches")
            lat[kind].append(time.perf_counter() - t0)
            if answer.status_code != 200 or (
                kind == "match" and answer.json()["success"]["acceptedCount"] != 1
            ):
                errors.append(f"{kind}: {answer.status_code} {answer.text[:200]}")
            elif kind == "match":
                accepted.append(i)


async def load(
    url: str, groups: list[tuple[str, str, list[str]]], game: int, clients: int, seconds: float
) -> dict:
    lat: dict[str, list[float]] = defaultdict(list)
    accepted: list[str] = []
    errors: list[str] = []
    clock = Clock(clients, seconds)
    chosen = [groups[n * len(groups) // clients] for n in range(clients)]
    await asyncio.gather(
        *(
            worker(n, url, key, ids, game, clock, lat, accepted, errors)
            for n, (key, _, ids) in enumerate(chosen)
        )
    )
    elapsed = time.perf_counter() - clock.start
    every = [v for values in lat.values() for v in values]
    return {
        "rps": len(every) / elapsed,
        "p50": statistics.median(every) * 1000,
        "p99": pct(every, 0.99) * 1000,
        "requests": len(every),
        "errors": len(errors),
        "first_error": errors[0] if errors else "",
        "matches": len(accepted),
    }


def pg_url(given: str | None) -> str:
    if given:
        return given
    from tests.server.pg_cluster import cluster

    return cluster().fresh_url()


def database(kind: str, folder: Path, given_pg: str | None) -> str:
    return str(folder / f"{kind}-{secrets.token_hex(3)}.db") if kind == "sqlite" else pg_url(given_pg)


def run_load(args: argparse.Namespace) -> None:
    """Each run of --runs: groups made, the service started, the clients' load, one line of figures."""
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in args.runs.split(","):
            kind, workers = ("sqlite", 1) if run == "sqlite" else ("postgresql", int(run[2:] or 1))
            db = database(kind, Path(tmp), args.pg_url)
            t0 = time.perf_counter()
            groups, game = make_groups(db, args.groups)
            made = time.perf_counter() - t0
            proc, _, url = start_serve(
                ["--db", db, "--port", "0", "--workers", str(workers), "--quota", "unlimited"]
            )
            try:
                found = asyncio.run(load(url, groups, game, args.clients, args.seconds))
            finally:
                proc.terminate()
                proc.wait(timeout=30)
            results[run] = found
            print(
                f"{run:7s} groups={args.groups} clients={args.clients} (each its own group) {args.seconds:.0f} s:"
                f" {found['rps']:.0f} req/s  p50 {found['p50']:.1f} ms  p99 {found['p99']:.1f} ms"
                f"  requests {found['requests']}  matches {found['matches']}  errors {found['errors']}"
                f"{' (' + found['first_error'] + ')' if found['errors'] else ''}  (setup {made:.0f} s)",
                flush=True,
            )
    if "pg1" in results and "pg2" in results:
        print(f"PostgreSQL 2 workers / 1 worker: {results['pg2']['rps'] / results['pg1']['rps']:.2f}x req/s")


def record(db: str, matches: int, groups: int) -> int:
    """`matches` // `groups` matches in each of `groups` new groups; returns how many were recorded."""
    rng = random.Random(7)
    with Store(db) as store:
        per = matches // groups
        for g in range(groups):
            group = store.create_group(f"Backup {g}")
            ids = [store.create_player(group, name).id for name in PLAYERS]
            game = store.create_game(group, bgg_id=13).id
            for start in range(0, per, 100):
                batch = []
                for i in range(start, min(per, start + 100)):
                    chosen = rng.sample(ids, rng.randint(2, 4))
                    played = datetime(2020, 1, 1) + timedelta(hours=i)
                    batch.append(
                        {
                            "game": game,
                            "weight": "normal",
                            "date": played.strftime("%Y-%m-%d %H:%M:%S"),
                            "factions": [{"players": [p], "rank": r + 1} for r, p in enumerate(chosen)],
                        }
                    )
                answer = store.add_matches(group, batch, now=time.time())
                assert answer.rejected_count == 0, answer.rejected[:1]
    return per * groups


def admin(db: str, *args: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rankterm", "admin", "--db", db, *args], check=True, capture_output=True
    )
    return time.perf_counter() - t0


def count_matches(db: str) -> int:
    with Store(db) as store:
        return sum(g.matches for g in store.group_summaries())


def run_backup(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for run in args.runs.split(","):
            kind = "sqlite" if run == "sqlite" else "postgresql"
            db = database(kind, Path(tmp), args.pg_url)
            t0 = time.perf_counter()
            if kind == "sqlite":
                recorded = record(db, args.backup, args.backup_groups)
            else:
                # Recording 100,000 matches through PostgreSQL takes most of an hour here: they are recorded
                # in SQLite and brought in by a restore, itself a figure (a SQLite backup into PostgreSQL).
                seeded = str(Path(tmp) / f"seed-{run}.db")
                recorded = record(seeded, args.backup, args.backup_groups)
                admin(seeded, "backup", str(Path(tmp) / f"seed-{run}.backup"))
                into = admin(db, "restore", str(Path(tmp) / f"seed-{run}.backup"), "--yes")
                print(f"{run}: a SQLite backup restored into PostgreSQL in {into:.1f} s", flush=True)
            print(
                f"{run}: recorded {recorded} matches in {args.backup_groups} groups in {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
            file = str(Path(tmp) / f"backup-{run}.db")
            backup = admin(db, "backup", file)
            size = Path(file).stat().st_size / 1e6
            target = database(kind, Path(tmp), args.pg_url) if kind == "sqlite" else db
            restore = admin(target, "restore", file, "--yes")
            same = count_matches(target) == count_matches(db) == recorded
            print(
                f"{run:7s} {recorded} matches in {args.backup_groups} groups: backup {backup:.1f} s ({size:.0f} MB),"
                f" restore {restore:.1f} s, matches the same after: {'yes' if same else 'NO'}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", default="sqlite,pg1,pg2", help="sqlite, pg1 (PostgreSQL, 1 worker), pg2, …")
    parser.add_argument(
        "--pg-url", default=None, help="an empty PostgreSQL database (default: a throwaway one)"
    )
    parser.add_argument(
        "--backup", type=int, default=0, metavar="MATCHES", help="time backup and restore instead"
    )
    parser.add_argument("--backup-groups", type=int, default=100)
    args = parser.parse_args()
    if args.backup:
        run_backup(args)
    else:
        run_load(args)


if __name__ == "__main__":
    main()
