"""All pages of a 2,000-row list (players, a subset's rankings) over a real socket at 50 ms RTT: one after another, bounded, adaptive.

Three processes, so no timing shares an interpreter: the embedded service on a fresh SQLite file (a group of
`--rows` players who all played a game, made through the store before it starts: `--rows` / 2 matches of
four, each player in two) served by uvicorn on 127.0.0.1 (``--server
rankterm-serve``: by the ``rankterm serve`` command instead, see below), the delay proxy (`tests.support.delay_proxy`,
`--rtt`/2 each way on every chunk, a handshake per new connection) in front of it, and this process as the
client, a `Group` (its mirror in memory) on a `RankingClient` on the proxy's address: the reads a seat makes.
Each timed fetch uses a new client that has already authenticated (its token call is not timed), so it opens
its connections through the proxy as a seat would.

Lists (`--what`): the players (``players`` endpoint) and the standings of the game's subset after its last
match (``rankings/<subset>/last/<page>``), each `--rows` rows. Ways, each timed `--runs` times (interleaved),
medians printed:

- one after another: page 1, then pages 2..totalPages, one request in flight (``Group.players_page(n)``,
  ``Group.rankings_page(n, subset=…)``): how the public Python client rankade-py pages (its
  ``Api._paginated_request`` reads page 1 for ``totalPages``, then each further page in turn);
- bounded: ``Group.players(refresh=True)`` / ``Group.all_rankings(subset=…)`` with a fixed window of
  `--bounded` in flight (the client before the adaptive window: ``RankingClient(concurrency=8,
  max_concurrency=8)``);
- adaptive: the same with the client's defaults (`rankterm.client.paging`).

Each client is on the httpx client a `RankingClient` makes for itself (`rankterm.client.pool.http_client`:
its pool, its limits), with event hooks added to count the requests in flight.

For each: the median time, its speed-up over one after another, the calls made (must equal the pages),
the most requests seen in flight (httpx event hooks), and the median CPU seconds each process spent on one
fetch (this one's `process_time`; the service's and the proxy's from /proc, on Linux), and each of those
divided by the pages: with the load average printed beside them, they tell how much of the time was the
round trips and how much the work (under load, the CPU a page moves less than the times).

    python benchmarks/bench_pages.py [--what players|rankings|both] [--rows 2000] [--rtt 0.05] [--runs 5]
                                     [--bounded 8] [--port 8650] [--server uvicorn|rankterm-serve]

``rankterm serve`` binds its socket itself (``socket.create_server``: protocol 0), so asyncio leaves Nagle's
algorithm on for the connections it accepts, and on a keep-alive connection each answer's body waits for the
client's delayed ACK (about 40 ms on Linux). The default server here is uvicorn binding host and port itself,
which sets TCP_NODELAY, so the figures are the paging's and the 50 ms of the proxy, not that stall.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import uvicorn

from rankterm.client import paging
from rankterm.client.client import RankingClient
from rankterm.client.pool import http_client
from rankterm.mirror import Group
from rankterm.server import quota
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.wire.models import DATE_FORMAT, NewFaction, NewMatch

KEY, SECRET = "bench-pages-key", "bench-pages-secret"
PER_PAGE = 25
GAME = "Bench game"
START = datetime(2024, 1, 6, 19, 30)


def seed(path: Path, rows: int) -> str:
    """A group with `rows` players, one API client (KEY, SECRET) and matches of four of one game in which
    every player played twice, straight through the store, the quota lifted; returns the game's subset id."""
    rng = random.Random(35)
    with Store(path) as store:
        group = store.create_group("Bench")
        store.create_client(group, key=KEY, secret=SECRET)
        # many runs of 80 pages would pass the hour's calls and ranking calls
        store.set_quota(quota.parse_settings("calls=1000000000,rankingCalls=1000000000"))
        players = [store.create_player(group, f"Player {i:05d}").id for i in range(rows)]
        game = store.create_game(group, name=GAME).id
        seats = players + rng.sample(players, len(players))
        body = []
        for i in range(0, len(seats) - 3, 4):
            four = seats[i : i + 4]
            if len(set(four)) < 4:
                four = rng.sample(players, 4)
            order = rng.sample(range(1, 5), 4)
            body.append(
                NewMatch(
                    game=game,
                    weight="normal",
                    name="default_1",
                    external_id=f"bench-pages-{i // 4:06d}",
                    date=(START + timedelta(hours=i // 4)).strftime(DATE_FORMAT),
                    factions=[NewFaction(players=[p], rank=r) for p, r in zip(four, order, strict=True)],
                ).to_wire()
            )
        for i in range(0, len(body), 100):
            answer = store.add_matches(group, body[i : i + 100])
            if answer.rejected_count:
                raise SystemExit(f"the store refused a seeded match: {answer.rejected[0].errors}")
        return next(s.id for s in store.subsets(group) if s.name == GAME)


def serve(db: str, port: int) -> None:
    """The service over `db` on 127.0.0.1:`port` (uvicorn binds it itself: TCP_NODELAY is set)."""
    config = uvicorn.Config(
        create_app(Store(db)),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        access_log=False,
    )
    uvicorn.Server(config).run()


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"a helper process stopped (exit {proc.returncode})")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port}")


