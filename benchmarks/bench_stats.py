"""Stats pages on a big group: 10,000 matches among 60 players, from the mirror.

Builds the group in the embedded service (a SQLite file under a temp dir: 60 players, 8 games, two of them
co-op against a bot, some team games, ties), recorded through a `Group` in batches of 100; syncs it into a
file-backed mirror; then, for several players, times what opening a player's page computes:

- reading the player's matches from the mirror's compact rows (`compact.player_matches`: remembered in the
  group's memo per state of the mirror, so this is the first open of a page in a process) and
  `player_figures` over them; for comparison, parsing all 10,000 matches (`source.held_matches`);
- `head_to_head` against everyone and a game's figures (`compact.held_game_figures`),
- a whole second open (`sync_group` + `player_matches` + `player_figures` + `player_history`) and the
  requests it made.

The ree history of a page is read once (within the quota share; the benchmark lifts the quota so that it
completes) before the second opens are timed.

The whole measurement runs in a process of this code and in one of an earlier code tree of the same shape
(`--before`, default /tmp/stats-before: `git worktree add /tmp/stats-before <commit>`, a commit with
`rankterm.mirror.Group`), one after the other; prints the medians in milliseconds of each and their ratio
this/before, and the request counts.

    python benchmarks/bench_stats.py [--matches 10000] [--players 60] [--runs 5] [--before DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from trees import group_tree

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Memo, Mirror
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from rankterm.stats import compact, head_to_head, player_figures
from rankterm.stats.history import player_history
from rankterm.stats.source import held_matches, sync_group
from rankterm.wire.models import NewFaction, NewMatch

GAMES = [("Catan", "ffa"), ("Wingspan", "ffa"), ("Ticket to Ride", "ffa"), ("Patchwork", "duel"),
         ("7 Wonders Duel", "duel"), ("Tichu", "teams"), ("Pandemic", "coop"), ("Spirit Island", "coop")]  # fmt: skip
BIG = 10**9


def plan(
    rng: random.Random, players: list[str], games: dict[str, tuple[int, str]], count: int
) -> list[NewMatch]:
    """`count` matches dated one after another, a skewed choice of players (some play far more often)."""
    weights = [1 + 4 * rng.random() ** 2 for _ in players]
    out = []
    for i in range(count):
        name = rng.choice(list(games))
        game, kind = games[name]
        seats = {"ffa": rng.randint(3, 5), "duel": 2, "teams": 4, "coop": rng.randint(2, 4)}[kind]
        chosen: list[str] = []
        while len(chosen) < seats:
            p = rng.choices(players, weights)[0]
            if p not in chosen:
                chosen.append(p)
        if kind == "teams":
            first = rng.random() < 0.5
            factions = [NewFaction(players=chosen[:2], rank=1 if first else 2),
                        NewFaction(players=chosen[2:], rank=2 if first else 1)]  # fmt: skip
        elif kind == "coop":
            won = rng.random() < 0.45
            factions = [
                NewFaction(players=chosen, rank=1 if won else 2),
                NewFaction(bot=True, rank=2 if won else 1),
            ]
        else:
            ranks = list(range(1, seats + 1))
            if seats > 2 and rng.random() < 0.08:
                ranks[1] = 1  # a tie for first
            factions = [NewFaction(players=[p], rank=r) for p, r in zip(chosen, ranks, strict=True)]
        day, minute = divmod(i, 12)
        date = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(1_600_000_000 + day * 86400 + minute * 1800))
        out.append(NewMatch(game=game, weight="normal", date=date, factions=factions))
    return out


class Times:
    """Wall and CPU time of runs of `with` blocks: each block is a run, or with `joined` several blocks make
    one run until `close()`. CPU time is this process's: on a busy machine it tells what the work costs."""

    def __init__(self, *, joined: bool = False) -> None:
        self.joined = joined
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self._run = [0.0, 0.0]
        self._start = (0.0, 0.0)

    def __enter__(self) -> None:
        self._start = (time.perf_counter(), time.process_time())

    def __exit__(self, *exc: object) -> None:
        self._run[0] += time.perf_counter() - self._start[0]
        self._run[1] += time.process_time() - self._start[1]
        if not self.joined:
            self.close()

    def close(self) -> None:
        self.wall.append(self._run[0])
        self.cpu.append(self._run[1])
        self._run = [0.0, 0.0]

    def __str__(self) -> str:
        wall, cpu = statistics.median(self.wall) * 1000, statistics.median(self.cpu) * 1000
        return f"{wall:7.1f} ms ({cpu:6.1f} ms cpu, max {max(self.wall) * 1000:.1f} ms)"


