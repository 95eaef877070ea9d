"""The embedded service at scale: load 100,000 matches among 500 players, then time the standings after a match.

Loading goes through `Store.add_matches` in batches of 100, the code path of ``POST matches/match`` (body as
wire dicts made with `NewMatch.to_wire()`, the client's id and quota limits passed as the app passes them).
The matches are plausible: a handful of games (duels, free-for-alls of 2-6, a team game), players with a
hidden skill and a per-game knack, results from skill + noise, dates rising over about three years, all from
a fixed seed.

Prints:

- insert time per match (median over the 100-match batches) over the first and the last 2,000 matches,
  wall clock and CPU of this process, and their ratio end/start (expected <= 1.2: recording does not slow
  down as the history grows). The two are timed side by side, batch for batch, so that a shared machine's
  load weighs on both alike: the first `matches - 2,000` are loaded into the store, then each batch of the
  last 2,000 goes into it right beside the same batch of the first 2,000 going into a fresh store (same
  seed, same players and games, in turns which goes first);
- pages written per match over the same batches (median): SQLite's own count of dirty pages its page cache
  wrote out, ``sqlite3_db_status(SQLITE_DBSTATUS_CACHE_WRITE)`` read through ctypes on the store's
  connection before and after each batch. In WAL mode that is the frames appended to the WAL, one per page a
  commit changed; checkpoints copy those same pages into the database file later and are not counted again.
  Printed as "n/a" where the connection cannot be reached that way;
- the standings after a match (``GET rankings/<game subset>/<n>/1``): near the end (n = matches - 1,000,
  99,000 by default) and early (n = 1,000), for `REQUESTS` different matches of the subset each (the
  latest of them the subset's last match at or before n, then the ones before it: no two requests alike,
  after 3 not counted), median and p95 in ms, through the HTTP app (`create_app`, httpx on `ASGITransport`,
  with a token; expected median <= 5 ms) and through `Store.rankings_page` (expected <= 3 ms), with the
  median CPU time of this process per request beside them (on a busy machine the wall clock also counts
  the time other processes held the cores); the store also with its snapshot cache emptied before each
  request (a snapshot is read into Python once per store and kept: consecutive matches share one, so the
  first figures are mostly warm; the cold one is what a first request after a far-away match costs);
- one match sent alone dated a day and 31 days before the group's latest, beside one dated after it
  (appended), median of `BACKDATED_REPEATS` each, and their ratio: a backdated match takes its place in the
  played order, the later matches move one number up and its subsets are rated again from that point;
- total load time and the size of the database file.

``--standings DB`` skips loading and times the standings of a database an earlier run kept with ``--db``;
``--backdating DB`` times only the backdated matches, in such a database (which keeps them); ``--upgrade DB``
times the upgrade of a copy of such a database taken back to schema 3 (matches numbered in played order,
every subset rated again).

    python benchmarks/bench_server.py [--matches 100000] [--players 500] [--seed 1] [--db FILE]
    python benchmarks/bench_server.py --standings FILE [--matches 100000]
    python benchmarks/bench_server.py --backdating FILE
    python benchmarks/bench_server.py --upgrade FILE
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import math
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the helpers live beside the tests

from rankterm.server.app import create_app  # noqa: E402
from rankterm.server.db import schema  # noqa: E402
from rankterm.server.matches import MAX_BATCH, game_subset_key  # noqa: E402
from rankterm.server.quota import QuotaLimits  # noqa: E402
from rankterm.server.store import Store  # noqa: E402
from rankterm.wire.models import DATE_FORMAT, NewFaction, NewMatch, Weight  # noqa: E402
from tests.support.old_schema import downgrade  # noqa: E402

BATCH = MAX_BATCH  # 100
EDGE = 2_000  # matches timed at the start and at the end
REQUESTS = 50
WARMUP = 3
START = datetime(2023, 1, 6, 19, 30)
YEARS = 3
GENEROUS = QuotaLimits(*([10**12] * 9))
FLAT = 1.2  # expected end/start ratio of insert time, at most
BACKDATED_REPEATS = 5
HTTP_MS, STORE_MS = 5.0, 3.0  # expected median standings latency, at most


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


class PageCounter:
    """Pages SQLite wrote out of a connection's cache (``SQLITE_DBSTATUS_CACHE_WRITE``), via ctypes.

    The `sqlite3.Connection` object holds the ``sqlite3 *`` right after its object header; the function is
    taken from the libsqlite3 this process loaded. `read` returns None when either cannot be found (or the
    store's connection is not SQLite's).
    """

    CACHE_WRITE = 9

    def __init__(self, conn: object) -> None:
        self.conn = conn if isinstance(conn, sqlite3.Connection) else None
        self.status = None
        try:
            with open("/proc/self/maps") as maps:
                lib = next(line.split()[-1] for line in maps if "libsqlite3" in line)
            self.status = ctypes.CDLL(lib).sqlite3_db_status
        except (OSError, StopIteration, AttributeError):
            pass

    def read(self) -> int | None:
        if self.status is None or self.conn is None:
            return None
        handle = ctypes.c_void_p.from_address(id(self.conn) + 2 * ctypes.sizeof(ctypes.c_void_p)).value
        current, high = ctypes.c_int(), ctypes.c_int()
        if self.status(
            ctypes.c_void_p(handle), self.CACHE_WRITE, ctypes.byref(current), ctypes.byref(high), 0
        ):
            return None
        return current.value


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


@dataclass
class Timings:
    """Per-match figures of each timed batch: wall and CPU time (s), pages written (None: not countable)."""

    wall: list[float]
    cpu: list[float]
    pages: list[float] | None

    def add(self, wall: float, cpu: float, pages: float | None, count: int) -> None:
        self.wall.append(wall / count)
        self.cpu.append(cpu / count)
        if self.pages is not None and pages is not None:
            self.pages.append(pages / count)
        else:
            self.pages = None


class Loader:
    """A store with its group, client, players and games, fed matches of one `Season` in batches."""

    def __init__(self, db: Path, players: int, seed: int, total: int) -> None:
        self.store = Store(db)
        self.group = self.store.create_group("Benchmark group")
        self.key, self.secret = self.store.create_client(self.group)
        self.client_id = self.store.authenticate(self.key, self.secret).id
        player_ids = [self.store.create_player(self.group, f"Player {i:03d}").id for i in range(players)]
        self.game_ids = {g.name: self.store.create_game(self.group, name=g.name).id for g in GAMES}
        self.season = Season(seed, player_ids, self.game_ids, total)
        self.counter = PageCounter(self.store._conn)
        self.done = 0
        self.spent = 0.0

    @classmethod
    def reopened(cls, db: Path, seed: int) -> Loader:
        """A loader on the one group of a database an earlier run kept, with a new client; the season goes on
        after the matches it holds (its players and games as found)."""
        self = cls.__new__(cls)
        self.store = Store(db)
        self.group = self.store.groups()[0][0]
        self.key, self.secret = self.store.create_client(self.group)
        self.client_id = self.store.authenticate(self.key, self.secret).id
        player_ids: list[str] = []
        page = 1
        while batch := self.store.players_page(self.group, page).data:
            player_ids += [p.id for p in batch]
            page += 1
        self.game_ids = {g.name: g.id for g in self.store.games(self.group)}
        self.done = self.store.match_status(self.group).total
        self.season = Season(seed, player_ids, self.game_ids, self.done)
        self.counter = PageCounter(self.store._conn)
        self.spent = 0.0
        return self

    def batch(self, count: int, timings: Timings | None = None) -> None:
        """Record the season's next `count` matches (one request's batch), timed into `timings`."""
        body = [self.season.match(i) for i in range(self.done, self.done + count)]
        written = self.counter.read()
        began, began_cpu = time.perf_counter(), time.process_time()
        answer = self.store.add_matches(self.group, body, client_id=self.client_id, limits=GENEROUS)
        took, took_cpu = time.perf_counter() - began, time.process_time() - began_cpu
        written_after = self.counter.read()
        if answer.rejected_count:
            raise SystemExit(
                f"match {self.done + answer.rejected[0].index + 1} refused: {answer.rejected[0].errors}"
            )
        self.done += count
        self.spent += took
        if timings is not None:
            pages = None if written is None or written_after is None else written_after - written
            timings.add(took, took_cpu, pages, count)


def load(loader: Loader, count: int) -> None:
    """Record `count` matches in batches of `BATCH`, saying how it goes on stderr."""
    reported, last_done = loader.spent, loader.done
    report_every = max(BATCH, (count // 10) // BATCH * BATCH)
    goal = loader.done + count
    while loader.done < goal:
        loader.batch(min(BATCH, goal - loader.done))
        if loader.done % report_every == 0 or loader.done == goal:
            print(
                f"  ... {loader.done:>7,} matches, {loader.spent:6.1f} s"
                f" ({loader.spent - reported:.1f} s for these {loader.done - last_done:,})",
                file=sys.stderr,
                flush=True,
            )
            reported, last_done = loader.spent, loader.done


def side_by_side(late: Loader, early: Loader, edge: int) -> tuple[Timings, Timings]:
    """The next `edge` matches into `late` and the first `edge` into `early`, batch beside batch."""
    first, last = Timings([], [], []), Timings([], [], [])
    for k in range(edge // BATCH):
        turns = ((early, first), (late, last)) if k % 2 == 0 else ((late, last), (early, first))
        for loader, timings in turns:
            loader.batch(BATCH, timings)
    return first, last


async def time_rankings_http(
    app, key: str, secret: str, paths: list[str]
) -> tuple[list[float], list[float], dict]:
    """Each of `paths` requested once (the first `WARMUP` not counted): wall and CPU times (s), the last answer."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench.test/") as http:
        auth = await http.get("auth", params={"key": key, "secret": secret})
        token = auth.json()["success"]["token"]
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        times: list[float] = []
        cpu: list[float] = []
        payload: dict = {}
        for k, path in enumerate(paths):
            began, began_cpu = time.perf_counter(), time.process_time()
            response = await http.get(path, headers=headers)
            took, took_cpu = time.perf_counter() - began, time.process_time() - began_cpu
            if response.status_code != 200:
                raise SystemExit(f"{path}: HTTP {response.status_code} {response.text[:200]}")
            payload = response.json()["success"]
            if k >= WARMUP:
                times.append(took)
                cpu.append(took_cpu)
        return times, cpu, payload


