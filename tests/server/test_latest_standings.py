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