@dataclass
class InFlight:
    """Requests between httpx's request hook and its response hook, and the most seen at once."""

    now: int = 0
    most: int = 0
    statuses: list[int] = field(default_factory=list)

    async def sent(self, request: httpx.Request) -> None:
        self.now += 1
        self.most = max(self.most, self.now)

    async def answered(self, response: httpx.Response) -> None:
        self.now -= 1
        self.statuses.append(response.status_code)


@dataclass
class Result:
    seconds: list[float] = field(default_factory=list)
    calls: set[int] = field(default_factory=set)
    most: int = 0
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"client": [], "service": [], "proxy": []})


def cpu_seconds(pid: int | None) -> float:
    """CPU seconds (user + system) process `pid` has used (this process when None); 0 where /proc is not."""
    if pid is None:
        return time.process_time()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Fetch = Callable[[Group], Awaitable[int]]


def players_ways() -> tuple[Fetch, Fetch]:
    """All the players' pages one after another, and all of them through the client's paging."""

    async def one_after_another(group: Group) -> int:
        first = await group.players_page(1)
        rows = len(first.data)
        for n in range(2, first.total_pages + 1):
            rows += len((await group.players_page(n)).data)
        return rows

    async def all_at_once(group: Group) -> int:
        return len(await group.players(refresh=True))

    return one_after_another, all_at_once


def rankings_ways(subset: str) -> tuple[Fetch, Fetch]:
    """All the pages of `subset`'s latest standings one after another, and through the client's paging."""

    async def one_after_another(group: Group) -> int:
        first = await group.rankings_page(1, subset=subset)
        rows = len(first.data)
        for n in range(2, first.total_pages + 1):
            rows += len((await group.rankings_page(n, subset=subset)).data)
        return rows

    async def all_at_once(group: Group) -> int:
        return len(await group.all_rankings(subset=subset))

    return one_after_another, all_at_once


