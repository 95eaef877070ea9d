"""Ratings of the embedded service: recorded per subset after every match, read back as standings.

Recording a match (`record`) costs O(participants) whatever the history's length: the latest skill of each
participant comes from ``rating_current`` (primary-key lookups), `rating.rate_match` gives the new skills,
each participant gets one ``rating_history`` row and its ``rating_current`` row updated (ree included).
The history is kept in match order (key: subset, match number, player), so a match appends at the end of
the table: the pages a match writes do not grow with the history (schema v3). Each history row names the
player's previous match in the subset (``prev``), and after every `schema.SNAPSHOT_EVERY`-th match of a
subset its listed players' standings are copied into ``rating_snapshot``. Matches are rated in order of
acceptance (their group-wide number).

Reading the standings after match n (`standings`, `standings_page`) never scans the history: a player
whose latest match in the subset is at or before n stands as ``rating_current`` says (the usual case for a
recent n); the others stand as their latest history row among the at most `SNAPSHOT_EVERY` matches after
the last snapshot at or before n says, or else as that snapshot says; all in one statement that also
brings each player's sort key and the number of their latest match. The participants of match n stood
before it as the row their row at n points at (``prev``: one statement for all). Only for the rows of the
page asked for come their `Player` and a count of their matches of the last 30 days for the activity
status (`_recents`: one statement walking each player's ``prev`` chain backwards from n, stopping at
`RECENT_CAP` (12: more never changes the status) or as soon as every earlier match is older than the
window (``last_date``, the latest date so far, never decreases along the walk).

Rules the wire leaves open (ours):

- positions are 1..N without ties: ree (descending), then matches played (descending), then display
  name (casefolded), then player id;
- ``deltaRee`` is against the standings before the match; a player new in that match counts from the ree
  of a newcomer (`rating.initial_skill`); ``deltaPosition`` = position before - position after (positive =
  climbed), 0 for a newcomer;
- status is computed at the match's date, except for the latest standings of a subset, computed now
  (or at the match's date if that is later);
- bots (participant keys ``bot:<game id>``) are rated like players but never listed.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from operator import itemgetter

from rankterm.api.models import RankingRow
from rankterm.server import rating
from rankterm.server.conn import Conn
from rankterm.server.players import in_chunks, load_players
from rankterm.server.schema import SNAPSHOT_EVERY
from rankterm.server.wire import format_time

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


def record(
    conn: Conn, subset_id: int, number: int, seq: int, date: str, sides: Sequence[Side], weight: str
) -> None:
    """Rate match `number` (played at `date`, the subset's `seq`-th) in subset `subset_id`; store the standings."""
    keys = [k for side in sides for k in side.keys]
    marks = ",".join("?" * len(keys))
    current = {
        row[0]: row[1:]
        for row in conn.execute(
            "SELECT player, mu, sigma, best_ree, played, last_date, first_number, number FROM rating_current"
            f" WHERE subset_id = ? AND player IN ({marks})",
            (subset_id, *keys),
        )
    }
    skills = {k: rating.Skill(v[0], v[1]) for k, v in current.items()}
    factions = [rating.FactionResult(s.rank, s.keys, s.bot) for s in sides]
    new = rating.rate_match(factions, skills, weight)
    bots = {k for s in sides if s.bot for k in s.keys}
    for key, skill in new.items():
        _, _, best, played, last, first, prev = current.get(key, (0, 0, 0.0, 0, "", number, 0))
        ree = rating.ree(skill)
        best, played, last = max(best, ree), played + 1, max(last, date)
        conn.execute(
            "INSERT INTO rating_history (subset_id, number, player, prev, match_date, mu, sigma, ree, best_ree,"
            " played, last_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (subset_id, number, key, prev, date, skill.mu, skill.sigma, ree, best, played, last),
        )
        conn.execute(
            "INSERT INTO rating_current (subset_id, player, bot, first_number, number, mu, sigma,"
            " best_ree, played, last_date, ree, sort_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " coalesce((SELECT sort_key FROM players WHERE id = ?), ''))"
            " ON CONFLICT (subset_id, player) DO UPDATE SET bot = excluded.bot,"
            " first_number = excluded.first_number, number = excluded.number, mu = excluded.mu,"
            " sigma = excluded.sigma, best_ree = excluded.best_ree, played = excluded.played,"
            " last_date = excluded.last_date, ree = excluded.ree",
            (
                subset_id,
                key,
                int(key in bots),
                first,
                number,
                skill.mu,
                skill.sigma,
                best,
                played,
                last,
                ree,
                key,
            ),
        )
    if seq % SNAPSHOT_EVERY == 0:
        conn.execute(
            "INSERT INTO rating_snapshot (subset_id, at_number, player, number, ree, best_ree, played,"
            " last_date) SELECT subset_id, ?, player, number, ree, best_ree, played, last_date"
            " FROM rating_current WHERE subset_id = ? AND bot = 0",
            (number, subset_id),
        )


