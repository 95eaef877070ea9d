"""All pages of a subset's latest standings through the client, over a real socket through the delay proxy:
the rows, in order, equal those the service works out page by page with no order kept; a second reading (its
pages sliced from the order the service keeps) equals the first; a match recorded between two readings is
in the second."""

from __future__ import annotations

import random
from pathlib import Path

import httpx

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.clock import SettableClock
from tests.support.delay_proxy import DelayProxy
from tests.support.live import UvicornThread

KEY, SECRET = "rankings-key", "rankings-secret"
PLAYERS = 25 * 6 + 3


def _season(store: Store) -> tuple[int, str, int]:
    """A group where every one of PLAYERS played a game at least once, in matches of four."""
    group = store.create_group("Standings")
    store.create_client(group, key=KEY, secret=SECRET)
    people = [store.create_player(group, f"Player {i:03d}").id for i in range(PLAYERS)]
    game = store.create_game(group, name="Azul").id
    rng = random.Random(35)
    seats = people + rng.sample(people, 4 - PLAYERS % 4)
    body = []
    for i in range(0, len(seats), 4):
        order = rng.sample(range(1, 5), 4)
        body.append(
            NewMatch(
                game=game,
                weight="normal",
                date=f"2025-03-{1 + i // 40:02d} 20:{i % 40:02d}:00",
                factions=[
                    NewFaction(players=[p], rank=r) for p, r in zip(seats[i : i + 4], order, strict=True)
                ],
            ).to_wire()
        )
    assert store.add_matches(group, body).accepted_count == len(body)
    subset = next(s.id for s in store.subsets(group) if s.name == "Azul")
    return group, subset, game


def _worked_out(store: Store, group: int, subset: str) -> list[dict]:
    """Every row, each page worked out by the database (no order kept when it is asked)."""
    rows: list[dict] = []
    n, total = 1, 1
    while n <= total:
        store.latest_orders.clear()
        page = store.rankings_page(group, subset, None, n)
        rows += [r.to_wire() for r in page.data]
        n, total = n + 1, page.total_pages
    return rows


async def test_the_latest_standings_paged_through_the_client_equal_those_worked_out_page_by_page(
    tmp_path: Path,
):
    clock = SettableClock()
    store = Store(tmp_path / "service.db", clock=clock)
    group, subset, game = _season(store)
    server = UvicornThread(create_app(store, clock=clock))
    server.start()
    try:
        async with DelayProxy(server.port, delay=0.005) as proxy:
            http = httpx.AsyncClient()
            client = RankingClient(
                f"http://127.0.0.1:{proxy.port}/", key=KEY, secret=SECRET, http=http, clock=clock
            )
            first = [r.to_wire() for r in await Group(client).all_rankings(subset=subset)]
            again = [r.to_wire() for r in await Group(client).all_rankings(subset=subset)]
            last, next_to_last = first[-1]["player"]["id"], first[-2]["player"]["id"]
            match = NewMatch(
                game=int(game),
                weight="heavy",
                date="2025-03-20 20:00:00",
                factions=[NewFaction(players=[last], rank=1), NewFaction(players=[next_to_last], rank=2)],
            )
            await client.add_matches([match, match, match])
            after = [r.to_wire() for r in await Group(client).all_rankings(subset=subset)]
            window = client.last_window
            await http.aclose()
        expected_after = _worked_out(store, group, subset)
    finally:
        server.stop()
        store.close()
    assert len(first) == PLAYERS
    assert again == first
    assert after != first and after == expected_after
    assert [r["position"] for r in after] == list(range(1, PLAYERS + 1))
    assert window is not None and window.most_in_flight > 1  # the pages were asked side by side
