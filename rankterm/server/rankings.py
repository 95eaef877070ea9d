"""Ratings of the embedded service: recorded per subset after every match, read back as standings.

Recording a match (`record`) costs O(participants) whatever the history's length; a match placed before
others undoes and replays what follows it. Reading the standings after match n (`standings`,
`standings_page`) never scans the history: it starts from the nearer snapshot and brings into Python only
what the page needs. See docs/design/server.md for how, and the rules the wire leaves open.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from rankterm.server.db import SNAPSHOT_EVERY, Conn, Dialect
from rankterm.server.latest_order import Key, LatestOrders, from_latest_order
from rankterm.server.snapshots import SnapshotCache, from_snapshot_above, position_key
from rankterm.server.wire import format_time
from rankterm.wire import rating
from rankterm.wire.fields import wire_seconds
from rankterm.wire.models import Player, RankingRow

BOT_PREFIX = "bot:"
STATUS_WINDOW_DAYS = 30
NEWCOMER_REE = rating.ree(rating.initial_skill())


def bot_key(game_id: int) -> str:
    """The participant key of a game's bot."""
    return f"{BOT_PREFIX}{game_id}"


@dataclass(frozen=True, slots=True)
class Side:
    """One faction of a match to rate: its rank, its participant keys, whether it is the bot."""

    rank: int
    keys: tuple[str, ...]
    bot: bool = False


