"""Ratings of the embedded service: recorded per subset after every match, read back as standings.

Recording a match (`record`) costs O(participants): the latest skill of each participant comes from
``rating_current`` (primary key lookups), `rating.rate_match` gives the new skills, and each participant
gets one ``rating_history`` row (subset, player, match number) plus its ``rating_current`` row updated
(ree included). The history has its primary key and no other index (schema v2 dropped the one by date:
each index is one more page written per participant per match). Matches are rated in order of acceptance
(their group-wide number).

Reading the standings after match n (`standings`, `standings_page`) never scans the history: a player
whose latest match in the subset is at or before n stands as ``rating_current`` says (no lookup at all, the
usual case for a recent n); only the others cost one primary-key lookup (the latest history row with
``number <= n``), all in one statement that also brings each player's sort key. Then the "before" value of
the few players of that match; then, only for the rows of the page asked for, their `Player` and a count
of their matches of the last 30 days for the activity status (`_recent`), which walks the player's history
backwards from n and stops at `RECENT_CAP` (12: more never changes the status) or as soon as every earlier
match is older than the window (``last_date``, the latest date so far, never decreases along the walk).

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

import sqlite3
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from rankterm.api.models import RankingRow
from rankterm.server import rating
from rankterm.server.conn import Conn
from rankterm.server.players import load_players
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


def record(conn: Conn, subset_id: int, number: int, date: str, sides: Sequence[Side], weight: str) -> None:
    """Rate match `number` (played at `date`) in subset `subset_id` and store everyone's new standing."""
    keys = [k for side in sides for k in side.keys]
    marks = ",".join("?" * len(keys))
    current = {
        row[0]: row[1:]
        for row in conn.execute(
            "SELECT player, mu, sigma, best_ree, played, last_date, first_number FROM rating_current"
            f" WHERE subset_id = ? AND player IN ({marks})",
            (subset_id, *keys),
        )
    }
    skills = {k: rating.Skill(v[0], v[1]) for k, v in current.items()}
    factions = [rating.FactionResult(s.rank, s.keys, s.bot) for s in sides]
    new = rating.rate_match(factions, skills, weight)
    bots = {k for s in sides if s.bot for k in s.keys}
    for key, skill in new.items():
        _, _, best, played, last, first = current.get(key, (0, 0, 0.0, 0, "", number))
        ree = rating.ree(skill)
        best, played, last = max(best, ree), played + 1, max(last, date)
        conn.execute(
            "INSERT INTO rating_history (subset_id, player, number, match_date, mu, sigma, ree, best_ree,"
            " played, last_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (subset_id, key, number, date, skill.mu, skill.sigma, ree, best, played, last),
        )
        conn.execute(
            "INSERT INTO rating_current (subset_id, player, bot, first_number, number, mu, sigma,"
            " best_ree, played, last_date, ree) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (subset_id, player) DO UPDATE SET bot = excluded.bot,"
            " first_number = excluded.first_number, number = excluded.number, mu = excluded.mu,"
            " sigma = excluded.sigma, best_ree = excluded.best_ree, played = excluded.played,"
            " last_date = excluded.last_date, ree = excluded.ree",
            (subset_id, key, int(key in bots), first, number, skill.mu, skill.sigma, best, played, last, ree),
        )


@dataclass(frozen=True, slots=True)
class _Standing:
    ree: float
    best_ree: float
    played: int
    last_date: str


def _standing_at(conn: Conn, subset_id: int, player: str, number: int) -> _Standing | None:
    row = conn.execute(
        "SELECT ree, best_ree, played, last_date FROM rating_history"
        " WHERE subset_id = ? AND player = ? AND number <= ? ORDER BY number DESC LIMIT 1",
        (subset_id, player, number),
    ).fetchone()
    return _Standing(*row) if row else None


RECENT_CAP = rating.VERY_ACTIVE_MIN_MATCHES
"""Matches in the status window are counted up to this many: more never changes the status."""
_WALK = RECENT_CAP + 1
"""History rows read per step of a `_recent` walk: one step decides unless dates came out of order."""


