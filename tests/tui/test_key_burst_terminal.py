"""At a real terminal: a seat (the `rankterm --profile room` process on a pseudo-terminal, 80x24) on the demo
group served over a real socket gets a whole match typed in one write, as an SSH connection delivers a fast
typist's keys; the service records the match meant.

The keys go through the terminal driver's parser, not a pilot: `\\t` is Tab, `\\r` Enter, `\\x13` ctrl+s.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app
from rankterm.wire.models import MatchesPage
from tests.support.live import serve_in_thread
from tests.support.terminal import PtySeat, room_env

ROOT = Path(__file__).resolve().parents[2]
ARRIVAL = 90.0
"""Seconds the match may take to reach the service: a loaded machine's seat took more than 30 (its outbox said
"1 sent" just after), and a passing run waits only as long as the match takes."""

ONE_WRITE = b"nCat\rEl\t\t10\rAd\t\t8\r\x13"
"""`n C a t ⏎ E l Tab Tab 1 0 ⏎ A d Tab Tab 8 ⏎ ^s`: Elena 1st with 10 points, Ada 2nd with 8."""


@pytest.fixture
def served() -> Iterator[str]:
    """The demo group on 127.0.0.1 (any free port): its base URL."""
    asgi, _, _ = demo_app()
    with serve_in_thread(asgi) as base_url:
        yield base_url


async def one_write_at_a_seat(served: str, tmp_path: Path, write: bytes) -> tuple[int, MatchesPage, str]:
    """`write` given in one write to a `rankterm --profile room` seat on `served` once it shows Home:
    the number of matches before, page 1 of the matches once the service holds one more (`ARRIVAL` s at most),
    and the end of what the seat drew."""
    env = room_env(tmp_path, served, DEMO_KEY, DEMO_SECRET, RANKTERM_LIVE_EVERY="0", PYTHONPATH=str(ROOT))
    async with Group(RankingClient(served, key=DEMO_KEY, secret=DEMO_SECRET)) as reader:
        before = (await Group.of(reader).matches_page(1)).total
        seat = PtySeat(["--profile", "room"], env)
        try:
            assert await asyncio.to_thread(seat.wait_for, "Home", 30), seat.seen[-500:]
            await asyncio.to_thread(seat.settle)
            seat.press(write)
            deadline = time.monotonic() + ARRIVAL
            page = await Group.of(reader).matches_page(1)
            while page.total <= before and time.monotonic() < deadline:  # the seat reads the keys, then sends
                await asyncio.sleep(0.1)
                page = await Group.of(reader).matches_page(1)
            await asyncio.to_thread(seat.settle)
        finally:
            seat.close()
    return before, page, seat.seen[-800:] + outbox_said(tmp_path)


def outbox_said(tmp_path: Path) -> str:
    """The seat's outbox entries as its file holds them (state, attempts, errors): why a match was not sent,
    when a test fails."""
    path = tmp_path / "data" / "outbox.db"
    if not path.exists():
        return "\n(no outbox file)"
    with contextlib.closing(sqlite3.connect(path)) as db:
        rows = db.execute(
            "SELECT external_id, state, in_doubt, attempts, errors, created_at, updated_at FROM entries"
        ).fetchall()
    return "\noutbox: " + "\n".join(map(repr, rows))


async def test_a_match_typed_in_one_write_at_a_terminal_is_the_one_recorded(served, tmp_path):
    before, page, seen = await one_write_at_a_seat(served, tmp_path, ONE_WRITE)
    assert page.total == before + 1, seen
    match = page.data[0]
    assert match.game is not None and match.game.name == "Catan"
    assert [
        (f.rank, [p.display_name for p in f.players], f.points)
        for f in sorted(match.factions, key=lambda f: f.rank)
    ] == [(1, ["Elena"], 10), (2, ["Ada"], 8)]


ESCAPE_THEN_KEYS = b"nCat\rEl\rAd\r\x1bdn\x13"
"""`n C a t ⏎ E l ⏎ A d ⏎ Esc d n ^s`: Escape then `d` (the Service screen) in one write are the bytes of alt+d; `n`
comes back to the form, as it was, and ctrl+s sends it."""


async def test_escape_and_a_letter_in_one_write_leave_the_field_and_act_as_a_screen_key(served, tmp_path):
    before, page, seen = await one_write_at_a_seat(served, tmp_path, ESCAPE_THEN_KEYS)
    assert page.total == before + 1, seen  # a "dn" typed into the third faction sends nothing
    match = page.data[0]
    assert [
        (f.rank, [p.display_name for p in f.players]) for f in sorted(match.factions, key=lambda f: f.rank)
    ] == [(1, ["Elena"]), (2, ["Ada"])]