@dataclass(frozen=True, slots=True)
class _Standing:
    ree: float
    best_ree: float
    played: int
    last_date: str


def _before(conn: Conn, subset_id: int, number: int) -> dict[str, _Standing | None]:
    """How each participant of match `number` stood before it (None: new to the subset then)."""
    rows = conn.execute(
        "SELECT h.player, b.ree, b.best_ree, b.played, b.last_date FROM rating_history h"
        " LEFT JOIN rating_history b ON b.subset_id = h.subset_id AND b.number = h.prev AND b.player = h.player"
        " WHERE h.subset_id = ? AND h.number = ?",
        (subset_id, number),
    ).fetchall()
    return {row[0]: _Standing(*row[1:]) if row[1] is not None else None for row in rows}


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


_CURRENT = (
    "SELECT player, sort_key, ree, best_ree, played, last_date, number FROM rating_current"
    " WHERE subset_id = ? AND bot = 0 AND first_number <= ?"
)
_SNAPSHOTS_AROUND = (
    "SELECT (SELECT max(at_number) FROM rating_snapshot WHERE subset_id = ? AND at_number <= ?),"
    " (SELECT min(at_number) FROM rating_snapshot WHERE subset_id = ? AND at_number > ?)"
)
_HISTORY_AFTER = (
    "SELECT player, ree, best_ree, played, last_date, number FROM rating_history"
    " WHERE subset_id = ? AND number > ? AND number <= ? ORDER BY number"
)
_HISTORY_BEFORE = (
    # The row before each player's first match in (n, snapshot]: their standing after n.
    "SELECT b.player, b.ree, b.best_ree, b.played, b.last_date, b.number FROM rating_history h"
    " JOIN rating_history b ON b.subset_id = h.subset_id AND b.number = h.prev AND b.player = h.player"
    " WHERE h.subset_id = ? AND h.number > ? AND h.number <= ? AND h.prev <= ? AND h.prev > 0"
)
_SNAPSHOT_ROWS = (
    "SELECT player, ree, best_ree, played, last_date, number FROM rating_snapshot"
    " WHERE subset_id = ? AND at_number = ? AND player IN ({marks})"
)


def _standings_at(conn: Conn, subset_id: int, number: int) -> list[tuple]:
    """Every listed (non-bot) player's standing after match `number`, by position.

    Rows of (player, sort key, ree, best ree, played, last date, number of their latest match up to n).
    A player who has not played since n stands as ``rating_current`` says; the others as `_then` says.
    """
    rows = conn.execute(_CURRENT, (subset_id, number)).fetchall()
    later = {r[0]: i for i, r in enumerate(rows) if r[6] > number}
    if later:
        then = _then(conn, subset_id, number, later)
        for pid, i in later.items():
            _, ree, best_ree, played, last_date, latest = then[pid]
            rows[i] = (pid, rows[i][1], ree, best_ree, played, last_date, latest)
    # Python's order on both engines (PostgreSQL would compare its escaped text, see `pg.escape`): `_key`,
    # in two stable sorts on C-level keys (by name and id, then by ree and matches played, descending).
    rows.sort(key=itemgetter(1, 0))
    rows.sort(key=itemgetter(2, 4), reverse=True)
    return rows


