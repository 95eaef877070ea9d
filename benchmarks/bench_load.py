"""Load test of `rankterm serve` on loopback: concurrent clients recording matches and reading rankings.

Starts the real command (`python -m rankterm serve --db DB --port 0 --workers N`) as a subprocess, makes one
API client (key) per concurrent client task, then for --seconds each task loops: record a match (2-4
players) or read the standings/matches. Prints requests/s and p50/p99 latency (all requests and per kind),
the error count, and checks afterwards that every accepted match is present, each once ("lost" counts those
missing). Bounded by --seconds; loopback only.

A key per client keeps each client under its own quota (5,000 calls and 500 matches an hour by default), so
the default run measures the service, not the quota. ``--shared-key`` gives every client task one key, as
the seats of one group share theirs: a 429 (a quota reached) is then not an error; the task backs off, for
the Retry-After the service sends (or 0.25 s doubling to 8 s without one), never past the end of the run,
and the refusals and the time spent backing off are printed apart. The accepted-matches check reads with a
key of its own. ``--quota SETTINGS`` starts the service with ``rankterm serve --quota SETTINGS`` (for
instance ``unlimited``).

``--db`` is a SQLite file (default: a new one in a temporary directory) or a ``postgresql://…`` URL (an
existing database, empty or not: this run's matches carry ids of their own); ``--workers`` is the number
of server processes (PostgreSQL only); ``--clients`` the number of concurrent client tasks.

    python benchmarks/bench_load.py [--clients 16] [--seconds 30]
    python benchmarks/bench_load.py --shared-key [--quota unlimited]
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

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests

from rankterm.client.client import RankingClient  # noqa: E402
from rankterm.client.pool import http_client  # noqa: E402
from rankterm.mirror import Group  # noqa: E402
from rankterm.wire import endpoints as ep  # noqa: E402
from rankterm.wire.errors import QuotaError, RanktermError  # noqa: E402
from rankterm.wire.models import NewFaction, NewMatch  # noqa: E402
from tests.support.live import start_serve  # noqa: E402

BACKOFF_FIRST = 0.25
BACKOFF_MOST = 8.0


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
    key, secret = re.search(r"key:\s+(\S+)", out), re.search(r"secret:\s+(\S+)", out)
    if key is None or secret is None:
        raise SystemExit(f"rankterm serve --new-client printed no key and secret: {out!r}")
    return key.group(1), secret.group(1)


class Refusals:
    """The 429s the client tasks met and the seconds they backed off for (with --shared-key)."""

    def __init__(self) -> None:
        self.count = 0
        self.by_code: dict[str, int] = defaultdict(int)
        self.with_retry_after = 0
        self.backoff = 0.0


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
    refusals: Refusals | None,
) -> None:
    rng = random.Random(n)
    retry_after: list[str | None] = [None]

    async def note(response: httpx.Response) -> None:
        retry_after[0] = response.headers.get("retry-after") if response.status_code == 429 else None

    http = http_client(timeout=10.0, verify=True, pool=8, event_hooks={"response": [note]})
    client = RankingClient(url, key=key, secret=secret, retries=0, http=http)
    await client.authenticate()
    i = 0
    wait = BACKOFF_FIRST
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
                await client.call(ep.RANKINGS, subset=None, match=None, page=1)
            else:
                await client.call(ep.MATCHES, subset=None, page=1)
            wait = BACKOFF_FIRST
        except QuotaError as exc:
            if refusals is None:
                errors.append(str(exc))
                lat[kind].append(time.perf_counter() - t0)
                continue
            refusals.count += 1
            refusals.by_code[exc.code or "429"] += 1
            asked = _seconds(retry_after[0])
            if asked is not None:
                refusals.with_retry_after += 1
            pause = max(0.0, min(asked if asked is not None else wait, until - time.perf_counter()))
            wait = min(BACKOFF_MOST, wait * 2)
            refusals.backoff += pause
            await asyncio.sleep(pause)
            continue
        except RanktermError as exc:
            errors.append(str(exc))
        lat[kind].append(time.perf_counter() - t0)
    await client.aclose()
    await http.aclose()


def _seconds(header: str | None) -> float | None:
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None


async def run(
    url: str, creds: list[tuple[str, str]], checker: tuple[str, str], seconds: float, label: str, shared: bool
) -> None:
    setup = Group.of(RankingClient(url, key=checker[0], secret=checker[1]))
    players = [(await setup.create_player(f"Load {i}")).id for i in range(12)]
    game = (await setup.create_game(name="Catan")).id
    lat: dict[str, list[float]] = defaultdict(list)
    accepted: list[str] = []
    errors: list[str] = []
    tag = secrets.token_hex(3)
    refusals = Refusals() if shared else None
    start = time.perf_counter()
    await asyncio.gather(
        *(
            worker(n, tag, url, k, s, players, game, start + seconds, lat, accepted, errors, refusals)
            for n, (k, s) in enumerate(creds)
        )
    )
    elapsed = time.perf_counter() - start
    total = sum(len(v) for v in lat.values())
    every = [v for values in lat.values() for v in values]
    keys = f"one key shared by the {len(creds)} clients" if shared else "a key per client"
    print(
        f"{label} clients={len(creds)} ({keys}) duration={elapsed:.1f} s requests={total} answered"
        f" ({total / elapsed:.0f} req/s)"
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
    if refusals is not None:
        codes = ", ".join(f"{code} {n}" for code, n in sorted(refusals.by_code.items())) or "none"
        print(
            f"refused (429, not errors): {refusals.count} ({codes}; {refusals.with_retry_after} with Retry-After);"
            f" backoff {refusals.backoff:.1f} s in all, {refusals.backoff / len(creds):.1f} s a client"
            f" of {elapsed:.1f} s"
        )
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
    parser.add_argument(
        "--shared-key",
        action="store_true",
        help="one key for every client task; a 429 is backed off from, not counted as an error",
    )
    parser.add_argument(
        "--quota", default=None, metavar="SETTINGS", help="start the service with --quota SETTINGS"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "load.db")
        engine = "postgresql" if db.startswith(("postgresql://", "postgres://")) else "sqlite"
        label = f"{engine} workers={args.workers}"
        checker = new_client(db)
        creds = (
            [new_client(db)] * args.clients
            if args.shared_key
            else [new_client(db) for _ in range(args.clients)]
        )
        try:
            proc, _, url = start_serve(
                [
                    "--db",
                    db,
                    "--port",
                    "0",
                    "--workers",
                    str(args.workers),
                    *(["--quota", args.quota] if args.quota else []),
                ],
                stderr=subprocess.STDOUT,
            )
        except RuntimeError as exc:
            raise SystemExit(str(exc)) from None
        try:
            asyncio.run(run(url, creds, checker, args.seconds, label, args.shared_key))
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