def _walk(rows: Sequence[Sequence], since: str, until: str, count: int) -> tuple[bool, int, int]:
    """Feed a walk rows of (number, match date, last date), newest first: (decided, count, lowest number read)."""
    low = 0
    for row_number, date, latest in rows:
        if latest < since:
            return True, count, row_number
        if since <= date <= until:
            count += 1
            if count >= RECENT_CAP:
                return True, count, row_number
        low = row_number
    return len(rows) < _WALK, count, low


def _recent(
    conn: Conn,
    subset_id: int,
    player: str,
    number: int,
    since: str,
    until: str,
    first: Sequence[Sequence] | None = None,
) -> int:
    """The player's matches (up to match `number`) dated in [since, until], counted up to `RECENT_CAP`.

    Walks the player's history by match number downwards (its primary key), `_WALK` rows a step (`first`: the
    first step's rows when already read): a row whose ``last_date`` (the latest date of the player's
    matches up to that row) is before `since` ends the walk, as every match before it is older still. Exact
    whatever order the matches' dates came in.
    """
    count, below = 0, number + 1
    rows = first
    while True:
        if rows is None:
            rows = conn.execute(
                "SELECT number, match_date, last_date FROM rating_history"
                " WHERE subset_id = ? AND player = ? AND number < ? ORDER BY number DESC LIMIT ?",
                (subset_id, player, below, _WALK),
            ).fetchall()
        decided, count, below = _walk(rows, since, until, count)
        if decided:
            return count
        rows = None


def _recents(
    conn: Conn, subset_id: int, players: Sequence[str], number: int, since: str, until: str
) -> dict[str, int]:
    """`_recent` of each of `players` (one statement each: measured faster than one statement for all)."""
    return {pid: _recent(conn, subset_id, pid, number, since, until) for pid in players}


_STANDINGS_AT = (
    # Players whose latest match is at or before n: their current row is their standing then.
    "SELECT c.player, p.sort_key, c.ree, c.best_ree, c.played, c.last_date"
    " FROM rating_current c JOIN players p ON p.id = c.player"
    " WHERE c.subset_id = ? AND c.bot = 0 AND c.number <= ?"
    " UNION ALL"
    # The others (they played after n, and first at or before n): one primary-key lookup each.
    " SELECT c.player, p.sort_key, h.ree, h.best_ree, h.played, h.last_date"
    " FROM rating_current c JOIN players p ON p.id = c.player"
    " JOIN rating_history h ON h.subset_id = c.subset_id AND h.player = c.player AND h.number = ("
    "  SELECT max(x.number) FROM rating_history x"
    "  WHERE x.subset_id = c.subset_id AND x.player = c.player AND x.number <= ?)"
    " WHERE c.subset_id = ? AND c.bot = 0 AND c.number > ? AND c.first_number <= ?"
    # By position (see `_key`): both engines compare text byte-wise, as Python compares code points.
    " ORDER BY 3 DESC, 5 DESC, 2, 1"
)


def _standings_at(conn: Conn, subset_id: int, number: int) -> list[tuple]:
    """Every listed (non-bot) player's standing after match `number`, by position.

    Rows of (player, sort key, ree, best ree, played, last date).
    """
    return conn.execute(_STANDINGS_AT, (subset_id, number, number, subset_id, number, number)).fetchall()


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
    if not isinstance(conn, sqlite3.Connection):
        # PostgreSQL ordered the text it stores, escaped where it held NUL (see `pg.escape`): sorted again
        # in Python's order (linear on an ordered list). SQLite's order is Python's already.
        ranked.sort(key=_row_key)
    # Before the match, only its participants stood elsewhere (or not at all, for a newcomer).
    wanted = set(participants)
    moved = {r[0]: i for i, r in enumerate(ranked) if r[0] in wanted}
    before = {pid: _standing_at(conn, subset_id, pid, number - 1) for pid in moved}
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
    active = [ranked[i][0] for i in shown if ranked[i][5] >= since]  # the others played none in the window
    recents = _recents(conn, subset_id, active, number, since, reference)
    rows = []
    for i in shown:
        pid, _, ree, best_ree, played, last_date = ranked[i]
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
