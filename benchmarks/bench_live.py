"""What live seats cost: the probe's calls per hour (and bytes on the wire), and the bytes a seat writes to its
terminal per idle minute.

    python benchmarks/bench_live.py [--probes 200] [--idle 60] [--keys r]

1. Calls: a headless `RanktermApp` on the demo group (in-process, the service counting every request and the
   bytes of its answers) sits on the rankings (then the players screen) and lets its probe run `--probes` times
   as fast as it can. Requests per probe (the probe's one call, plus the quota and subsets reads every 24th
   probe) times the probes of an hour: 720 at 5 s (someone at the keys), 60 at 60 s (quiet for 10 minutes).
2. Terminal: `rankterm --profile room` runs under a pseudo-terminal (80x24) on the demo group served on a real
   socket (127.0.0.1), with the default interval (5 s). It opens the screen of each key in `--keys` (r:
   rankings, d: service, m: matches, p: players), waits for its paint to end, then counts every byte it
   writes during `--idle` seconds (target: 0) and the probes the service received meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rankterm.client.client import RankingClient  # noqa: E402
from rankterm.config import Config  # noqa: E402
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app  # noqa: E402
from rankterm.tui.live import ACTIVE_EVERY, IDLE_EVERY  # noqa: E402
from tests.support.live import UvicornThread  # noqa: E402
from tests.support.terminal import PtySeat, room_env  # noqa: E402


class Counting:
    """An ASGI app that counts requests by path and the bytes of the answers' bodies."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.paths: Counter[str] = Counter()
        self.body_bytes = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        self.paths[scope.get("path", "")] += 1

        async def counting_send(message: Any) -> None:
            if message.get("type") == "http.response.body":
                self.body_bytes += len(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, counting_send)


# ---------------------------------------------------------------------- 1. calls per hour


def probe_costs(probes: int, key: str) -> tuple[float, float, Counter[str]]:
    """(requests per probe, answer bytes per probe, requests by path) on the screen of `key`."""
    os.environ["RANKTERM_LIVE_EVERY"] = "0.001"
    from rankterm.tui.app import RanktermApp

    asgi, _, _ = demo_app()
    counting = Counting(asgi)
    client = RankingClient.in_process(counting, key=DEMO_KEY, secret=DEMO_SECRET)
    app = RanktermApp(config=Config(), client=client, demo=True)
    result: dict[str, Any] = {}

    async def drive(pilot: Any) -> None:
        await pilot.press(key)
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        start_probes, start_paths, start_bytes = app.live.probes, Counter(counting.paths), counting.body_bytes
        while app.live.probes < start_probes + probes:
            await asyncio.sleep(0.01)
        app.live.stop()
        await app.workers.wait_for_complete()
        made = app.live.probes - start_probes
        asked = counting.paths - start_paths
        asked.pop("/auth", None)  # a token renewal is not metered
        result.update(
            per_probe=sum(asked.values()) / made,
            bytes_per_probe=(counting.body_bytes - start_bytes) / made,
            paths=asked,
        )
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=drive)
    return result["per_probe"], result["bytes_per_probe"], result["paths"]


# ---------------------------------------------------------------------- 2. bytes per idle minute


def idle_terminal_bytes(url: str, counting: Counting, key: str, idle: float, tmp: Path) -> tuple[int, int]:
    """(bytes written during `idle` quiet seconds on the screen of `key`, probes the service got meanwhile)."""
    seat = PtySeat(["--profile", "room"], room_env(tmp, url, DEMO_KEY, DEMO_SECRET, PYTHONPATH=str(ROOT)))
    try:
        seat.settle(quiet=1.5, limit=30)
        seat.press(key.encode())
        seat.settle(quiet=1.5, limit=30)
        probes = counting.paths["/matches/status"] + counting.paths["/players/1"]
        during = seat.read(idle)
        probes = counting.paths["/matches/status"] + counting.paths["/players/1"] - probes
    finally:
        seat.close()
    return len(during), probes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--keys", default="r", help="screens to idle on (r rankings, d service, m, p)")
    args = parser.parse_args()

    print(f"the probe's cost, over {args.probes} probes (headless, in-process demo group):")
    for key, screen in (("r", "rankings"), ("p", "players")):
        per_probe, answer_bytes, paths = probe_costs(args.probes, key)
        asked = ", ".join(f"{path} {n}" for path, n in paths.most_common())
        print(f"  on the {screen}: {per_probe:.3f} calls per probe ({asked})")
        for label, every in (("someone at the keys", ACTIVE_EVERY), ("quiet > 10 min", IDLE_EVERY)):
            per_hour = 3600 / every
            print(
                f"    {label:<20} every {every:>4.0f} s: {per_hour * per_probe:6.0f} calls per hour, "
                f"{per_hour * answer_bytes / 1024:7.1f} KiB of answers per hour"
            )

    asgi, _, _ = demo_app()
    counting = Counting(asgi)
    server = UvicornThread(counting)
    port = server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for key in args.keys:
                written, probes = idle_terminal_bytes(
                    f"http://127.0.0.1:{port}/", counting, key, args.idle, Path(tmp) / key
                )
                per_minute = written * 60 / args.idle
                print(
                    f"terminal, `rankterm --profile room` under a pty (80x24) on a real socket, key {key!r}: "
                    f"{written} bytes in {args.idle:g} idle s ({per_minute:.0f} bytes per idle minute; target 0) "
                    f"while the service got {probes} probes"
                )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