async def timed(
    base_url: str,
    kw: dict[str, int],
    how: Fetch,
    rows: int,
    into: Result,
    pids: dict[str, int | None],
) -> None:
    counter = InFlight()
    # The httpx client RankingClient makes for itself on a URL, with the counting hooks added.
    concurrency, most = kw.get("concurrency", 8), kw.get("max_concurrency", paging.CEILING)
    pool = max(concurrency, most)
    http = http_client(
        timeout=30.0,
        verify=True,
        pool=pool,
        event_hooks={"request": [counter.sent], "response": [counter.answered]},
    )
    client = RankingClient(
        base_url, key=KEY, secret=SECRET, http=http, concurrency=concurrency, max_concurrency=most
    )
    try:
        await client.authenticate()
        counter.most, calls_before = 0, client.calls
        cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        start = time.perf_counter()
        got = await how(Group(client))
        into.seconds.append(time.perf_counter() - start)
        for name, pid in pids.items():
            into.cpu[name].append(cpu_seconds(pid) - cpu_before[name])
    finally:
        await http.aclose()
    if got != rows:
        raise SystemExit(f"{got} rows came back, not {rows}")
    into.calls.add(client.calls - calls_before)
    into.most = max(into.most, counter.most)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--what", choices=("players", "rankings", "both"), default="both")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--rtt", type=float, default=0.05, help="round trip added by the proxy, seconds")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bounded", type=int, default=8, help="the fixed window of the bounded way")
    parser.add_argument("--port", type=int, default=8650, help="the service's port; the proxy takes the next")
    parser.add_argument("--server", choices=("uvicorn", "rankterm-serve"), default="uvicorn")
    parser.add_argument("--serve-db", help=argparse.SUPPRESS)  # the server process of --server uvicorn
    args = parser.parse_args()
    if args.serve_db:
        serve(args.serve_db, args.port)
        return
    pages = -(-args.rows // PER_PAGE)
    load_before = os.getloadavg()[0]  # the machine's other work shows in every figure: printed with them
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        db = Path(tmp) / "service.db"
        subset = seed(db, args.rows)
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        }
        if args.server == "uvicorn":
            command = [sys.executable, __file__, "--serve-db", str(db), "--port", str(args.port)]
        else:
            command = [sys.executable, "-m", "rankterm", "serve", "--db", str(db), "--port", str(args.port)]
        service = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        proxy = subprocess.Popen(
            [sys.executable, "-m", "tests.support.delay_proxy", "--port", str(args.port + 1),
             "--upstream", str(args.port), "--delay", str(args.rtt / 2)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        try:
            wait_for_port(args.port, service)
            wait_for_port(args.port + 1, proxy)
            base_url = f"http://127.0.0.1:{args.port + 1}/"
            pids: dict[str, int | None] = {"client": None, "service": service.pid, "proxy": proxy.pid}
            lists = {"players": players_ways(), "rankings": rankings_ways(subset)}
            chosen = list(lists) if args.what == "both" else [args.what]
            results: dict[str, dict[str, Result]] = {}
            for what in chosen:
                sequential, concurrent = lists[what]
                ways: list[tuple[str, dict[str, int], Fetch]] = [
                    ("one after another", {}, sequential),
                    (f"bounded ({args.bounded})", {"concurrency": args.bounded, "max_concurrency": args.bounded},
                     concurrent),
                    ("adaptive", {}, concurrent),
                ]  # fmt: skip
                results[what] = {name: Result() for name, _, _ in ways}
                asyncio.run(timed(base_url, {}, concurrent, args.rows, Result(), pids))  # warm the service up
                for _ in range(args.runs):
                    for name, kw, how in ways:
                        asyncio.run(timed(base_url, kw, how, args.rows, results[what][name], pids))
        finally:
            for proc in (proxy, service):
                proc.terminate()
                proc.wait(10)
    print(
        f"rows={args.rows} pages={pages} rtt={args.rtt * 1000:.0f} ms runs={args.runs} server={args.server}"
        f" (real socket, delay proxy); load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    for what, by_way in results.items():
        base = statistics.median(by_way["one after another"].seconds)
        for name, result in by_way.items():
            median = statistics.median(result.seconds)
            calls = "/".join(str(c) for c in sorted(result.calls))
            print(
                f"{what:<9} {name:<18} median {median:6.3f} s  speed-up {base / median:5.2f}x  calls {calls}"
                f" (pages {pages})  most in flight {result.most:2d}  CPU s: "
                + ", ".join(f"{who} {statistics.median(spent):.2f}" for who, spent in result.cpu.items())
                + "  (ms a page: "
                + ", ".join(f"{statistics.median(spent) / pages * 1000:.2f}" for spent in result.cpu.values())
                + ")"
            )


if __name__ == "__main__":
    main()
