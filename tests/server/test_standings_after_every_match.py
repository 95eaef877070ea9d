"""The standings after every match, as `rankings.standings_page` reads them, equal the history read plainly.

The reading is quick by shortcuts (schema v3): a player who has not played since match n stands as
``rating_current`` says, the others as the history after the last snapshot or that snapshot say; positions
before the match are counted, not sorted again; the activity count walks a player's previous matches and
stops early. Here every one of those answers is
checked, after every match of the main subset and of a game's, on both engines, against the plainest
reading of ``rating_history`` (each player's latest row up to n, sorted; the matches in the window counted
one by one) — with match dates that come out of order, very active players (more than `RECENT_CAP` matches
in the window), a game's bot, and more players than one page holds.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from rankterm.server import rankings, snapshots
from rankterm.server.rankings import RECENT_CAP, STATUS_WINDOW_DAYS
from rankterm.server.store import Store
from rankterm.server.wire import PAGE_SIZE, format_time, parse_time
from rankterm.wire import rating

PLAYERS = 30  # more than one page
MATCHES = 60


def _season(store: Store) -> tuple[int, list[str], int]:
    group = store.create_group("Every match")
    people = [store.create_player(group, f"Player {i:02d}").id for i in range(PLAYERS)]
    game = store.create_game(group, name="Azul").id
    rng = random.Random(7)
    start = datetime(2025, 3, 1, 20, 0)
    body = []
    for i in range(MATCHES):
        # Two regulars play almost every match (far more than RECENT_CAP in 30 days); dates mostly rise,
        # one match in five is dated days before the previous ones.
        size = rng.randint(2, 4)
        chosen = people[:2] + rng.sample(people[2:], size - 2) if i % 3 else rng.sample(people, size)
        day = start + timedelta(hours=10 * i - (24 * rng.randint(3, 20) if i % 5 == 4 else 0))
        factions = [{"players": [pid], "rank": r + 1, "points": str(10 - r)} for r, pid in enumerate(chosen)]
        if i % 11 == 0:
            factions.append({"bot": True, "rank": 1, "points": "12"})
        body.append(
            {
                "game": game,
                "weight": "normal",
                "date": day.strftime("%Y-%m-%d %H:%M:%S"),
                "factions": factions,
            }
        )
    answer = store.add_matches(group, body)
    assert answer.accepted_count == MATCHES
    return group, people, game


def _expected(
    history: list[tuple], names: dict[str, str], n: int, participants: set[str], reference: str
) -> list[tuple]:
    """The standings after match n from the subset's history rows, the plain way (one page of everything)."""

    def standing_at(number: int) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for row in history:  # by number
            if row[1] <= number and not row[0].startswith(rankings.BOT_PREFIX):
                out[row[0]] = row
        return out

    def order(standing: dict[str, tuple]) -> list[str]:
        return sorted(standing, key=lambda p: (-standing[p][3], -standing[p][5], names[p].casefold(), p))

    after = standing_at(n)
    before_rows = standing_at(n - 1)
    before = {
        p: (before_rows[p] if p in participants else after[p])
        for p in after
        if p in before_rows or p not in participants
    }
    ranked, was = order(after), {p: i for i, p in enumerate(order(before), start=1)}
    since = format_time(parse_time(reference) - STATUS_WINDOW_DAYS * 86400)
    rows = []
    for position, pid in enumerate(ranked, start=1):
        _, _, _, ree, best, played, last = after[pid]
        dated = [r[2] for r in history if r[0] == pid and r[1] <= n and since <= r[2] <= reference]
        days = max(0.0, (parse_time(reference) - parse_time(last)) / 86400)
        old = before.get(pid)
        rows.append(
            (
                pid,
                ree,
                round(ree - (old[3] if old else rankings.NEWCOMER_REE), 2),
                position,
                was[pid] - position if pid in was else 0,
                rating.belt_for(best, played)[0],
                rating.title_for(position, len(ranked))[0],
                rating.status_for(min(len(dated), RECENT_CAP), days)[0],
            )
        )
    return rows


def _shown(rows: list) -> list[tuple]:
    return [
        (r.player.id, r.ree, r.delta_ree, r.position, r.delta_position, r.belt, r.title, r.status)
        for r in rows
    ]


def test_standings_after_every_match_equal_the_history_read_plainly(store, monkeypatch):
    # A snapshot after every 7th match of a subset (256 in the service), so that standings come from
    # snapshots, from the history after them and from the current rows.
    monkeypatch.setattr(rankings, "SNAPSHOT_EVERY", 7)
    group, people, game = _season(store)
    names = {p.id: p.display_name for page in (1, 2) for p in store.players_page(group, page).data}
    with store._read() as conn:
        subsets = {
            key: sid for sid, key in conn.execute("SELECT id, key FROM subsets WHERE group_id = ?", (group,))
        }
        assert set(subsets) == {"main", f"g{game}"}
        for sid in subsets.values():
            history = [
                tuple(r)
                for r in conn.execute(
                    "SELECT player, number, match_date, ree, best_ree, played, last_date FROM rating_history"
                    " WHERE subset_id = ? ORDER BY number, player",
                    (sid,),
                )
            ]
            numbers = sorted({r[1] for r in history})
            assert len(numbers) == MATCHES
            walked_far = 0
            cache = snapshots.SnapshotCache()  # one, as a store keeps it: snapshots read at their second ask
            for n in numbers:
                participants = {r[0] for r in history if r[1] == n}
                date = next(r[2] for r in history if r[1] == n)
                later = [format_time(parse_time(date) + 5 * 86400)] if n % 3 == 0 else []
                for reference in (date, *later):
                    expected = _expected(history, names, n, participants, reference)
                    total, got = rankings.standings_page(conn, sid, n, reference, cache=cache)
                    assert total == len(expected) and _shown(got) == expected, (n, reference)
                    if n % 4 == 0:
                        _, second = rankings.standings_page(conn, sid, n, reference, PAGE_SIZE, PAGE_SIZE)
                        assert _shown(second) == expected[PAGE_SIZE : 2 * PAGE_SIZE]
                    walked_far += sum(1 for e in expected if e[7] == "very_active")
            assert walked_far, "no player reached the cap of the activity count"
            snapshot_count = conn.execute(
                "SELECT count(DISTINCT at_number) FROM rating_snapshot WHERE subset_id = ?", (sid,)
            ).fetchone()[0]
            assert snapshot_count == MATCHES // 7
    assert len(names) == PLAYERS and all(p in names for p in people)