def time_rankings_store(
    store: Store, group: int, subset: str, numbers: list[int], cold: bool = False
) -> tuple[list[float], list[float]]:
    """`cold`: the store's snapshot cache emptied before each request, so each reads its snapshot afresh."""
    times, cpu = [], []
    for k, n in enumerate(numbers):
        if cold:
            store.snapshots.clear()
        began, began_cpu = time.perf_counter(), time.process_time()
        store.rankings_page(group, subset, n, 1)
        if k >= WARMUP:
            times.append(time.perf_counter() - began)
            cpu.append(time.process_time() - began_cpu)
    return times, cpu


def subset_numbers(store: Store, group: int, subset: str, at: int, count: int) -> list[int]:
    """The group-wide numbers of the subset's `count` matches ending with its last one at or before `at`."""
    with store._read() as conn:
        rows = conn.execute(
            "SELECT m.number FROM subset_matches m JOIN subsets s ON s.id = m.subset_id"
            " WHERE s.group_id = ? AND s.key = ? AND m.number <= ? ORDER BY m.number DESC LIMIT ?",
            (group, subset, at, count),
        ).fetchall()
    return [r[0] for r in rows]


def time_standings(store: Store, group: int, key: str, secret: str, subset: str, total: int) -> None:
    """Print the standings latency after matches near the end and near the start (see the docstring)."""
    early, late = min(1_000, total // 10), total - min(1_000, total // 10)
    app = create_app(store, limits=GENEROUS)
    print(
        f"\nStandings of the {subset} subset, page 1, after {REQUESTS} different matches each "
        f"(after {WARMUP} not counted):"
    )
    for n in (late, early):
        numbers = subset_numbers(store, group, subset, n, WARMUP + REQUESTS)
        paths = [f"rankings/{subset}/{m}/1" for m in numbers]
        times, cpu, payload = asyncio.run(time_rankings_http(app, key, secret, paths))
        median, p95 = _ms(times)
        store_times, store_cpu = time_rankings_store(store, group, subset, numbers)
        direct, direct_p95 = _ms(store_times)
        ranked = payload["totalPages"]
        print(
            f"  n = {n:>6,}: HTTP (create_app over ASGITransport) median {median:6.2f} ms, p95 {p95:6.2f} ms"
            f" [CPU {_ms(cpu)[0]:.2f} ms]  (expected <= {HTTP_MS:g} ms: {'ok' if median <= HTTP_MS else 'MISSED'})"
        )
        print(
            f"              Store.rankings_page           median {direct:6.2f} ms, p95 {direct_p95:6.2f} ms"
            f" [CPU {_ms(store_cpu)[0]:.2f} ms]  (expected <= {STORE_MS:g} ms: {'ok' if direct <= STORE_MS else 'MISSED'})"
        )
        cold, cold_p95 = _ms(time_rankings_store(store, group, subset, numbers, cold=True)[0])
        print(
            f"              the same, snapshot cache emptied before each  median {cold:6.2f} ms, p95 {cold_p95:6.2f} ms"
        )
        print(
            f"              [after the group's matches {numbers[-1]:,} .. {numbers[0]:,}; the subset holds "
            f"{payload['subset']['countMatches']:,}; {ranked} pages of 25]"
        )


def time_backdating(loader: Loader, repeats: int = BACKDATED_REPEATS) -> None:
    """Print the cost of one match dated a day and 31 days before the group's latest (it takes its place in
    the played order: the later matches move one number up and its subsets are rated again from there),
    beside one dated after it (appended), each sent alone as one request; median of `repeats`, in turns."""
    store, group = loader.store, loader.group
    kinds = {"appended": 0, "backdated by 1 day": 1, "backdated by 31 days": 31}  # days before the latest
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
    moved: dict[str, list[int]] = {kind: [] for kind in kinds}
    for k in range(repeats):
        for kind, days in kinds.items():
            latest = store.matches_page(group, None, 1).data[0]
            body = loader.season.match(loader.done)
            loader.done += 1
            before = timedelta(days=days, minutes=k) if days else timedelta(minutes=-1)
            body["date"] = (datetime.strptime(latest.date, DATE_FORMAT) - before).strftime(DATE_FORMAT)
            began, began_cpu = time.perf_counter(), time.process_time()
            answer = store.add_matches(group, body, client_id=loader.client_id, limits=GENEROUS)
            times[kind].append(time.perf_counter() - began)
            cpu[kind].append(time.process_time() - began_cpu)
            if answer.rejected_count:
                raise SystemExit(f"{kind}: refused: {answer.rejected[0].errors}")
            with store._read() as conn:
                placed, latest_number = conn.execute(
                    "SELECT number, (SELECT max(number) FROM matches WHERE group_id = ?) FROM matches"
                    " WHERE group_id = ? AND external_id = ?",
                    (group, group, body["id"]),
                ).fetchone()
            moved[kind].append(latest_number - placed)
    appended, appended_cpu = statistics.median(times["appended"]), statistics.median(cpu["appended"])
    print(
        f"\nOne match sent alone, at {loader.done:,} matches, median of {repeats} (wall clock, and CPU of this"
        " process):"
    )
    for kind in kinds:
        median, median_cpu = statistics.median(times[kind]), statistics.median(cpu[kind])
        print(
            f"  {kind:<21} {median * 1000:8.1f} ms ({median / appended:6.1f} x appended),"
            f" CPU {median_cpu * 1000:8.1f} ms ({median_cpu / appended_cpu:6.1f} x);"
            f" {statistics.median(moved[kind]):,.0f} later matches moved"
        )
    print(f"  (load average now {_load()})")


def time_upgrade(db: Path) -> int:
    """Print how long opening a copy of `db`, taken back to schema 3 (`old_schema.downgrade`), takes: the
    migrations from 3 on, which number every group's matches in played order and rate every subset again."""
    with tempfile.TemporaryDirectory(prefix="rankterm-bench-") as tmp:
        copy = Path(tmp) / "old.db"
        source, target = sqlite3.connect(db), sqlite3.connect(copy)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        with Store(copy) as store:
            downgrade(store, 3)
            count = sum(store.match_status(group).total for group, _ in store.groups())
        said: list[str] = []
        began, began_cpu = time.perf_counter(), time.process_time()
        Store(copy, notice=said.append).close()
        took, took_cpu = time.perf_counter() - began, time.process_time() - began_cpu
    print(f"Upgrade of a schema 3 database of {count:,} matches to schema {schema.SCHEMA_VERSION}:")
    print(f"  {took:.1f} s wall clock, {took_cpu:.1f} s CPU of this process; load average now {_load()}")
    print(f"  said before: {said[0] if said else '(nothing)'}")
    return 0


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def _ratio(name: str, first: float, last: float, unit: str) -> str:
    return f"  {name:<22} first {first:8.3f} {unit}, last {last:8.3f} {unit}, end/start {last / first:5.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--db", type=Path, help="write the database to this new file and keep it (for profiling)"
    )
    parser.add_argument(
        "--standings", type=Path, metavar="DB", help="only time the standings of a database kept with --db"
    )
    parser.add_argument(
        "--backdating",
        type=Path,
        metavar="DB",
        help="only time backdated matches, in a database kept with --db (it gets the matches timed)",
    )
    parser.add_argument(
        "--upgrade",
        type=Path,
        metavar="DB",
        help="only time the upgrade to this schema of a copy of a database kept with --db, taken back to schema 3",
    )
    args = parser.parse_args(argv)
    if args.upgrade is not None:
        if not args.upgrade.exists():
            parser.error(f"{args.upgrade} does not exist")
        return time_upgrade(args.upgrade)
    if args.standings is not None:
        return standings_only(args.standings, args.matches)
    if args.backdating is not None:
        if not args.backdating.exists():
            parser.error(f"{args.backdating} does not exist")
        loader = Loader.reopened(args.backdating, args.seed)
        try:
            time_backdating(loader)
        finally:
            loader.store.close()
        return 0
    if args.db is not None and args.db.exists():
        parser.error(f"{args.db} exists")
    if args.matches < 2 * BATCH or args.players < 12:
        parser.error("at least 200 matches and 12 players")
    edge = min(EDGE, args.matches // 2) // BATCH * BATCH or BATCH

    with tempfile.TemporaryDirectory(prefix="rankterm-bench-") as tmp:
        db = args.db or Path(tmp) / "service.db"
        late = Loader(db, args.players, args.seed, args.matches)
        print(
            f"Loading {args.matches:,} matches among {args.players} players, {len(GAMES)} games, "
            f"seed {args.seed}, into {db.name} (batches of {BATCH} via Store.add_matches); the last {edge:,}"
            f" side by side with the first {edge:,} into a fresh store",
            flush=True,
        )
        wall = time.perf_counter()
        load(late, args.matches - edge)
        early = Loader(Path(tmp) / "fresh.db", args.players, args.seed, args.matches)
        first_t, last_t = side_by_side(late, early, edge)
        early.store.close()
        wall = time.perf_counter() - wall
        batches = edge // BATCH

        def ends(first_values: list[float], last_values: list[float], scale: float) -> tuple[float, float]:
            return statistics.median(first_values) * scale, statistics.median(last_values) * scale

        first, last = ends(first_t.wall, last_t.wall, 1000)
        first_cpu, last_cpu = ends(first_t.cpu, last_t.cpu, 1000)
        print(
            f"\nInsert time per match, median of {batches} batches of {BATCH}: the first {edge:,} matches"
            f" and the last {edge:,}, side by side:"
        )
        print(_ratio("wall clock", first, last, "ms"))
        print(_ratio("CPU of this process", first_cpu, last_cpu, "ms"))
        flat = max(last / first, last_cpu / first_cpu) <= FLAT
        print(f"  (expected end/start <= {FLAT:g}, wall and CPU: {'ok' if flat else 'MISSED'})")
        if first_t.pages and last_t.pages:
            first_pages, last_pages = ends(first_t.pages, last_t.pages, 1)
            print(_ratio("pages written/match", first_pages, last_pages, "  "))
        else:
            print("  pages written per match: n/a (sqlite3_db_status not reachable)")
        loading = late.spent
        print(
            f"Total load time: {loading:.1f} s in add_matches ({wall:.1f} s with match generation and the"
            f" fresh store), {args.matches / loading:,.0f} matches/s; load average now {_load()}"
        )
        store, group, key, secret = late.store, late.group, late.key, late.secret
        game_ids = late.game_ids

        subset = game_subset_key(game_ids["Catan"])
        time_standings(store, group, key, secret, subset, args.matches)
        time_backdating(late)

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


def standings_only(db: Path, total: int) -> int:
    """Time the standings of a database an earlier run kept (its one group, a new client, Catan's subset)."""
    if not db.exists():
        raise SystemExit(f"{db} does not exist")
    store = Store(db)
    try:
        group = store.groups()[0][0]
        key, secret = store.create_client(group)
        catan = next(g for g in store.games(group) if g.name == "Catan")
        time_standings(store, group, key, secret, game_subset_key(catan.id), total)
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
