"""The sending process of the soak test: drains an outbox into a service through injected faults.

Run as a separate process so the test can kill it (SIGKILL) in the middle and start it again:
    python soak_sender.py OUTBOX URL KEY SECRET SEED
Prints one line per round; exits 0 when nothing is pending.
"""

from __future__ import annotations

import asyncio
import sys

import httpx

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import Outbox, OutboxSender, State
from tests.support.faults import FaultyTransport


async def nap(_seconds: float) -> None:
    await asyncio.sleep(0.01)


async def main(outbox_path: str, url: str, key: str, secret: str, seed: int) -> int:
    box = Outbox(outbox_path, scope=url + key)
    transport = FaultyTransport(httpx.AsyncHTTPTransport(), rate=0.25, seed=seed, slow_seconds=0.05)
    http = httpx.AsyncClient(transport=transport, timeout=5.0)
    client = RankingClient(url, key=key, secret=secret, http=http, backoff=0.01, retries=1)
    sender = OutboxSender(box, client, sleep=nap, backoff=0.01, max_backoff=0.05)
    for round_no in range(1000):
        report = await sender.send_pending(force=True)
        counts = box.counts()
        print(
            f"round {round_no} sent={report.sent} pending={counts[State.PENDING]} faults={dict(transport.injected)}",
            flush=True,
        )
        if counts[State.PENDING] == 0:
            await http.aclose()
            return 0
    return 1


if __name__ == "__main__":
    out_path, base, k, s, sd = sys.argv[1:6]
    raise SystemExit(asyncio.run(main(out_path, base, k, s, int(sd))))