def _then(conn: Conn, subset_id: int, number: int, players: Collection[str]) -> dict[str, tuple]:
    """How `players` (each with a match after n, and one at or before) stood after match `number`.

    From the nearer snapshot: from the last one at or before n, a player's latest history row after it,
    or else their row in it; from the first one after n, the row before a player's first match after n
    (its ``prev``), or else their row in it. Either way at most half of `SNAPSHOT_EVERY` matches are read
    on average. Rows of (player, ree, best ree, played, last date, number of their match).
    """
    below, above = conn.execute(_SNAPSHOTS_AROUND, (subset_id, number, subset_id, number)).fetchone()
    below = below or 0
    if above is None or number - below <= above - number:
        snapshot = below
        rows = conn.execute(_HISTORY_AFTER, (subset_id, below, number))
    else:
        snapshot = above
        rows = conn.execute(_HISTORY_BEFORE, (subset_id, number, above, number))
    then = {r[0]: r for r in rows if r[0] in players}
    missing = [pid for pid in players if pid not in then]
    for chunk, marks in in_chunks(missing):
        sql = _SNAPSHOT_ROWS.format(marks=marks)
        then.update((r[0], r) for r in conn.execute(sql, (subset_id, snapshot, *chunk)))
    return then


def _key(ree: float, played: int, sort_key: str, pid: str) -> tuple:
    """A player's place in the order of positions (smaller is higher)."""
    return (-ree, -played, sort_key, pid)


def _row_key(row: Sequence) -> tuple:
    """`_key` of a row of `_standings_at`."""
    return (-row[2], -row[4], row[1], row[0])


@lru_cache(maxsize=4096)
def _epoch(text: str) -> float:
    """`wire.parse_time` for the service's own ``YYYY-MM-DD HH:MM:SS`` (UTC) texts, without strptime's cost."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def standings(
    conn: Conn,
    subset_id: int,
    number: int,
    participants: Iterable[str],
    reference: str,
) -> list[RankingRow]:
    """The subset's standings after its match `number`, whose participants are `participants`.

    `reference` is the time ("YYYY-MM-DD HH:MM:SS") the activity status is computed at.
    """
    return standings_page(conn, subset_id, number, participants, reference)[1]


def standings_page(
    conn: Conn,
    subset_id: int,
    number: int,
    participants: Iterable[str],
    reference: str,
    offset: int = 0,
    limit: int | None = None,
) -> tuple[int, list[RankingRow]]:
    """(how many players are ranked, their rows from `offset`, at most `limit` of them) after match `number`.

    Positions and deltas count every ranked player; only the rows asked for are built (their players,
    activity status, belt, title), so a page of a large subset costs about as much as a page of a small one.
    """
    ranked = _standings_at(conn, subset_id, number)
    # Before the match, only its participants stood elsewhere (or not at all, for a newcomer).
    before = _before(conn, subset_id, number)
    wanted = set(participants) & before.keys()
    moved = {r[0]: i for i, r in enumerate(ranked) if r[0] in wanted}
    after_keys = [_row_key(ranked[i]) for i in moved.values()]
    before_keys = {
        pid: _key(old.ree, old.played, ranked[i][1], pid)
        for pid, i in moved.items()
        if (old := before[pid]) is not None
    }

    def position_before(pid: str, i: int) -> int | None:
        """Where the player stood before the match: how many keys were below theirs then, plus one."""
        if pid in moved:
            key = before_keys.get(pid)
            if key is None:
                return None
            above = bisect_left(ranked, key, key=_row_key)
        else:
            key, above = _row_key(ranked[i]), i
        above -= sum(1 for k in after_keys if k < key)
        above += sum(1 for other, k in before_keys.items() if other != pid and k < key)
        return above + 1

    stop = len(ranked) if limit is None else min(len(ranked), offset + limit)
    shown = range(offset, stop)
    players = load_players(conn, (ranked[i][0] for i in shown))
    ref_time = _epoch(reference)
    since = format_time(ref_time - STATUS_WINDOW_DAYS * 86400)
    # The others played none in the window.
    active = [(ranked[i][0], ranked[i][6]) for i in shown if ranked[i][5] >= since]
    recents = _recents(conn, subset_id, active, since, reference)
    rows = []
    for i in shown:
        pid, _, ree, best_ree, played, last_date, _ = ranked[i]
        position = i + 1
        old = before[pid] if pid in moved else None
        was = position_before(pid, i)
        recent = recents.get(pid, 0)
        days = max(0.0, (ref_time - _epoch(last_date)) / 86400)
        belt, belt_label = rating.belt_for(best_ree, played)
        title, title_label = rating.title_for(position, len(ranked))
        status, status_label = rating.status_for(recent, days)
        rows.append(
            RankingRow.model_construct(  # every field given, of its type: nothing to validate
                player=players[pid],
                ree=ree,
                delta_ree=round(ree - (old.ree if old else NEWCOMER_REE), 2) if pid in moved else 0.0,
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
    return len(ranked), rows
