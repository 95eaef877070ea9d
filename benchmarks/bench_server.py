"""The embedded service at scale: load 100,000 matches among 500 players, then time the rankings of a game.

Loading goes through `Store.add_matches` in batches of 100, the code path of ``POST matches/match`` (body as
wire dicts made with `NewMatch.to_wire()`, the client's id and quota limits passed as the app passes them).
The matches are plausible: a handful of games (duels, free-for-alls of 2-6, a team game), players with a
hidden skill and a per-game knack, results from skill + noise, dates rising over about three years, all from
a fixed seed.

Prints:

- insert time per match (median over the 100-match batches) over the first and the last 2,000 matches, and
  their ratio (expected <= 1.5: recording does not slow down as the history grows);
- the latency of ``GET rankings/<game subset>/<n>/1`` through the HTTP app (`create_app`, httpx on
  `ASGITransport`, with a token) for an early n and a late n: 50 requests each (after 3 not counted),
  median and p95 in ms (expected median under 20 ms), and the same through `Store.rankings_page` directly;
- total load time and the size of the database file.

    python benchmarks/bench_server.py [--matches 100000] [--players 500] [--seed 1] [--db FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import httpx

from rankterm.api.models import DATE_FORMAT, NewFaction, NewMatch, Weight
from rankterm.server.app import create_app
from rankterm.server.matches import MAX_BATCH, game_subset_key
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store

BATCH = MAX_BATCH  # 100
EDGE = 2_000  # matches timed at the start and at the end
REQUESTS = 50
WARMUP = 3
START = datetime(2023, 1, 6, 19, 30)
YEARS = 3
GENEROUS = QuotaLimits(*([10**12] * 9))


@dataclass(frozen=True)
class GameKind:
    """A game of the benchmark group: how many factions, how many players each, how often it is played."""

    name: str
    min_factions: int
    max_factions: int
    team_size: int = 1
    share: float = 1.0


GAMES = (
    GameKind("Catan", 3, 4, share=1.2),
    GameKind("Azul", 2, 4, share=1.0),
    GameKind("Carcassonne", 2, 5, share=1.0),
    GameKind("Tiny Towns", 2, 6, share=0.7),
    GameKind("7 Wonders Duel", 2, 2, share=0.9),
    GameKind("Tichu", 2, 2, team_size=2, share=0.5),
)
WEIGHTS = (Weight.LIGHT, Weight.NORMAL, Weight.NORMAL, Weight.NORMAL, Weight.NORMAL, Weight.HEAVY)


class Season:
    """Deterministic generator of plausible matches (wire dicts) for the group's players and games."""

    def __init__(self, seed: int, player_ids: list[str], game_ids: dict[str, int], total: int) -> None:
        self.rng = random.Random(seed)
        self.players = player_ids
        self.game_ids = game_ids
        self.skill = {p: self.rng.gauss(0.0, 1.0) for p in player_ids}
        self.knack = {(p, g.name): self.rng.gauss(0.0, 0.35) for p in player_ids for g in GAMES}
        # Some people play much more often than others (heavy-tailed activity).
        self.activity = [self.rng.paretovariate(1.5) for _ in player_ids]
        self.cumulative = list(_accumulate(self.activity))
        self.step = YEARS * 365 * 86400 / max(1, total)
        self.game_weights = list(_accumulate(g.share for g in GAMES))

    def _people(self, count: int) -> list[str]:
        chosen: list[str] = []
        seen: set[str] = set()
        while len(chosen) < count:
            pid = self.rng.choices(self.players, cum_weights=self.cumulative)[0]
            if pid not in seen:
                seen.add(pid)
                chosen.append(pid)
        return chosen

    def match(self, i: int) -> dict:
        game = self.rng.choices(GAMES, cum_weights=self.game_weights)[0]
        factions = self.rng.randint(game.min_factions, game.max_factions)
        people = self._people(factions * game.team_size)
        teams = [people[k * game.team_size : (k + 1) * game.team_size] for k in range(factions)]
        performance = [
            sum(self.skill[p] + self.knack[(p, game.name)] for p in team) / len(team)
            + self.rng.gauss(0.0, 1.0)
            for team in teams
        ]
        order = sorted(range(factions), key=lambda k: -performance[k])
        rank = {k: r for r, k in enumerate(order, start=1)}
        date = START + timedelta(seconds=int(i * self.step) + self.rng.randint(0, int(self.step * 0.5)))
        return NewMatch(
            game=self.game_ids[game.name],
            weight=self.rng.choice(WEIGHTS),
            name="default_1",
            external_id=f"bench-{i:07d}",
            date=date.strftime(DATE_FORMAT),
            factions=[
                NewFaction(
                    players=team,
                    rank=rank[k],
                    points=str(max(0, round(60 + 12 * performance[k]))),
                )
                for k, team in enumerate(teams)
            ],
        ).to_wire()


