"""What keeping the match form on disk costs a seat: one write of the draft (the form of a four-faction match
and `--queued` queued matches), as the form makes it within `DRAFT_EVERY` of each change, and one read.

    python benchmarks/bench_draft.py [--writes 500] [--queued 3]

Prints the median and 95th percentile of a write and of a read, in milliseconds, and the file's size: the
write runs on the seat's event loop, so its median is what a key may wait at most for the draft.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rankterm.tui.widgets.match_form.draft import Draft, DraftFile  # noqa: E402
from rankterm.wire.models import NewFaction, NewMatch, Weight  # noqa: E402

PLAYER = {"id": "6wcGf7EQq1x", "ghost": 0, "username": "elena", "displayName": "Elena", "icon": ""}


def form() -> dict:
    """What `MatchForm.draft()` gives for a four-faction Catan match with points."""
    return {
        "game": {"id": 1, "name": "Catan", "weight": "normal"},
        "game_text": "Catan",
        "weight": "normal",
        "name_choice": "default_1",
        "custom-name": "",
        "notes": "",
        "date": "",
        "external-id": "rt-1a2b3c4d5e6f",
        "rows": [
            {"players": [PLAYER], "text": "", "rank": str(i), "points": str(12 - i), "name": "", "bot": False}
            for i in range(1, 5)
        ],
    }


def queued(count: int) -> list[tuple[NewMatch, str]]:
    return [
        (
            NewMatch(
                game=1,
                weight=Weight.NORMAL,
                external_id=f"rt-queued-{n}",
                factions=[NewFaction(players=[f"p{i}"], rank=i, points=str(12 - i)) for i in range(1, 5)],
            ),
            f"Catan: four players (rt-queued-{n})",
        )
        for n in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=500)
    parser.add_argument("--queued", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        drafts = DraftFile(Path(folder) / "drafts" / "bench.json")
        draft = Draft(datetime.now(UTC), form(), queued(args.queued))
        writes, reads = [], []
        for _ in range(args.writes):
            start = time.perf_counter()
            drafts.save(draft)
            writes.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert drafts.read() is not None
            reads.append(time.perf_counter() - start)
        size = drafts.path.stat().st_size

    def ms(values: list[float]) -> str:
        p95 = statistics.quantiles(values, n=20)[-1]
        return f"median {statistics.median(values) * 1000:.3f} ms, p95 {p95 * 1000:.3f} ms"

    print(f"draft of a 4-faction form and {args.queued} queued matches: the drafts file is {size} bytes")
    print(f"write ({args.writes}x): {ms(writes)}")
    print(f"read  ({args.writes}x): {ms(reads)}")


if __name__ == "__main__":
    main()
