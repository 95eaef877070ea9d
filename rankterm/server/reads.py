"""Read side of matches, subsets and rankings, built with the wire models of `rankterm.wire.models`.

Every list is read through an index: a page of matches is a range of ``subset_matches`` (newest first),
a subset's counts and the ids of its first and last match are columns of its row (those two read
whole, as a page of matches reads its own), and the standings come from
`rankings.standings_page` (from a snapshot kept in Python, or one statement that orders them inside
the database; never a scan of the history).

Functions take an open `Conn`; the caller (`Store`) holds the lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import TypeAdapter

from rankterm.server import games, rankings, snapshots
from rankterm.server.db import Conn
from rankterm.server.latest_order import LatestOrders
from rankterm.server.matches import MAIN_SUBSET
from rankterm.server.players import load_players
from rankterm.server.wire import PAGE_SIZE, Fault, page_bounds, total_pages
from rankterm.wire.fields import Number
from rankterm.wire.models import WEIGHTS, Faction, Game, Match, MatchesPage, RankingsPage, Subset, Weight

_MATCH_COLUMNS = (
    "id, external_id, date, registration_date, number, summary, type, draw, weight, game_id, notes, name"
)


_points = TypeAdapter(Number).validate_python
"""A faction's points as the wire reads them: the column keeps the text sent (``"10"``, ``""``)."""


def load_matches(conn: Conn, match_ids: Sequence[int]) -> list[Match]:
    """The matches with these row ids, in the order given.

    Built with `WireModel.trusted` from the store's own columns, every field given in order and of its type
    (the points read as the wire reads them): a page of matches and a subset's two ends cost no validation.
    """
    if not match_ids:
        return []
    marks = ",".join("?" * len(match_ids))
    rows = {
        r[0]: r
        for r in conn.execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id IN ({marks})", match_ids)
    }
    factions: dict[int, list[tuple]] = {}
    for r in conn.execute(
        f"SELECT match_id, idx, rank, name, points, bot FROM factions WHERE match_id IN ({marks})"
        " ORDER BY match_id, rank, idx",
        match_ids,
    ):
        factions.setdefault(r[0], []).append(r[1:])
    members: dict[tuple[int, int], list[str]] = {}
    for r in conn.execute(
        f"SELECT match_id, idx, player_id FROM faction_players WHERE match_id IN ({marks})"
        " ORDER BY match_id, idx, pos",
        match_ids,
    ):
        members.setdefault((r[0], r[1]), []).append(r[2])
    people = load_players(conn, (pid for ids in members.values() for pid in ids))
    game_cache: dict[int, Game] = {}
    out = []
    for mid in match_ids:
        row = rows.get(mid)
        if row is None:
            continue
        game_id = row[9]
        if game_id not in game_cache:
            found = conn.execute(
                f"SELECT {games.GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            game_cache[game_id] = games.game_from_row(found)
        sides = []
        for idx, rank, name, points, bot in factions.get(mid, []):
            listed = [people[p] for p in members.get((mid, idx), []) if p in people]
            sides.append(
                Faction.trusted(
                    rank=rank,
                    name=name,
                    points=_points(points),
                    players=listed,
                    count_players=len(listed),
                    winner=rank == 1,
                    bot=bool(bot),
                )
            )
        weight = row[8]
        out.append(
            Match.trusted(
                id=str(row[0]),
                external_id=row[1] or "",
                date=row[2],
                registration_date=row[3],
                number=row[4],
                summary=row[5],
                type=row[6],
                draw=bool(row[7]),
                weight=weight,
                weight_label=Weight(weight).label if weight in WEIGHTS else "",
                game=game_cache[game_id],
                notes=row[10],
                factions=sides,
            )
        )
    return out


_SUBSET_COLUMNS = "id, key, type, name, game_id, creation_date, icon, count_matches, first_match, last_match"


def _subset_row(conn: Conn, group_id: int, key: str) -> tuple:
    row = conn.execute(
        f"SELECT {_SUBSET_COLUMNS} FROM subsets WHERE group_id = ? AND key = ?", (group_id, key)
    ).fetchone()
    if row is None:
        raise Fault("R002", f"No subset {key!r} in this group.")
    return tuple(row)


def _whole_matches(conn: Conn, ids: Iterable[int | None]) -> dict[int, Match]:
    """The matches with these row ids (None and repeats skipped) by row id, read in one `load_matches`."""
    return {int(m.id): m for m in load_matches(conn, list(dict.fromkeys(i for i in ids if i is not None)))}


def _subsets_from_rows(
    conn: Conn, rows: Sequence[tuple], whole: dict[int, Match] | None = None
) -> list[Subset]:
    """Subsets from rows selected with `_SUBSET_COLUMNS`, each first and last match whole (WIRE.md), as the
    matches pages give them. `whole`: those matches when the caller has read them already (`_whole_matches`)."""
    if whole is None:
        whole = _whole_matches(conn, (m for r in rows for m in (r[8], r[9])))
    by_id = {m.game.id: m.game for m in whole.values() if m.game is not None}
    game_ids = [r[4] for r in rows if r[4] is not None and r[4] not in by_id]
    if game_ids:
        marks = ",".join("?" * len(game_ids))
        for g in conn.execute(f"SELECT {games.GAME_COLUMNS} FROM games WHERE id IN ({marks})", game_ids):
            by_id[g[0]] = games.game_from_row(g)
    return [
        Subset(
            id=key,
            name=name,
            type=kind,
            creation_date=created,
            is_main=kind == "main",
            is_custom=kind not in ("main", "game"),
            icon=icon,
            game=by_id.get(game_id) if game_id is not None else None,
            count_matches=count,
            first_match=whole.get(first),
            last_match=whole.get(last),
        )
        for _, key, kind, name, game_id, created, icon, count, first, last in rows
    ]


def subsets(conn: Conn, group_id: int) -> list[Subset]:
    """The group's subsets: the main one first, then one per game by name."""
    rows = conn.execute(
        f"SELECT {_SUBSET_COLUMNS} FROM subsets WHERE group_id = ?",
        (group_id,),
    ).fetchall()
    rows.sort(key=lambda r: (r[2] != "main", games.normalise(r[3]), r[0]))
    return _subsets_from_rows(conn, rows)


def matches_page(conn: Conn, group_id: int, key: str | None, number: int) -> MatchesPage:
    """Page `number` of a subset's matches (the main subset when `key` is None), newest first."""
    row = _subset_row(conn, group_id, key or MAIN_SUBSET)
    offset, limit = page_bounds(number)
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT match_id FROM subset_matches WHERE subset_id = ? ORDER BY number DESC LIMIT ? OFFSET ?",
            (row[0], limit, offset),
        )
    ]
    return MatchesPage(
        page=number,
        total_pages=total_pages(row[7]),
        rows_for_page=PAGE_SIZE,
        total_matches=row[7],
        data=load_matches(conn, ids),
    )


