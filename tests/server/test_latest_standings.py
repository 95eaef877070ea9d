"""The standings after a subset's latest match are read from ``rating_current`` alone (`rankings._LATEST`):
the same page, participants, count and positions above any key as the statement that starts from the
snapshot before the match and reads the history since (`_FROM_BELOW`), on both engines."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from rankterm.server import rankings
from rankterm.server.snapshots import position_key
from rankterm.server.store import Store

PLAYERS = 60  # more than two pages
MATCHES = 300  # past a snapshot (every 256 matches of a subset): history since it to read


def _season(store: Store) -> tuple[int, int]:
    """A group of PLAYERS where MATCHES of one game were played (ties, a bot now and then, dates out of
    order); returns (group, the game's subset row id)."""
    group = store.create_group("Latest")
    people = [store.create_player(group, f"P{i % 7} {i:02d}").id for i in range(PLAYERS)]
    game = store.create_game(group, name="Azul").id
    rng = random.Random(35)
    start = datetime(2025, 3, 1, 20, 0)
    body = []
    for i in range(MATCHES):
        chosen = rng.sample(people, rng.randint(2, 4))
        factions = [
            {"players": [p], "rank": 1 + r // 2 if i % 9 == 0 else 1 + r} for r, p in enumerate(chosen)
        ]
        if i % 13 == 0:
            factions.append({"bot": True, "rank": 1})
        day = start + timedelta(hours=6 * i - (72 if i % 10 == 9 else 0))
        body.append(
            {
                "game": game,
                "weight": "normal",
                "date": day.strftime("%Y-%m-%d %H:%M:%S"),
                "factions": factions,
            }
        )
    for k in range(0, MATCHES, 100):
        assert store.add_matches(group, body[k : k + 100]).accepted_count == len(body[k : k + 100])
    with store._read() as conn:
        subset = conn.execute(
            "SELECT id FROM subsets WHERE group_id = ? AND type != 'main'", (group,)
        ).fetchone()[0]
    return group, subset


def test_the_latest_standings_read_alone_equal_those_read_from_the_snapshot_before(store: Store) -> None:
    _, subset = _season(store)
    with store._read() as conn:
        n = conn.execute("SELECT max(number) FROM subset_matches WHERE subset_id = ?", (subset,)).fetchone()[
            0
        ]
        below = conn.execute(
            "SELECT max(at_number) FROM rating_snapshot WHERE subset_id = ? AND at_number <= ?", (subset, n)
        ).fetchone()[0]
        assert below is not None and below < n  # the general statement has history to read
        for offset in range(0, PLAYERS + 25, 25):
            general = rankings._from_statement(conn, subset, n, below, offset, 25)
            latest = rankings._from_statement(conn, subset, n, below, offset, 25, latest=True)
            assert latest[:3] == general[:3]
            assert latest[0] == PLAYERS
            if not latest[1]:
                continue  # past the last page: nothing to place (`standings_page` asks no more)
            # positions above keys in, before and after the page, and between two players' keys
            rows = [
                r
                for r in conn.execute(
                    "SELECT ree, played, sort_key, player FROM rating_current"
                    " WHERE subset_id = ? AND bot = 0",
                    (subset,),
                )
            ]
            for ree, played, name, pid in rng_keys(rows):
                key = position_key(ree, played, name, pid)
                assert latest[3](key) == general[3](key)


def rng_keys(rows: list[tuple]) -> list[tuple]:
    """Every player's (ree, played, name, id), and for each one just above and below it."""
    out = []
    for ree, played, name, pid in rows:
        out += [(ree, played, name, pid), (ree + 0.001, played, name, pid), (ree, played, name, pid + "~")]
    return out


def _pages(store: Store, group: int, subset_key: str) -> list[list[dict]]:
    first = store.rankings_page(group, subset_key, None, 1)
    pages = [first] + [
        store.rankings_page(group, subset_key, None, n) for n in range(2, first.total_pages + 1)
    ]
    return [[row.to_wire() for row in page.data] for page in pages]


def _subset_key(store: Store, subset: int) -> str:
    with store._read() as conn:
        return conn.execute("SELECT key FROM subsets WHERE id = ?", (subset,)).fetchone()[0]


def _kept(store: Store, subset: int) -> bool:
    with store._read() as conn:
        n = conn.execute("SELECT max(number) FROM subset_matches WHERE subset_id = ?", (subset,)).fetchone()[
            0
        ]
        version = conn.execute("SELECT history_version FROM subsets WHERE id = ?", (subset,)).fetchone()[0]
    return (subset, n, version) in store.latest_orders


def test_pages_read_again_come_from_the_kept_order_and_equal_the_first_reading(store: Store) -> None:
    group, subset = _season(store)
    key = _subset_key(store, subset)
    first = _pages(store, group, key)  # page 1 asks (the statement), page 2 reads the order
    assert _kept(store, subset)
    again = _pages(store, group, key)  # every page from the order
    assert again == first
    store.latest_orders.clear()
    assert _pages(store, group, key) == first
    assert [len(p) for p in first] == [25, 25, 10]


def test_a_kept_order_that_no_longer_holds_is_never_served(store: Store) -> None:
    group, subset = _season(store)
    key = _subset_key(store, subset)
    _pages(store, group, key)
    assert _kept(store, subset)
    with store._write() as conn:  # a change of the standings behind the key's back (no new match, no version)
        low = conn.execute(
            "SELECT player FROM rating_current WHERE subset_id = ? AND bot = 0 ORDER BY ree LIMIT 1",
            (subset,),
        ).fetchone()[0]
        conn.execute(
            "UPDATE rating_current SET ree = ree + 1000 WHERE subset_id = ? AND player = ?", (subset, low)
        )
    changed = _pages(store, group, key)
    assert changed[0][0]["player"]["id"] == low
    store.latest_orders.clear()
    assert _pages(store, group, key) == changed  # the same as read with nothing kept


def test_a_new_match_is_in_the_pages_read_after_it(store: Store) -> None:
    group, subset = _season(store)
    key = _subset_key(store, subset)
    before = _pages(store, group, key)
    with store._read() as conn:
        game = conn.execute("SELECT game_id FROM subsets WHERE id = ?", (subset,)).fetchone()[0]
    last = before[-1][-1]["player"]["id"]
    second = before[-1][-2]["player"]["id"]
    body = {
        "game": game,
        "weight": "heavy",
        "date": "2026-01-01 20:00:00",
        "factions": [{"players": [last], "rank": 1}, {"players": [second], "rank": 2}],
    }
    for _ in range(3):
        assert store.add_matches(group, [body]).accepted_count == 1
    after = _pages(store, group, key)
    assert after != before
    store.latest_orders.clear()
    assert _pages(store, group, key) == after
