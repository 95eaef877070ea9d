"""One outbox file, four seats in four real processes, one real service on a socket: every pending entry is
sent once, by one of them, and every seat reads the same counts as the file.

The seats (tests/outbox/seat_process.py) are started together and wait for one signal, so their sends meet
at the service. Without the cross-process send lock (rankterm/outbox/lock.py) two of them find the same
entries pending: the service keeps each match once, but the late sender is told M003 on its first try and
marks it rejected, and the ghost is made more than once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import Outbox, OutboxSender, State
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.live import end_process, serve_in_thread

SEAT = Path(__file__).with_name("seat_process.py")
SEATS = 4
MATCHES = 60
GHOST_NAME = "Newbie"


def unlimited() -> QuotaLimits:
    big = 10**9
    return QuotaLimits(
        calls_per_year=big,
        calls_per_hour=big,
        matches_per_year=big,
        matches_per_day=big,
        matches_per_hour=big,
    )


def duel(game: int, winner: str, loser: str) -> NewMatch:
    return NewMatch(
        game=game,
        weight="normal",
        factions=[NewFaction(players=[winner], rank=1), NewFaction(players=[loser], rank=2)],
    )


def fill(box: Outbox, players: list[str], game: int) -> None:
    """60 matches with a ghost queued among them; the matches after the ghost name it."""
    for i in range(MATCHES // 2):
        box.add(duel(game, players[i % 3], players[(i + 1) % 3]))
    ghost = box.add_ghost(GHOST_NAME, known=[])
    for i in range(MATCHES // 2):
        box.add(duel(game, ghost.local_id, players[i % 3]))


def test_four_processes_over_one_outbox_send_each_entry_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "service.db")
    group = store.create_group("Table")
    key, secret = store.create_client(group)
    players = [str(store.create_player(group, f"P{i}").id) for i in range(3)]
    game = store.create_game(group, name="Catan").id
    go = tmp_path / "go"
    with serve_in_thread(create_app(store, limits=unlimited())) as url:
        outbox_path = tmp_path / "outbox.db"
        box = Outbox(outbox_path, scope=url + key)
        fill(box, players, game)
        box.close()
        seats = [
            subprocess.Popen(
                [sys.executable, str(SEAT), str(outbox_path), url, key, secret, str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(SEATS)
        ]
        try:
            time.sleep(2.0)  # every seat is connected and waiting for the signal
            go.touch()
            said = []
            for seat in seats:
                out, err = seat.communicate(timeout=60)
                assert seat.returncode == 0, err[-2000:]
                said.append(json.loads(out.strip().splitlines()[-1]))
        finally:
            for seat in seats:
                if seat.poll() is None:
                    end_process(seat)

    box = Outbox(outbox_path, scope=url + key)
    in_file = {state.value: n for state, n in box.counts().items()}
    box.close()
    recorded = [m.external_id for p in range(1, 100) for m in store.matches_page(group, None, p).data]
    ghosts = [p for p in store.players_page(group, 1).data if p.display_name == f"*{GHOST_NAME}"]

    assert sum(s["rejected"] for s in said) == 0, said
    assert in_file == {State.PENDING: 0, State.SENT: MATCHES + 1, State.REJECTED: 0}
    assert len(recorded) == MATCHES and len(set(recorded)) == MATCHES  # each match once
    assert len(ghosts) == 1, [p.id for p in ghosts]
    assert sum(s["sent"] for s in said) == MATCHES  # each settled by one seat
    assert all(s["counts"] == in_file for s in said), said


@pytest.fixture
def table(tmp_path: Path) -> tuple[Store, int, RankingClient, list[str], int]:
    store = Store(tmp_path / "service.db")
    group = store.create_group("Table")
    key, secret = store.create_client(group)
    players = [str(store.create_player(group, f"P{i}").id) for i in range(2)]
    game = store.create_game(group, name="Catan").id
    client = RankingClient.in_process(create_app(store, limits=unlimited()), key=key, secret=secret)
    return store, group, client, players, game


async def test_m003_on_a_first_try_of_an_id_the_outbox_made_asks_the_service_and_settles_as_sent(
    tmp_path: Path, table: tuple[Store, int, RankingClient, list[str], int]
) -> None:
    store, group, client, players, game = table
    other_seat = Outbox(tmp_path / "other.db", client.scope)  # a process that sent it, not seen by this file
    box = Outbox(tmp_path / "outbox.db", client.scope)
    entry = box.add(duel(game, *players))
    other_seat.add(entry.match)
    await OutboxSender(other_seat, client).send_pending()
    assert store.match_status(group).total == 1

    report = await OutboxSender(box, client).send_pending()
    assert report.rejected == 0 and report.sent == 1
    assert box.get(entry.external_id).state is State.SENT
    assert store.match_status(group).total == 1
    await client.aclose()


async def test_m003_on_a_first_try_of_a_typed_id_is_another_match_holding_it(
    tmp_path: Path, table: tuple[Store, int, RankingClient, list[str], int]
) -> None:
    _, _, client, players, game = table
    await client.add_matches(duel(game, *players).model_copy(update={"external_id": "night-1"}))
    box = Outbox(tmp_path / "outbox.db", client.scope)
    box.add(duel(game, *reversed(players)).model_copy(update={"external_id": "night-1"}))
    report = await OutboxSender(box, client).send_pending()
    assert report.rejected == 1 and box.get("night-1").outcome().has_code("M003")
    await client.aclose()