def rankings_page(
    conn: Conn,
    group_id: int,
    key: str | None,
    match: int | None,
    number: int,
    now: str,
    cache: snapshots.SnapshotCache | None = None,
    orders: LatestOrders | None = None,
) -> RankingsPage:
    """Page `number` of a subset's standings after the group's match `match` (the latest when None).

    `cache`: the snapshots of the standings read before, from this database (`Store.snapshots`); `orders`:
    the order of latest standings read before (`Store.latest_orders`).
    """
    row = _subset_row(conn, group_id, key or MAIN_SUBSET)
    found = conn.execute(
        "SELECT number, seq, match_id FROM subset_matches WHERE subset_id = ? AND number <= ?"
        " ORDER BY number DESC LIMIT 1",
        (row[0], match if match is not None else 2**62),
    ).fetchone()
    whole = _whole_matches(conn, (row[8], row[9], found[2] if found is not None else None))
    subset = _subsets_from_rows(conn, [row], whole)[0]
    if found is None:
        return RankingsPage(page=number, total_pages=1, rows_for_page=PAGE_SIZE, subset=subset, match=None)
    at, _, match_id = found
    shown = whole[match_id]
    latest = row[9] == match_id
    reference = max(now, shown.date) if latest else shown.date
    offset, limit = page_bounds(number)
    ranked, rows = rankings.standings_page(conn, row[0], at, reference, offset, limit, cache, orders)
    return RankingsPage(
        page=number,
        total_pages=total_pages(ranked),
        rows_for_page=PAGE_SIZE,
        subset=subset,
        match=shown,
        data=rows,
    )
