"""Where a player stands, as rankterm shows it: equal ree, equal place.

The service numbers its standings 1..N without ties (WIRE.md's `position`, which the JSON of the command
line keeps as sent). Everywhere rankterm shows a position (the rankings screen, the board, the command line's
tables, a match's effect), players with exactly equal ree share the best of their positions, as tied
factions share a place in a match: standard competition ranking, "1224".

    shared_positions([(1, 1900.0), (2, 1793.3), (3, 1793.3), (4, 1700.0)])   # [1, 2, 2, 4]
    shown_positions(page.data)   # {player id: position shown}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankterm.wire.models import RankingRow


def shared_positions(rows: Sequence[tuple[int, float | None]]) -> list[int]:
    """Each (position, ree)'s position as shown: the smallest position among the rows of the same ree (a
    row without a ree keeps its own). Rows of one standings, in any order and not necessarily all of it."""
    best: dict[float, int] = {}
    for position, ree in rows:
        if ree is not None:
            best[ree] = min(position, best.get(ree, position))
    return [position if ree is None else best[ree] for position, ree in rows]


def shown_positions(rows: Iterable[RankingRow]) -> dict[str, int]:
    """The position shown for each player of `rows` (rows of one standings), by player id."""
    listed = list(rows)
    pairs = [(r.position, None if r.ree is None else float(r.ree)) for r in listed]
    return {r.player.id: shown for r, shown in zip(listed, shared_positions(pairs), strict=True)}