_HISTORY_ROW = (
    "INSERT INTO rating_history (subset_id, number, player, prev, match_date, mu, sigma, ree, best_ree, played,"
    " last_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_CURRENT_ROW = (
    "INSERT INTO rating_current (subset_id, player, bot, first_number, number, mu, sigma, best_ree, played,"
    " last_date, ree, sort_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
    " coalesce((SELECT sort_key FROM players WHERE id = ?), ''))"
    " ON CONFLICT (subset_id, player) DO UPDATE SET bot = excluded.bot,"
    " first_number = excluded.first_number, number = excluded.number, mu = excluded.mu,"
    " sigma = excluded.sigma, best_ree = excluded.best_ree, played = excluded.played,"
    " last_date = excluded.last_date, ree = excluded.ree"
)
_SNAPSHOT_ROW = (
    "INSERT INTO rating_snapshot (subset_id, at_number, player, number, ree, best_ree, played, last_date)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


class Standing(NamedTuple):
    """A participant's ``rating_current`` row: skill, best ree, matches played, latest date, their first and
    latest match numbers in the subset, ree, whether a bot."""

    mu: float
    sigma: float
    best_ree: float
    played: int
    last_date: str
    first_number: int
    number: int
    ree: float = 0.0
    bot: bool = False


def _rated(
    current: dict[str, Standing], number: int, date: str, sides: Sequence[Side], weight: str
) -> dict[str, Standing]:
    """Each participant's standing after match `number` (at `date`), from `current` (theirs before it; a
    participant missing from it is new to the subset)."""
    skills = {k: rating.Skill(v.mu, v.sigma) for k, v in current.items()}
    factions = [rating.FactionResult(s.rank, s.keys, s.bot) for s in sides]
    bots = {k for s in sides if s.bot for k in s.keys}
    out = {}
    for key, skill in rating.rate_match(factions, skills, weight).items():
        before = current.get(key)
        ree = rating.ree(skill)
        out[key] = Standing(
            skill.mu,
            skill.sigma,
            max(before.best_ree, ree) if before else ree,
            before.played + 1 if before else 1,
            max(before.last_date, date) if before else date,
            before.first_number if before else number,
            number,
            ree,
            key in bots,
        )
    return out


def _history_row(subset_id: int, key: str, new: Standing, before: Standing | None, date: str) -> tuple:
    """The parameters of `_HISTORY_ROW`: `new` after the match at `date`, pointing at the row `before` it."""
    prev = before.number if before else 0
    return (
        subset_id,
        new.number,
        key,
        prev,
        date,
        new.mu,
        new.sigma,
        new.ree,
        new.best_ree,
        new.played,
        new.last_date,
    )


def _current_row(subset_id: int, key: str, new: Standing) -> tuple:
    """The parameters of `_CURRENT_ROW` (the last one finds the player's sort key)."""
    return (
        subset_id,
        key,
        int(new.bot),
        new.first_number,
        new.number,
        new.mu,
        new.sigma,
        new.best_ree,
        new.played,
        new.last_date,
        new.ree,
        key,
    )


def record(
    conn: Conn, subset_id: int, number: int, seq: int, date: str, sides: Sequence[Side], weight: str
) -> None:
    """Rate match `number` (played at `date`, the subset's `seq`-th) in subset `subset_id`; store the standings."""
    keys = [k for side in sides for k in side.keys]
    marks = ",".join("?" * len(keys))
    current = {
        row[0]: Standing(*row[1:])
        for row in conn.execute(
            "SELECT player, mu, sigma, best_ree, played, last_date, first_number, number FROM rating_current"
            f" WHERE subset_id = ? AND player IN ({marks})",
            (subset_id, *keys),
        )
    }
    for key, new in _rated(current, number, date, sides, weight).items():
        conn.execute(_HISTORY_ROW, _history_row(subset_id, key, new, current.get(key), date))
        conn.execute(_CURRENT_ROW, _current_row(subset_id, key, new))
    if seq % SNAPSHOT_EVERY == 0:
        conn.execute(
            "INSERT INTO rating_snapshot (subset_id, at_number, player, number, ree, best_ree, played,"
            " last_date) SELECT subset_id, ?, player, number, ree, best_ree, played, last_date"
            " FROM rating_current WHERE subset_id = ? AND bot = 0",
            (number, subset_id),
        )


REPLAY_FLUSH = 2000
"""Matches `replay` rates between two writes of their history rows."""


def replay(conn: Conn, subset_id: int, matches: Iterable[tuple[int, int, str, Sequence[Side], str]]) -> None:
    """Rate `matches` (number, seq, date, sides, weight; in order, all after the subset's rated ones) as
    `record` rates each, with the same results, but with the subset's standings held in Python: one read of
    ``rating_current``, and the rows written a few thousand matches at a time (a migration rates a whole
    history this way, a match placed before others everything after it)."""
    state = {
        row[0]: Standing(*row[1:])
        for row in conn.execute(
            "SELECT player, mu, sigma, best_ree, played, last_date, first_number, number, ree, bot"
            " FROM rating_current WHERE subset_id = ?",
            (subset_id,),
        )
    }
    history: list[tuple] = []
    snapshot: list[tuple] = []
    touched: set[str] = set()

    def flush() -> None:
        conn.executemany(_HISTORY_ROW, history)
        conn.executemany(_SNAPSHOT_ROW, snapshot)
        conn.executemany(_CURRENT_ROW, [_current_row(subset_id, key, state[key]) for key in touched])
        history.clear()
        snapshot.clear()
        touched.clear()

    for done, (number, seq, date, sides, weight) in enumerate(matches, 1):
        current = {k: state[k] for side in sides for k in side.keys if k in state}
        for key, new in _rated(current, number, date, sides, weight).items():
            history.append(_history_row(subset_id, key, new, current.get(key), date))
            state[key] = new
            touched.add(key)
        if seq % SNAPSHOT_EVERY == 0:
            snapshot += [
                (subset_id, number, key, v.number, v.ree, v.best_ree, v.played, v.last_date)
                for key, v in state.items()
                if not v.bot
            ]
        if done % REPLAY_FLUSH == 0:
            flush()
    flush()


def forget_from(conn: Conn, subset_id: int, start: int) -> None:
    """Undo the subset's ratings of its matches numbered `start` and after: their history rows and the
    snapshots after them go, and each participant's ``rating_current`` row stands again as after their last
    match before `start` (gone for one whose first match in the subset is at or after `start`)."""
    for player, number, mu, sigma, ree, best_ree, played, last_date in conn.execute(
        "SELECT h.player, b.number, b.mu, b.sigma, b.ree, b.best_ree, b.played, b.last_date"
        " FROM rating_history h LEFT JOIN rating_history b"
        " ON b.subset_id = h.subset_id AND b.number = h.prev AND b.player = h.player"
        " WHERE h.subset_id = ? AND h.number >= ? AND h.prev < ?",
        (subset_id, start, start),
    ).fetchall():
        if number is None:
            conn.execute("DELETE FROM rating_current WHERE subset_id = ? AND player = ?", (subset_id, player))
        else:
            conn.execute(
                "UPDATE rating_current SET number = ?, mu = ?, sigma = ?, ree = ?, best_ree = ?, played = ?,"
                " last_date = ? WHERE subset_id = ? AND player = ?",
                (number, mu, sigma, ree, best_ree, played, last_date, subset_id, player),
            )
    conn.execute("DELETE FROM rating_history WHERE subset_id = ? AND number >= ?", (subset_id, start))
    conn.execute("DELETE FROM rating_snapshot WHERE subset_id = ? AND at_number >= ?", (subset_id, start))


def make_room(conn: Conn, subset_id: int, start: int) -> None:
    """Move the subset's ratings of matches numbered `start` and after one number up (a match is placed
    before them). Keys are moved through their negatives: no two rows ever hold one key, on either engine."""
    after = "CASE WHEN {0} >= ? THEN {0} + 1 ELSE {0} END"
    conn.execute(
        f"UPDATE rating_history SET number = -(number + 1), prev = {after.format('prev')}"
        " WHERE subset_id = ? AND number >= ?",
        (start, subset_id, start),
    )
    conn.execute(
        "UPDATE rating_history SET number = -number WHERE subset_id = ? AND number < 0", (subset_id,)
    )
    conn.execute(
        f"UPDATE rating_snapshot SET at_number = -(at_number + 1), number = {after.format('number')}"
        " WHERE subset_id = ? AND at_number >= ?",
        (start, subset_id, start),
    )
    conn.execute(
        "UPDATE rating_snapshot SET at_number = -at_number WHERE subset_id = ? AND at_number < 0",
        (subset_id,),
    )
    conn.execute(
        f"UPDATE rating_current SET number = number + 1, first_number = {after.format('first_number')}"
        " WHERE subset_id = ? AND number >= ?",
        (start, subset_id, start),
    )


RECENT_CAP = rating.VERY_ACTIVE_MIN_MATCHES
"""Matches in the status window are counted up to this many: more never changes the status."""

_IN_WINDOW = "CASE WHEN h.match_date >= ? AND h.match_date <= ? THEN 1 ELSE 0 END"
_WALK = (
    "WITH RECURSIVE start(player, number) AS (VALUES {starts}),"
    " walk(player, prev, last_date, counted) AS ("
    f"  SELECT h.player, h.prev, h.last_date, {_IN_WINDOW}"
    "  FROM start s JOIN rating_history h ON h.subset_id = ? AND h.number = s.number AND h.player = s.player"
    "  UNION ALL"
    f"  SELECT h.player, h.prev, h.last_date, w.counted + {_IN_WINDOW}"
    "  FROM walk w JOIN rating_history h ON h.subset_id = ? AND h.number = w.prev AND h.player = w.player"
    "  WHERE w.counted < ? AND w.last_date >= ? AND w.prev > 0)"
    " SELECT player, max(counted) FROM walk GROUP BY player"
)


def _recents(
    conn: Conn, subset_id: int, latest: Sequence[tuple[str, int]], since: str, until: str
) -> dict[str, int]:
    """Each player's matches (up to their match numbered as in `latest`) dated in [since, until], up to `RECENT_CAP`.

    One statement walks each player's ``prev`` chain from that match backwards: a row whose ``last_date``
    (the latest date of the player's matches up to that row) is before `since` ends the walk, as every
    match before it is older still. Exact whatever order the matches' dates came in.
    """
    if not latest:
        return {}
    sql = _WALK.format(starts=", ".join(["(?, ?)"] * len(latest)))
    params = [v for pair in latest for v in pair]
    params += [since, until, subset_id, since, until, subset_id, RECENT_CAP, since]
    return {row[0]: min(row[1], RECENT_CAP) for row in conn.execute(sql, params)}


_STATE = "st(player, sort_key, ree, best_ree, played, last_date, number)"
_NOW = (
    # Players whose latest match is at or before n stand as rating_current says.  Parameters: s, n, n.
    "SELECT player, sort_key, ree, best_ree, played, last_date, number FROM rating_current"
    " WHERE subset_id = ? AND bot = 0 AND first_number <= ? AND number <= ?"
)
_FROM_BELOW = (
    # From the last snapshot S at or before n: a later player's latest history row in (S, n], or else their
    # row in S.  Parameters: s, S, n | s, n, n | s, s, n | s, S, s, n, n.
    "lat(player, number) AS (SELECT player, max(number) FROM rating_history"
    " WHERE subset_id = ? AND number > ? AND number <= ? GROUP BY player),"
    f" {_STATE} AS ({_NOW}"
    " UNION ALL SELECT c.player, c.sort_key, h.ree, h.best_ree, h.played, h.last_date, h.number"
    " FROM lat l JOIN rating_current c ON c.subset_id = ? AND c.player = l.player"
    " JOIN rating_history h ON h.subset_id = ? AND h.number = l.number AND h.player = l.player"
    " WHERE c.bot = 0 AND c.number > ?"
    " UNION ALL SELECT c.player, c.sort_key, p.ree, p.best_ree, p.played, p.last_date, p.number"
    " FROM rating_current c JOIN rating_snapshot p ON p.subset_id = ? AND p.at_number = ? AND p.player = c.player"
    " WHERE c.subset_id = ? AND c.bot = 0 AND c.first_number <= ? AND c.number > ?"
    " AND c.player NOT IN (SELECT player FROM lat))"
)
_PAGE = (
    # One statement, three kinds of rows:
    # 0: the rows of the page (any order) with their player;
    # 1: the match's listed participants, after it and before it (NULL: new to the subset);
    # 2: how many players are ranked.
    # Parameters: (state) | stop - offset, offset | s, n | s, n.
    "WITH {state}, page AS (SELECT * FROM st ORDER BY ree DESC, played DESC, {sort_key}, player"
    " LIMIT ? OFFSET ?)"
    " SELECT 0, page.player, page.sort_key, page.ree, page.played, page.best_ree, page.last_date, page.number,"
    " p.ghost, p.username, p.display_name, p.icon FROM page JOIN players p ON p.id = page.player"
    " UNION ALL SELECT 1, h.player, c.sort_key, h.ree, h.played, b.ree, NULL, b.played, NULL, NULL, NULL, NULL"
    " FROM rating_history h JOIN rating_current c ON c.subset_id = h.subset_id AND c.player = h.player"
    " AND c.bot = 0"
    " LEFT JOIN rating_history b ON b.subset_id = h.subset_id AND b.number = h.prev AND b.player = h.player"
    " WHERE h.subset_id = ? AND h.number = ?"
    " UNION ALL SELECT 2, NULL, NULL, NULL, NULL, NULL, NULL, count(*), NULL, NULL, NULL, NULL FROM rating_current"
    " WHERE subset_id = ? AND bot = 0 AND first_number <= ?"
)
_ABOVE = (
    # How many players' standings after n are above a key (ree, played, name, player).
    # Parameters: (state) | ree, ree, played, played, name, name, player.
    "WITH {state} SELECT count(*) FROM st WHERE ree > ? OR ree = ? AND (played > ? OR played = ?"
    " AND ({sort_key} < {name} OR sort_key = ? AND player < ?))"
)
_SNAPSHOTS_AROUND = (
    "SELECT (SELECT max(at_number) FROM rating_snapshot WHERE subset_id = ? AND at_number <= ?),"
    " (SELECT min(at_number) FROM rating_snapshot WHERE subset_id = ? AND at_number > ?),"
    " (SELECT history_version FROM subsets WHERE id = ?)"
)


_LATEST = f"{_STATE} AS ({_NOW})"
"""The state after the subset's latest match n: ``rating_current`` as it is (no row is later than n).
Parameters: s, n, n."""
_LATEST_IN = "SELECT max(number) FROM subset_matches WHERE subset_id = ?"


@lru_cache(maxsize=8)
def _statements(dialect: Dialect, latest: bool = False) -> tuple[str, str]:
    """(`_PAGE`, `_ABOVE`) from the state below n (`_FROM_BELOW`), or after the subset's latest match
    (`_LATEST`), with names in `dialect`'s order."""
    words = {
        "state": _LATEST if latest else _FROM_BELOW,
        "sort_key": dialect.name_order("sort_key"),
        "name": dialect.name_order("?"),
    }
    return _PAGE.format(**words), _ABOVE.format(**words)


@lru_cache(maxsize=4096)
def _epoch(text: str) -> float:
    """`wire_seconds`, kept for the few dates the standings read again and again."""
    return wire_seconds(text)


def standings(conn: Conn, subset_id: int, number: int, reference: str) -> list[RankingRow]:
    """The subset's standings after its match `number`, every row.

    `reference` is the time ("YYYY-MM-DD HH:MM:SS") the activity status is computed at.
    """
    return standings_page(conn, subset_id, number, reference)[1]


def _from_statement(
    conn: Conn, subset_id: int, number: int, below: int, offset: int, limit: int, latest: bool = False
) -> tuple[int, list[tuple], dict[str, tuple], Callable[[tuple], int]]:
    """(how many players are ranked, the page's rows, the participants, how many stand above a key),
    worked out by the database from the snapshot at `below` (<= n; 0: none) in one statement (`_PAGE`);
    when n is the subset's `latest` match, from ``rating_current`` alone (`_LATEST`: the same rows,
    without reading the history since the snapshot, ~a third of the page's time at 2,000 players).

    Page rows are (player, sort key, ree, played, best ree, last date, number, ghost, username, display
    name, icon), in order; participants are {player: (key after, key before or None, ree before or None)}.
    """
    s, n = subset_id, number
    page_sql, above_sql = _statements(conn.dialect, latest)
    state = (s, n, n) if latest else (s, below, n, s, n, n, s, s, n, s, below, s, n, n)
    page: list[tuple] = []
    moved: dict[str, tuple] = {}
    ranked = 0
    for kind, pid, name, ree, played, *rest in conn.execute(page_sql, (*state, limit, offset, s, n, s, n)):
        if kind == 0:
            page.append((pid, name, ree, played, *rest))
        elif kind == 1:
            old_ree, _, old_played = rest[:3]
            old_key = position_key(old_ree, old_played, name, pid) if old_ree is not None else None
            moved[pid] = (position_key(ree, played, name, pid), old_key, old_ree)
        else:
            ranked = rest[2]
    page.sort(key=lambda r: position_key(r[2], r[3], r[1], r[0]))
    keys = [position_key(r[2], r[3], r[1], r[0]) for r in page]

    def stood_above(key: tuple) -> int:
        """How many players' standings after the match are above `key` (from the page when it tells)."""
        below_page = offset + len(keys) == ranked
        if (offset == 0 or key >= keys[0]) and (key <= keys[-1] or below_page):
            return offset + bisect_left(keys, key)
        ree, played, name, pid = -key[0], -key[1], key[2], key[3]
        params = (*state, ree, ree, played, played, name, name, pid)
        return int(conn.execute(above_sql, params).fetchone()[0])

    return ranked, page, moved, stood_above


def _from_latest(
    conn: Conn, s: int, n: int, offset: int, limit: int, key: Key, orders: LatestOrders | None
) -> tuple[int, list[tuple], dict[str, tuple], Callable[[tuple], int]] | None:
    """The latest standings' page from the order `orders` keeps, or None when it keeps none that holds."""
    kept = orders.get(conn, key) if orders is not None else None
    if kept is None:
        return None
    view = from_latest_order(conn, s, n, offset, limit, kept[1])
    if view is None and orders is not None:
        orders.drop(key)
    return view


def standings_page(
    conn: Conn,
    subset_id: int,
    number: int,
    reference: str,
    offset: int = 0,
    limit: int | None = None,
    cache: SnapshotCache | None = None,
    orders: LatestOrders | None = None,
) -> tuple[int, list[RankingRow]]:
    """(how many players are ranked, their rows from `offset`, at most `limit` of them) after match `number`.

    From the nearer snapshot: at most half of `SNAPSHOT_EVERY` matches of history are read on average. From
    the one after n, in Python from the snapshot `cache` holds (the store's; see `SnapshotCache` for when it
    reads one); from the one before (or none), and from the one after when it is not held, by the database
    (`_from_statement`); after the subset's latest match, from the order `orders` keeps once it has been
    asked for twice (`latest_order`). Only the rows asked for are built, so a page
    of a large subset costs about as much as a page of a small one; one more statement counts the recent
    matches of the page's active players (`_recents`).
    """
    s, n = subset_id, number
    below, above, version = conn.execute(_SNAPSHOTS_AROUND, (s, n, s, n, s)).fetchone()
    below = below or 0
    stop = limit if limit is not None else 2**62
    snapshot = None
    if above is not None and above - n < n - below and cache is not None:
        snapshot = cache.get(conn, s, above, version or 0)
    if snapshot is not None:
        view = from_snapshot_above(conn, s, n, above, offset, stop, snapshot)
    else:
        latest = above is None and conn.execute(_LATEST_IN, (s,)).fetchone()[0] == n
        kept = _from_latest(conn, s, n, offset, stop, (s, n, version or 0), orders) if latest else None
        view = kept if kept is not None else _from_statement(conn, s, n, below, offset, stop, latest)
    ranked, page, moved, stood_above = view
    if not page:
        return ranked, []
    after_keys = [m[0] for m in moved.values()]
    before_keys = [(pid, m[1]) for pid, m in moved.items() if m[1] is not None]

    def position_before(pid: str, key: tuple, position: int) -> int | None:
        """Where the player stood before the match: how many keys were below theirs then, plus one."""
        if pid in moved:
            old_key = moved[pid][1]
            if old_key is None:
                return None
            key, above = old_key, stood_above(old_key)
        else:
            above = position - 1
        above -= sum(1 for k in after_keys if k < key)
        above += sum(1 for other, k in before_keys if other != pid and k < key)
        return above + 1

    ref_time = _epoch(reference)
    since = format_time(ref_time - STATUS_WINDOW_DAYS * 86400)
    # The others played none in the window.
    recents = _recents(conn, subset_id, [(r[0], r[6]) for r in page if r[5] >= since], since, reference)
    out = []
    for position, (pid, name, ree, played, best_ree, last_date, _, *player) in enumerate(page, offset + 1):
        ghost, username, display_name, icon = player
        was = position_before(pid, position_key(ree, played, name, pid), position)
        if pid in moved:
            old_ree = moved[pid][2]
            delta_ree = round(ree - (NEWCOMER_REE if old_ree is None else old_ree), 2)
        else:
            delta_ree = 0.0
        days = max(0.0, (ref_time - _epoch(last_date)) / 86400)
        belt, belt_label = rating.belt_for(best_ree, played)
        title, title_label = rating.title_for(position, ranked)
        status, status_label = rating.status_for(recents.get(pid, 0), days)
        # Every field given, in order, of its type (the store's own columns): nothing to validate.
        out.append(
            RankingRow.trusted(
                player=Player.trusted(
                    id=pid, ghost=bool(ghost), username=username, display_name=display_name, icon=icon
                ),
                ree=ree,
                delta_ree=delta_ree,
                position=position,
                delta_position=was - position if was is not None else 0,
                belt=belt,
                belt_label=belt_label,
                title=title,
                title_label=title_label,
                status=status,
                status_label=status_label,
            )
        )
    return ranked, out
