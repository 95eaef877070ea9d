"""The held matches' marks: (id, number, date) of each readable held match by number, read from the stats rows
(no JSON parsed, through the date index when a window is asked). A copy of what was worked out from the held
matches (a story walked, a season's standings: `rankterm.stats.kept`) is checked against them: the same marks,
the same matches. See docs/design/mirror.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from rankterm.mirror.mirror import Mirror


class MatchMark(NamedTuple):
    """A held match as a kept copy knows it."""

    id: str
    number: int
    date: str


def match_marks(mirror: Mirror, *, since: str | None = None, until: str | None = None) -> list[MatchMark]:
    """The marks of the held matches whose every faction could be read, by number; dated at or after `since`
    and before `until` ("YYYY-MM-DD HH:MM:SS") when given."""
    sql, args = "SELECT id, number, date FROM stat_matches WHERE readable", list[Any]()
    if since is not None:
        sql, args = sql + " AND date >= ?", [*args, since]
    if until is not None:
        sql, args = sql + " AND date < ?", [*args, until]
    sql += " ORDER BY number"
    db = mirror.file
    return db.guard(
        lambda: [MatchMark(str(i or ""), int(n), str(d or "")) for i, n, d in db.db.execute(sql, args)], []
    )
