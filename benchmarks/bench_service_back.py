"""How long after the service answers again a seat's outbox is empty.

    python benchmarks/bench_service_back.py [--away 60] [--screen match] [--runs 1]

A real `rankterm serve --demo` runs on 127.0.0.1 (its own database in a temporary folder). A headless seat
(`RanktermApp` as `rankterm --profile` builds it: token cache, mirror and outbox on disk, 80x24) reads the
group, opens `--screen` (match: the new match form, where the live probe rests; home, service, rankings, ...),
then the service is stopped (SIGTERM), the seat records a Catan match (kept in its outbox), and the service
stays away `--away` seconds: long enough for the outbox's retry delays to grow. The service is started again
on the same database and port; the figure is the time from the moment its port accepts a connection until the
seat's outbox holds nothing pending.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET  # noqa: E402
from rankterm.wire.models import NewFaction, NewMatch, Weight  # noqa: E402

KEYS = {"match": "n", "service": "d", "rankings": "r", "matches": "m", "players": "p", "board": "b"}
LIMIT = 600.0
"""Seconds a run waits for the outbox at most."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(db: Path, port: int) -> subprocess.Popen:
    """`rankterm serve --demo` on `db`, listening on 127.0.0.1:`port` once this returns."""
    rankterm = Path(sys.executable).with_name("rankterm")
    process = subprocess.Popen(
        [str(rankterm), "serve", "--demo", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            time.sleep(0.02)
    process.terminate()
    raise RuntimeError(f"`rankterm serve` did not listen on 127.0.0.1:{port}")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(10)


async def one_run(tmp: Path, away: float, screen: str) -> float:
    """Seconds from the service listening again to the seat's outbox holding nothing pending."""
    from rankterm.cli import make_outbox
    from rankterm.client.auth import TokenCache
    from rankterm.client.client import RankingClient
    from rankterm.config import Config, mirror_path, token_cache_path
    from rankterm.mirror import Group, Mirror
    from rankterm.tui.app import RanktermApp

    db, port = tmp / "service.db", free_port()
    base_url = f"http://127.0.0.1:{port}/"
    service = serve(db, port)
    client = RankingClient(
        base_url, key=DEMO_KEY, secret=DEMO_SECRET, token_cache=TokenCache(token_cache_path())
    )
    group = Group(client, Mirror(mirror_path(base_url, DEMO_KEY), client.scope))
    app = RanktermApp(config=Config(), client=group, outbox_factory=make_outbox)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            players = {p.display_name: p.id for p in await group.players()}
            catan = next(g.id for g in await group.games() if g.name == "Catan")
            await pilot.press(KEYS[screen])
            await pilot.pause(1.0)
            stop(service)
            match = NewMatch(
                game=catan,
                weight=Weight.NORMAL,
                factions=[
                    NewFaction(players=[players["Ada"]], rank=1),
                    NewFaction(players=[players["Ben"]], rank=2),
                ],
            )
            outcome = await app.record_matches([match])
            assert outcome[0].waiting, outcome
            await asyncio.sleep(away)
            service = serve(db, port)
            back = time.monotonic()
            while app.outbox_counts.get("pending") and time.monotonic() - back < LIMIT:
                await asyncio.sleep(0.05)
            took = time.monotonic() - back
            if app.outbox_counts.get("pending"):
                raise RuntimeError(
                    f"the outbox still holds a match {LIMIT:.0f} s after the service came back"
                )
            return took
    finally:
        if service.poll() is None:
            stop(service)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--away", type=float, default=60.0, help="seconds the service is stopped")
    parser.add_argument("--screen", default="match", choices=sorted(KEYS))
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    figures = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as folder:
            tmp = Path(folder)
            os.environ["RANKTERM_CONFIG"] = str(tmp / "config" / "config.toml")
            os.environ["RANKTERM_CACHE_DIR"] = str(tmp / "cache")
            os.environ["RANKTERM_DATA_DIR"] = str(tmp / "data")
            figures.append(asyncio.run(one_run(tmp, args.away, args.screen)))
    said = ", ".join(f"{f:.1f}" for f in figures)
    print(f"service away {args.away:.0f} s, seat on {args.screen}: outbox empty {said} s after it answered")


if __name__ == "__main__":
    main()
