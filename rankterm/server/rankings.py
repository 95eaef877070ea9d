"""Ratings of the embedded service: recorded per subset after every match, read back as standings.

Recording a match (`record`) costs O(participants): the latest skill of each participant comes from
``rating_current`` (primary key lookups), `rating.rate_match` gives the new skills, and each participant
gets one ``rating_history`` row (subset, player, match number) plus its ``rating_current`` row updated.
Matches are rated in order of acceptance (their group-wide number).

Reading the standings after match n (`standings`, `standings_page`) never scans the history: for each
player of the subset it is one index lookup (the latest history row with ``number <= n``, all players in one
statement), plus the "before" value of the few players of that match; then, only for the rows of the page
asked for, a count of the player's matches of the last 30 days for the activity status, which stops at
`RECENT_CAP` (12: more never changes the status), so it is bounded too.

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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rankterm.api.models import Player, RankingRow
from rankterm.server import rating
from rankterm.server.conn import Conn
from rankterm.server.players import load_players
from rankterm.server.wire import format_time, parse_time

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
            " best_ree, played, last_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (subset_id, player) DO UPDATE SET bot = excluded.bot,"
            " first_number = excluded.first_number, number = excluded.number, mu = excluded.mu,"
            " sigma = excluded.sigma, best_ree = excluded.best_ree, played = excluded.played,"
            " last_date = excluded.last_date",
            (subset_id, key, int(key in bots), first, number, skill.mu, skill.sigma, best, played, last),
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


def _order(standings: dict[str, _Standing], players: Mapping[str, Player]) -> list[str]:
    def key(pid: str) -> tuple:
        s = standings[pid]
        return (-s.ree, -s.played, players[pid].display_name.casefold(), pid)

    return sorted(standings, key=key)


RECENT_CAP = rating.VERY_ACTIVE_MIN_MATCHES
"""Matches in the status window are counted up to this many: more never changes the status."""


def _recent(conn: Conn, subset_id: int, player: str, number: int, since: str, until: str) -> int:
    """The player's matches (up to match `number`) dated in [since, until], counted up to `RECENT_CAP`."""
    return conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM rating_history WHERE subset_id = ? AND player = ?"
        " AND match_date >= ? AND match_date <= ? AND number <= ? LIMIT ?) AS recent",
        (subset_id, player, since, until, number, RECENT_CAP),
    ).fetchone()[0]


def _standings_at(conn: Conn, subset_id: int, number: int) -> dict[str, _Standing]:
    """Every listed (non-bot) player's standing after match `number`: one statement, one index lookup each."""
    rows = conn.execute(
        "SELECT c.player, h.ree, h.best_ree, h.played, h.last_date FROM rating_current c"
        " JOIN rating_history h ON h.subset_id = c.subset_id AND h.player = c.player AND h.number = ("
        "  SELECT max(x.number) FROM rating_history x"
        "  WHERE x.subset_id = c.subset_id AND x.player = c.player AND x.number <= ?)"
        " WHERE c.subset_id = ? AND c.bot = 0 AND c.first_number <= ?",
        (number, subset_id, number),
    )
    return {row[0]: _Standing(*row[1:]) for row in rows}


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

    Positions and deltas count every ranked player; only the rows asked for are built (activity status,
    belt, title), so a page of a large subset costs about as much as a page of a small one.
    """
    after = _standings_at(conn, subset_id, number)
    players = load_players(conn, after)
    after = {pid: s for pid, s in after.items() if pid in players}
    before = dict(after)
    for pid in set(participants) & after.keys():
        previous = _standing_at(conn, subset_id, pid, number - 1)
        if previous is None:
            del before[pid]
        else:
            before[pid] = previous
    position_before = {pid: i for i, pid in enumerate(_order(before, players), start=1)}
    ranked = _order(after, players)
    shown = ranked[offset:] if limit is None else ranked[offset : offset + limit]
    ref_time = parse_time(reference)
    since = format_time(ref_time - STATUS_WINDOW_DAYS * 86400)
    rows = []
    for position, pid in enumerate(shown, start=offset + 1):
        s = after[pid]
        old = before.get(pid)
        recent = _recent(conn, subset_id, pid, number, since, reference)
        days = max(0.0, (ref_time - parse_time(s.last_date)) / 86400)
        belt, belt_label = rating.belt_for(s.best_ree, s.played)
        title, title_label = rating.title_for(position, len(ranked))
        status, status_label = rating.status_for(recent, days)
        rows.append(
            RankingRow(
                player=players[pid],
                ree=s.ree,
                delta_ree=round(s.ree - (old.ree if old else NEWCOMER_REE), 2),
                position=position,
                delta_position=position_before[pid] - position if pid in position_before else 0,
                belt=belt,
                belt_label=belt_label,
                title=title,
                title_label=title_label,
                status=status,
                status_label=status_label,
            )
        )
    return len(ranked), rows
