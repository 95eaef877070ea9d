"""Players tied on ree and matches played are ordered by name as Python orders the names, on both engines.

The standings are ordered inside the database (`rankings._PAGE`). PostgreSQL keeps a text holding NUL or
its escape character escaped (`pg.escape`), whose byte order is not the names' order ("a\\x00b" escaped
sorts after "ab"); `rankings._sql` orders such names as given. Here a team of such names, all new, ends
its first match tied, and a second match moves one of them through the tie: positions and their deltas
must follow ``(name casefolded, id)`` exactly.
"""

from __future__ import annotations

from rankterm.server import rankings
from rankterm.server.db.pg import MARK
from rankterm.server.store import Store

NAMES = ["a", "a\x00b", "a\x00", "a\x01", "a\x01b", "ab", f"a{MARK}", f"a{MARK}0", f"a{MARK}1", "A\x00c", "b"]


def _match(game: int, day: int, *factions: list[str]) -> dict:
    return {
        "game": game,
        "weight": "normal",
        "date": f"2025-03-{day:02d} 20:00:00",
        "factions": [
            {"players": players, "rank": rank, "points": str(10 - rank)}
            for rank, players in enumerate(factions, start=1)
        ],
    }


def test_tied_players_are_ordered_by_name_as_python_orders_names(store: Store) -> None:
    group = store.create_group("Names")
    team = [store.create_player(group, name) for name in NAMES]
    lone = store.create_player(group, "Lone").id
    game = store.create_game(group, name="Azul").id
    ids = [p.id for p in team]
    first = store.add_matches(group, [_match(game, 1, ids, [lone])])
    assert first.accepted_count == 1
    by_name = sorted(team, key=lambda p: (p.display_name.casefold(), p.id))
    # Sanity of the case: escaped for PostgreSQL, these names sort otherwise.
    escaped = sorted(team, key=lambda p: (p.display_name.casefold().replace("\x00", MARK + "0"), p.id))
    assert escaped != by_name

    page = store.rankings_page(group, None, None, 1)
    tied = [r for r in page.data if r.player.id != lone]
    assert [r.player.id for r in tied] == [p.id for p in by_name]
    assert len({(r.ree, r.position) for r in tied}) == len(tied) and len({r.ree for r in tied}) == 1
    assert [r.position for r in tied] == sorted(r.position for r in tied)
    with store._read() as conn:  # pages cut through the tie: each holds the next names
        main, number = conn.execute(
            "SELECT id, count_matches FROM subsets WHERE group_id = ? AND type = 'main'", (group,)
        ).fetchone()
        pages = [
            rankings.standings_page(conn, main, number, "2025-03-02 00:00:00", k, 3)[1]
            for k in range(0, 12, 3)
        ]
    assert [r.player.id for rows in pages for r in rows] == [r.player.id for r in page.data]

    # The fourth of the tie loses to the lone player: it leaves the tie, the others close up behind it.
    loser = by_name[3].id
    second = store.add_matches(group, [_match(game, 2, [lone], [loser])])
    assert second.accepted_count == 1
    after = store.rankings_page(group, None, None, 1).data
    before_order = [lone] + [p.id for p in by_name] if page.data[0].player.id == lone else None
    was = {r.player.id: r.position for r in page.data}
    now = {r.player.id: r.position for r in after}
    assert before_order is None or list(was) == before_order
    for row in after:
        assert row.delta_position == was[row.player.id] - now[row.player.id], row.player.display_name
    rest = [r.player.id for r in after if r.player.id not in (lone, loser)]
    assert rest == [p.id for p in by_name if p.id != loser]
