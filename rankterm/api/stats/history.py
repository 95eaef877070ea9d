"""Ree and position over time, read from the standings after past matches: few calls, cached forever.

The standings after match n never change once later matches exist (the mirror keeps those pages forever), so
a chart fetches only the match numbers it draws: a player's own matches, thinned to at most `max_points`
with a stable rule (every k-th match, k a power of two, plus the latest), so that a new match adds one point
and never asks again for the others. For each number the page holding the player is guessed from their
position at the previous point, so a point usually costs one call.

Quota: at most `quota_share` of the hourly ranking-call quota is spent on history. The quota endpoint gives
percentages only, so the budget is kept in points of `rankingCallsPerHour`: its value when history first
spent in this hour is the baseline (kept in the mirror), and calls go out in rounds, the quota read again
after each, sized from the cost per call seen so far, stopping before the meter could pass baseline + share.
What is not loaded now is loaded by the next call (`History.loaded` < `History.wanted`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankterm.api.client import RankingClient

DEFAULT_SHARE = 0.25
"""Share of the hourly ranking-call quota history may spend."""


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A player's ree and position in the standings after match `match_number` (played at `date`)."""

    match_number: int
    date: str
    ree: float
    position: int


@dataclass(frozen=True, slots=True)
class History:
    """The points loaded (oldest first), how many were wanted, and why loading stopped short, if it did:
    "quota" (the share of the hour is spent, or the service refused), "offline", or None."""

    points: list[HistoryPoint]
    loaded: int
    wanted: int
    stopped: str | None = None

    @property
    def complete(self) -> bool:
        return self.loaded >= self.wanted


@dataclass(frozen=True, slots=True)
class ReeAround:
    """Ree of players just before and just after matches: `before[(number, player id)]`, `after[...]`,
    for the matches whose standings are loaded (`loaded` of `wanted`); `stopped` as in `History`."""

    before: dict[tuple[int, str], float] = field(default_factory=dict)
    after: dict[tuple[int, str], float] = field(default_factory=dict)
    loaded: int = 0
    wanted: int = 0
    stopped: str | None = None


def thin(numbers: list[int], max_points: int) -> list[int]:
    """At most `max_points` of `numbers` (in order): every k-th from the first, k the smallest power of two
    that fits, plus the last. Stable: a number picked stays picked when more are appended (until k doubles,
    when the new picks are a subset of the old)."""
    raise NotImplementedError


async def player_history(
    client: RankingClient,
    player_id: str,
    *,
    subset: str | None = None,
    max_points: int = 60,
    quota_share: float = DEFAULT_SHARE,
) -> History:
    """The player's ree and position after their matches (in `subset`; None = the main subset: all matches),
    thinned to at most `max_points`; the matches come from the mirror (`source.group_matches`)."""
    raise NotImplementedError


async def ree_around(
    client: RankingClient,
    numbers: Iterable[int],
    *,
    quota_share: float = DEFAULT_SHARE,
) -> ReeAround:
    """Ree before and after each of the matches `numbers` (main subset) for their players: the standings
    after match n give ree after it and `deltaRee` (ree before = ree - deltaRee), one read per match."""
    raise NotImplementedError