def as_new_process(group: Group) -> None:
    """Forget what was read and parsed, as a new process would (the reads remember in the group's memo)."""
    group.memo = Memo()


async def measure(matches: int, players: int, runs: int) -> dict[str, Any]:
    """The figures of one code, in this process."""
    work = Path(tempfile.mkdtemp(prefix="rankterm-bench-stats-"))
    store = Store(work / "service.db")
    key, secret = store.create_client(store.create_group("Big group"))
    limits = QuotaLimits(**{name: BIG for name in QuotaLimits.__dataclass_fields__})
    app = create_app(store, limits=limits)
    client = RankingClient.in_process(app, key=key, secret=secret, batch_size=100)
    mirror = Mirror(work / "mirror.db", client.scope)
    group = Group(client, mirror)
    rng = random.Random(11)
    out: dict[str, Any] = {}
    t = time.perf_counter()
    people = [str((await group.create_player(f"Player {i:02d}")).id) for i in range(players)]
    games = {}
    for name, kind in GAMES:
        games[name] = ((await group.create_game(name=name)).id, kind)
    await group.add_matches(plan(rng, people, games, matches))
    out["built"] = time.perf_counter() - t
    t = time.perf_counter()
    calls = client.calls
    await sync_group(group)
    out["synced"], out["sync_requests"] = time.perf_counter() - t, client.calls - calls

    chosen = rng.sample(people, runs)
    read, figures, h2h, game, whole, first = Times(), Times(), Times(), Times(), Times(), Times(joined=True)
    played = []
    catan = games["Catan"][0]
    for pid in chosen:
        as_new_process(group)
        with read, first:
            mine = compact.player_matches(group, pid)
        with figures, first:
            f = player_figures(mine, pid)
        first.close()
        played.append(f.played)
        with h2h:
            head_to_head(mine, pid, None)
        with game:
            compact.held_game_figures(group, catan)
        await player_history(group, pid, quota_share=1.0)  # read once; kept in the mirror
    for _ in range(min(runs, 3)):
        as_new_process(group)
        with whole:
            held_matches(group)
    second, requests = Times(), []
    for pid in chosen:
        calls = client.calls
        with second:
            await sync_group(group)
            player_figures(compact.player_matches(group, pid), pid)
            await player_history(group, pid, quota_share=1.0)
        requests.append(client.calls - calls)
    for name, times in (("read", read), ("figures", figures), ("first", first), ("h2h", h2h), ("game", game),
                        ("whole", whole), ("second", second)):  # fmt: skip
        out[name] = (statistics.median(times.wall), statistics.median(times.cpu))
    out["played"], out["requests"] = played, requests
    await group.aclose()
    mirror.close()
    store.close()
    return out


ROWS = (
    ("read", "read the player's matches from the mirror"),
    ("figures", "player_figures over them"),
    ("first", "  first open of a player's page in a process"),
    ("h2h", "head_to_head against everyone"),
    ("game", "a game's figures (Catan) from the mirror"),
    ("second", "second open (sync check + figures + ree history)"),
    ("whole", "(for comparison: parse every held match)"),
)


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--matches", type=int, default=10_000)
    cli.add_argument("--players", type=int, default=60)
    cli.add_argument("--runs", type=int, default=5)
    cli.add_argument("--before", type=Path, default=Path("/tmp/stats-before"), help="the earlier code tree")
    cli.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = cli.parse_args()
    if a.child:
        print(json.dumps(asyncio.run(measure(a.matches, a.players, a.runs))))
        return
    before = group_tree(a.before)
    here = Path(__file__).resolve().parent.parent
    got = {}
    for name, code in (("before", before), ("this", here)):
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", "--matches", str(a.matches),
             "--players", str(a.players), "--runs", str(a.runs)],
            cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": str(code)},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"{name}: {done.stderr[-1500:]}")
        got[name] = json.loads(done.stdout.strip().splitlines()[-1])
    this, before = got["this"], got["before"]
    print(f"{a.matches} matches, {a.players} players; first sync {before['synced']:.1f} s before, "
          f"{this['synced']:.1f} s this ({this['sync_requests']} requests); players sampled playing "
          f"{', '.join(map(str, this['played']))} matches")  # fmt: skip
    print(f"{'median, ms (CPU)':52}{'before':>20}{'this':>20}{'this/before':>13}")
    for key, label in ROWS:
        (bw, bc), (tw, tc) = before[key], this[key]
        print(
            f"{label:52}{bw * 1000:9.1f} ({bc * 1000:7.1f}){tw * 1000:9.1f} ({tc * 1000:7.1f}){tw / bw:12.2f}x"
        )
    print(f"requests made by the second opens: before {before['requests']}, this {this['requests']}")


if __name__ == "__main__":
    main()
