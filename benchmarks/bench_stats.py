"""Stats pages on a big group: 10,000 matches among 60 players, from the mirror.

Builds the group in the embedded service (a SQLite file under a temp dir: 60 players, 8 games, two of them
co-op against a bot, some team games, ties), recorded through the client in batches of 100; syncs it into a
file-backed mirror; then, for several players, times what opening a player's page computes:

- reading the player's matches from the mirror (`source.player_matches`: narrowed by SQLite, then parsed;
  once per change of the mirror, so this is the first open of a page in a process) and `player_figures`
  over them; for comparison, parsing all 10,000 matches (`source.held_matches`);
- `head_to_head` against everyone and `game_figures` (a game's matches: `source.game_matches`),
- a whole second open (`sync_group` + `player_matches` + `player_figures` + `player_history`) and the
  requests it made.

Prints medians in milliseconds and the request counts. The ree history of a page is read once (within the
quota share; the benchmark lifts the quota so that it completes) before the second opens are timed.

    python benchmarks/bench_stats.py [--matches 10000] [--players 60] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.client.mirror import Mirror
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from rankterm.stats import game_figures, head_to_head, player_figures, source
from rankterm.stats.history import player_history
from rankterm.stats.source import game_matches, group_matches, held_matches, player_matches, sync_group
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


async def main(matches: int, players: int, runs: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="rankterm-bench-stats-"))
    store = Store(work / "service.db")
    key, secret = store.create_client(store.create_group("Big group"))
    limits = QuotaLimits(calls_per_hour=BIG, calls_per_year=BIG, matches_per_hour=BIG, matches_per_day=BIG,
                         matches_per_year=BIG, ranking_calls_per_hour=BIG, ranking_calls_per_day=BIG,
                         ranking_calls_per_year=BIG)  # fmt: skip
    app = create_app(store, limits=limits)
    mirror = Mirror(work / "mirror.db", "bench")
    client = RankingClient.in_process(app, key=key, secret=secret, batch_size=100, mirror=mirror)
    rng = random.Random(11)

    t = time.perf_counter()
    people = [str((await client.create_player(f"Player {i:02d}")).id) for i in range(players)]
    games = {}
    for name, kind in GAMES:
        games[name] = ((await client.create_game(name=name)).id, kind)
    await client.add_matches(plan(rng, people, games, matches))
    print(
        f"group built: {matches} matches, {players} players, {len(games)} games in {time.perf_counter() - t:.1f} s"
    )

    t = time.perf_counter()
    calls = client.calls
    held = await group_matches(client)
    print(f"first sync into the mirror: {len(held)} matches, {client.calls - calls} requests, "
          f"{time.perf_counter() - t:.1f} s")  # fmt: skip

    chosen = rng.sample(people, runs)
    read, figures, h2h, game, whole, first = Times(), Times(), Times(), Times(), Times(), Times(joined=True)
    played = []
    for pid in chosen:
        source._narrow_memo.clear()  # as a new process would: read the mirror again
        source._parsed.clear()
        with read, first:
            mine = player_matches(client, pid)
        with figures, first:
            f = player_figures(mine, pid)
        first.close()
        played.append(f.played)
        with h2h:
            head_to_head(mine, pid, None)
        with game:
            game_figures(game_matches(client, games["Catan"][0]), games["Catan"][0])
        await player_history(client, pid, quota_share=1.0)  # read once; kept in the mirror
    for _ in range(min(runs, 3)):
        source._parsed.clear()
        with whole:
            held_matches(client)
    print(f"players sampled: {runs}, playing {', '.join(map(str, played))} matches")
    print("                                                      wall median (cpu median, wall max)")
    print(f"read the player's matches from the mirror             {read}")
    print(f"player_figures over them                              {figures}")
    print(f"  first open of a player's page in a process          {first}")
    print(f"head_to_head against everyone                         {h2h}")
    print(f"a game's matches read + game_figures                  {game}")
    print(f"(for comparison: parse all {len(held)} matches           {whole})")

    second, requests, points = Times(), [], []
    for pid in chosen:
        calls = client.calls
        with second:
            await sync_group(client)
            player_figures(player_matches(client, pid), pid)
            history = await player_history(client, pid, quota_share=1.0)
        requests.append(client.calls - calls)
        points.append(f"{history.loaded}/{history.wanted}")
    print(f"second open (sync check + figures + ree history)      {second}")
    print(f"requests made by the second opens: {requests}  (history points loaded: {', '.join(points)})")
    await client.aclose()
    mirror.close()
    store.close()


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--matches", type=int, default=10_000)
    cli.add_argument("--players", type=int, default=60)
    cli.add_argument("--runs", type=int, default=5)
    a = cli.parse_args()
    asyncio.run(main(a.matches, a.players, a.runs))
