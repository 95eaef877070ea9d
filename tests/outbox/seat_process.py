"""One seat's sending process for the shared-outbox test: opens the outbox file, waits for the start signal
(a file appearing) so that every seat starts at once, sends what is pending, and prints one JSON line: what
its send did and the counts it reads.

    python seat_process.py OUTBOX URL KEY SECRET GO_FILE
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import Outbox, OutboxSender


async def nap(_seconds: float) -> None:
    await asyncio.sleep(0.01)


async def main(outbox_path: str, url: str, key: str, secret: str, go: str) -> int:
    box = Outbox(outbox_path, scope=url + key)
    client = RankingClient(url, key=key, secret=secret, batch_size=3)
    sender = OutboxSender(box, client, sleep=nap, backoff=0.01, max_backoff=0.05)
    await client.test()  # connected before the start: the sends meet at the service
    deadline = time.monotonic() + 30
    while not Path(go).exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.002)
    report = await sender.send_pending()
    counts = {state.value: n for state, n in box.counts().items()}
    print(
        json.dumps(
            {
                "sent": report.sent,
                "rejected": report.rejected,
                "ghosts": len(report.ghosts),
                "stopped": str(report.stopped or ""),
                "counts": counts,
            }
        )
    )
    await client.aclose()
    box.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(*sys.argv[1:6])))
