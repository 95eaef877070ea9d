"""Two seats on one service over a real socket: seat A records a match, seat B (sitting on the rankings) shows it
on its own, and B writes nothing to its terminal while nothing changes.

The service is the embedded demo group served by uvicorn on 127.0.0.1 (port 0), as the other e2e tests serve
it, on the real clock (seat B is another process, whose token must be valid by its own clock).

- Seat B is the real `rankterm --profile room` process under a pseudo-terminal (80x24), with live updates
  every half second (`RANKTERM_LIVE_EVERY=0.5`): what it writes is counted byte for byte as a terminal
  receives it, which is the figure that matters over SSH; Textual's headless driver writes nothing, so it
  could not be measured in-process.
- Seat A is a `RanktermApp` in this process (headless), on its own `RankingClient` to the same URL, that
  records a match through its outbox as the form does (`record_matches`).

The idle check counts B's bytes for 10 s after its screen has settled (the issue's window): about twenty
probes at 0.5 s, ten times the two that 10 s at the default 5 s make (benchmarks/bench_live.py measures a
whole idle minute at the default interval).
The service counts what B asks meanwhile, so the test knows the probes did run during the silence.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rankterm.client.client import RankingClient
from rankterm.config import Config
from rankterm.mirror import Group
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app
from rankterm.tui.app import RanktermApp
from rankterm.wire.models import NewFaction, NewMatch, Weight
from tests.support.live import UvicornThread
from tests.support.terminal import PtySeat, room_env

ROOT = Path(__file__).resolve().parents[2]


class Counting:
    """The service's ASGI app, counting the paths asked (to know that B's probes ran)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.paths: Counter[str] = Counter()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            self.paths[scope.get("path", "")] += 1
        await self.app(scope, receive, send)


@pytest.fixture
def room() -> Iterator[tuple[str, Counting]]:
    """The demo group on a real socket: (base URL, the counting app)."""
    asgi, _, _ = demo_app()
    counting = Counting(asgi)
    server = UvicornThread(counting)
    port = server.start()
    try:
        yield f"http://127.0.0.1:{port}/", counting
    finally:
        server.stop()


def _seat_env(tmp: Path, url: str) -> dict[str, str]:
    return room_env(tmp, url, DEMO_KEY, DEMO_SECRET, RANKTERM_LIVE_EVERY="0.5", PYTHONPATH=str(ROOT))


async def _duel(group: RankingClient | Group) -> NewMatch:
    group = Group.of(group)  # a client: read through its group
    players = {p.display_name: p.id for p in await group.players()}
    catan = next(g for g in await group.games() if g.name == "Catan")
    return NewMatch(
        game=catan.id,
        weight=Weight.NORMAL,
        external_id="seat-a-1",
        factions=[NewFaction(players=[players["Ada"]], rank=1), NewFaction(players=[players["Ben"]], rank=2)],
    )


async def test_seat_b_shows_seat_as_match_on_its_own_and_writes_nothing_while_idle(
    room, tmp_path, monkeypatch
):
    url, service = room
    seat_b = PtySeat(["--profile", "room"], _seat_env(tmp_path / "b", url))
    try:
        assert seat_b.wait_for("Home", 20), seat_b.seen[-500:]
        seat_b.settle()
        seat_b.press(b"r")
        assert seat_b.wait_for("after match 300 (latest)", 10), seat_b.seen[-500:]
        seat_b.settle()

        monkeypatch.setenv("RANKTERM_LIVE_EVERY", "0")  # seat A only sends here
        seat_a = RanktermApp(
            config=Config(), client=RankingClient(url, key=DEMO_KEY, secret=DEMO_SECRET), demo=True
        )
        async with seat_a.run_test(size=(80, 24)):
            outcome = await seat_a.record_matches([await _duel(seat_a.client)])
            assert outcome.accepted_count == 1  # match 301
            # no key is pressed on B: its live probe (every 0.5 s here) alone brings the match; the limit is
            # only how long a loaded machine may take, the delay itself is not asserted
            shown = await asyncio.to_thread(seat_b.wait_for, "after match 301 (latest)", 20.0)
            assert shown, seat_b.seen[-500:]

        await asyncio.to_thread(seat_b.settle)
        probes = service.paths["/matches/status"]
        idle = await asyncio.to_thread(seat_b.read, 10.0)
        assert service.paths["/matches/status"] >= probes + 10  # B kept asking…
        assert idle == b""  # …and wrote nothing
    finally:
        seat_b.close()
