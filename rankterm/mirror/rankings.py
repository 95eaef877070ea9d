"""The rankings cache: standings pages as read, by (subset, match, page). Those marked final (after a match
that is no longer the latest of its subset) are answered forever, until a rewrite of the history drops those
after its earliest change; the others only while the service is gone."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rankterm.mirror.file import MirrorFile, dumps

LAST = -1
"""The `match` key of rankings pages read for the latest match (`rankings/last`)."""


@dataclass(frozen=True, slots=True)
class HeldPage:
    """A rankings page as the mirror holds it."""

    body: Any
    final: bool
    fetched_at: float


class RankingsCache:
    """The standings pages held in the mirror file."""

    def __init__(self, file: MirrorFile) -> None:
        self._file = file

    # ------------------------------------------------------------------ rankings pages

    def rankings(self, subset: str, match: int, page: int) -> HeldPage | None:
        """The rankings page held for (subset, match or LAST, page), if any."""
        row = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT body, final, fetched_at FROM rankings WHERE subset = ? AND match = ? AND page = ?",
                (subset, match, page),
            ).fetchone(),
            None,
        )
        return HeldPage(json.loads(row[0]), bool(row[1]), row[2]) if row else None

    def rankings_pages(self, subset: str, match: int) -> dict[int, HeldPage]:
        """Every page held for (subset, match or LAST), by page number."""
        rows: list[Any] = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT page, body, final, fetched_at FROM rankings WHERE subset = ? AND match = ?",
                (subset, match),
            ).fetchall(),
            [],
        )
        return {int(r[0]): HeldPage(json.loads(r[1]), bool(r[2]), r[3]) for r in rows}

    def put_rankings(self, subset: str, match: int, page: int, body: Any, *, final: bool) -> None:
        def write() -> None:
            self._file.db.execute(
                "INSERT OR REPLACE INTO rankings VALUES (?, ?, ?, ?, ?, ?)",
                (subset, match, page, int(final), self._file.clock(), dumps(body)),
            )

        self._file.guard(write, None)

    def drop_rankings_from(self, first: int) -> None:
        """Drop the standings held after match `first` and later, of every subset (final or not), and the
        latest standings: a match played before them arrived. Those after earlier matches stay."""

        def write() -> None:
            self._file.db.execute("DELETE FROM rankings WHERE match >= ? OR match = ?", (first, LAST))

        self._file.guard(write, None)