def _accumulate(values) -> list[float]:
    out, total = [], 0.0
    for v in values:
        total += v
        out.append(total)
    return out


def _ms(seconds: list[float]) -> tuple[float, float]:
    """(median, p95) in ms."""
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return statistics.median(ordered) * 1000, p95 * 1000


def load(
    store: Store, group: int, client_id: int, season: Season, total: int
) -> tuple[list[float], list[float], float]:
    """Record `total` matches in batches of `BATCH`.

    Returns the wall and CPU time per match (s) of each batch, and the total wall time spent in add_matches.
    """
    wall: list[float] = []
    cpu: list[float] = []
    loading = reported = 0.0
    last_done = 0
    report_every = max(BATCH, (total // 10) // BATCH * BATCH)
    for start in range(0, total, BATCH):
        body = [season.match(i) for i in range(start, min(total, start + BATCH))]
        began, began_cpu = time.perf_counter(), time.process_time()
        answer = store.add_matches(group, body, client_id=client_id, limits=GENEROUS)
        took, took_cpu = time.perf_counter() - began, time.process_time() - began_cpu
        if answer.rejected_count:
            raise SystemExit(
                f"match {start + answer.rejected[0].index + 1} refused: {answer.rejected[0].errors}"
            )
        loading += took
        wall.append(took / len(body))
        cpu.append(took_cpu / len(body))
        done = start + len(body)
        if done % report_every == 0 or done == total:
            print(
                f"  ... {done:>7,} matches, {loading:6.1f} s ({loading - reported:.1f} s for these {done - last_done:,})",
                file=sys.stderr,
                flush=True,
            )
            reported, last_done = loading, done
    return wall, cpu, loading


async def time_rankings_http(app, key: str, secret: str, path: str) -> tuple[list[float], dict]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench.test/") as http:
        auth = await http.get("auth", params={"key": key, "secret": secret})
        token = auth.json()["success"]["token"]
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        times: list[float] = []
        payload: dict = {}
        for k in range(WARMUP + REQUESTS):
            began = time.perf_counter()
            response = await http.get(path, headers=headers)
            took = time.perf_counter() - began
            if response.status_code != 200:
                raise SystemExit(f"{path}: HTTP {response.status_code} {response.text[:200]}")
            payload = response.json()["success"]
            if k >= WARMUP:
                times.append(took)
        return times, payload


def time_rankings_store(store: Store, group: int, subset: str, n: int) -> list[float]:
    times = []
    for k in range(WARMUP + REQUESTS):
        began = time.perf_counter()
        store.rankings_page(group, subset, n, 1)
        if k >= WARMUP:
            times.append(time.perf_counter() - began)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--db", type=Path, help="write the database to this new file and keep it (for profiling)"
    )
    args = parser.parse_args(argv)
    if args.db is not None and args.db.exists():
        parser.error(f"{args.db} exists")
    if args.matches < 2 * BATCH or args.players < 12:
        parser.error("at least 200 matches and 12 players")
    edge = min(EDGE, args.matches // 2) // BATCH * BATCH or BATCH
    early, late = min(1_000, args.matches // 10), args.matches - min(1_000, args.matches // 10)

    with tempfile.TemporaryDirectory(prefix="rankterm-bench-") as tmp:
        db = args.db or Path(tmp) / "service.db"
        store = Store(db)
        group = store.create_group("Benchmark group")
        key, secret = store.create_client(group)
        client_id = store.authenticate(key, secret).id
        player_ids = [store.create_player(group, f"Player {i:03d}").id for i in range(args.players)]
        game_ids = {g.name: store.create_game(group, name=g.name).id for g in GAMES}
        season = Season(args.seed, player_ids, game_ids, args.matches)

        print(
            f"Loading {args.matches:,} matches among {args.players} players, {len(GAMES)} games, "
            f"seed {args.seed}, into {db.name} (batches of {BATCH} via Store.add_matches)",
            flush=True,
        )
        wall = time.perf_counter()
        per_match, per_match_cpu, loading = load(store, group, client_id, season, args.matches)
        wall = time.perf_counter() - wall
        batches = edge // BATCH
        first = statistics.median(per_match[:batches]) * 1000
        last = statistics.median(per_match[-batches:]) * 1000
        first_cpu = statistics.median(per_match_cpu[:batches]) * 1000
        last_cpu = statistics.median(per_match_cpu[-batches:]) * 1000
        print(
            f"\nInsert time per match (median of {batches} batches of {BATCH}), wall clock [CPU of this process]:"
        )
        print(f"  first {edge:,} matches: {first:7.3f} ms   [{first_cpu:.3f} ms]")
        print(f"  last  {edge:,} matches: {last:7.3f} ms   [{last_cpu:.3f} ms]")
        verdict = "ok" if last / first <= 1.5 else "MISSED"
        print(
            f"  ratio last/first:     {last / first:7.2f}   [{last_cpu / first_cpu:.2f}]   (expected <= 1.5: {verdict})"
        )
        print(
            f"Total load time: {loading:.1f} s in add_matches ({wall:.1f} s with match generation), "
            f"{args.matches / loading:,.0f} matches/s"
        )

        game = "Catan"
        subset = game_subset_key(game_ids[game])
        app = create_app(store, limits=GENEROUS)
        print(
            f"\nRankings of the {game} subset ({subset}), page 1, {REQUESTS} requests each after {WARMUP} warm-up:"
        )
        for n in (early, late):
            path = f"rankings/{subset}/{n}/1"
            times, payload = asyncio.run(time_rankings_http(app, key, secret, path))
            median, p95 = _ms(times)
            shown = payload["match"]["number"]
            ranked = payload["totalPages"]
            direct = _ms(time_rankings_store(store, group, subset, n))
            verdict = "ok" if median < 20 else "MISSED"
            print(
                f"  n = {n:>6,}: HTTP (create_app over ASGITransport) median {median:6.2f} ms, p95 {p95:6.2f} ms"
                f"  (expected median < 20 ms: {verdict})"
            )
            print(
                f"              Store.rankings_page           median {direct[0]:6.2f} ms, p95 {direct[1]:6.2f} ms"
                f"  [after the group's match {shown:,}; the subset holds {payload['subset']['countMatches']:,}; {ranked} pages of 25]"
            )

        size = db.stat().st_size
        wal = Path(f"{db}-wal")
        wal_size = wal.stat().st_size if wal.exists() else 0
        store.close()
        closed = db.stat().st_size
        print(
            f"\nDatabase file: {closed / 2**20:.1f} MiB after close "
            f"({size / 2**20:.1f} MiB + {wal_size / 2**20:.1f} MiB WAL while open), "
            f"{closed / args.matches:,.0f} bytes per match"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
