"""Points against ranks: a result that contradicts itself, one faction with more points ranked below another.

The service records such a match (ranks decide the standings; points are the table's record), so it is no
problem of the judge's (`new_match.read_match`); the match form asks about it once before sending. Pure: the
factions in, the first pair that disagrees out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from rankterm.wire.new_match import NewFaction

__all__ = ["Disagreement", "points_against_ranks"]


class Disagreement(NamedTuple):
    """Two factions (indexes in the match) whose points and ranks disagree."""

    higher: int
    """The faction with more points, ranked below `lower`."""
    lower: int
    """The faction with fewer points, ranked above `higher`."""


def _points(faction: NewFaction) -> float | None:
    """A faction's points as a number; None when it has none (or they are not a finite number)."""
    if not faction.points:
        return None
    try:
        value = float(faction.points)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def points_against_ranks(factions: Sequence[NewFaction]) -> Disagreement | None:
    """The first faction (in the match's order) with more points than another but a worse (greater) rank, and
    that other; None when the points, where both factions have some, follow the ranks (ties either way
    agree)."""
    read = [(index, faction.rank, _points(faction)) for index, faction in enumerate(factions)]
    scored = [(index, rank, points) for index, rank, points in read if points is not None]
    for index, rank, points in scored:
        for other, other_rank, other_points in scored:
            if points > other_points and rank > other_rank:
                return Disagreement(index, other)
    return None
