"""Ree and position over time, read from the standings after past matches: few calls, cached.

The standings after match n change only when a match played before it arrives (the mirror keeps those pages
until its sync finds such a match, then drops those after it; `source.sync_group` runs first), so
a chart fetches only the match numbers it draws: a player's own matches, thinned to at most `max_points`
with a stable rule (every k-th match, k a power of two, plus the latest), so that a new match adds one point
and never asks again for the others. For each number the page holding the player is guessed from their
position at the nearest point already found (and their ree there says whether to look up or down when the
guess misses), so a point usually costs one call.

Quota: at most `quota_share` of the hourly ranking-call quota is spent (`budget.QuotaBudget`: calls go out
in rounds, the quota read before each). Pages already held in the mirror cost nothing, final or not (ree and
position after a match never change; only the activity status of the latest standings does), so a second
open with nothing new makes no request. What is not loaded now is loaded by the next call
(`History.loaded` < `History.wanted`), the coarse points first (the first, the latest, then halfway ...), so
a chart cut short by the quota still spans the whole time.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rankterm.stats.budget import QuotaBudget
from rankterm.stats.compact import CompactMatch, player_matches
from rankterm.stats.rules import player_ids
from rankterm.stats.source import matches_numbered, sync_group
from rankterm.wire.errors import NotFound, Offline, QuotaError

if TYPE_CHECKING:
    from rankterm.mirror import Group

DEFAULT_SHARE = 0.25
"""Share of the hourly ranking-call quota history may spend."""

ROWS_PER_PAGE = 25
"""Rows of a rankings page until one is seen (WIRE.md: 25 seen)."""

OFFLINE, QUOTA = "offline", "quota"


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A player's ree and position in the standings after match `match_number` (played at `date`)."""

    match_number: int
    date: str
    ree: float
    position: int


@dataclass(frozen=True, slots=True)
class History:
    """The points loaded (in match order, oldest first), how many were wanted, and why loading stopped
    short, if it did: "quota" (the share of the hour is spent, or the service refused), "offline", or None."""

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
    for the matches whose standings are loaded (`loaded` of `wanted`); `stopped` as in `History`. `new`:
    the (number, player id) of a player's first ranked match (not in the standings just before it: their
    ree before is the one every newcomer starts at)."""

    before: dict[tuple[int, str], float] = field(default_factory=dict)
    after: dict[tuple[int, str], float] = field(default_factory=dict)
    loaded: int = 0
    wanted: int = 0
    stopped: str | None = None
    new: frozenset[tuple[int, str]] = frozenset()


def thin(numbers: list[int], max_points: int) -> list[int]:
    """At most `max_points` of `numbers` (in order): every k-th from the first, k the smallest power of two
    that fits, plus the last. Stable: a number picked stays picked when more are appended (until k doubles,
    when the new picks are a subset of the old)."""
    if max_points <= 0 or not numbers:
        return []
    if len(numbers) <= max_points:
        return list(numbers)
    if max_points == 1:
        return [numbers[-1]]
    k = 1
    while math.ceil(len(numbers) / k) + 1 > max_points:
        k *= 2
    picks = numbers[::k]
    if picks[-1] != numbers[-1]:
        picks.append(numbers[-1])
    return picks


def coarse_first(count: int) -> list[int]:
    """Indexes 0..count-1, the last and the first first, then by halving: a chart cut short spans the time."""
    if count <= 0:
        return []
    order = [count - 1, 0] if count > 1 else [0]
    seen = set(order)
    step = 1 << max(0, (count - 1).bit_length())
    while step >= 1:
        for i in range(0, count, step):
            if i not in seen:
                seen.add(i)
                order.append(i)
        step //= 2
    return order


@dataclass(frozen=True, slots=True)
class _Row:
    player_id: str
    ree: float | None
    delta: float | None
    position: int


def _number(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _raw_row(raw: Any) -> _Row | None:
    """A row of a held page as the service sent it, read leniently."""
    if not isinstance(raw, dict) or not isinstance(raw.get("player"), dict):
        return None
    position = _number(raw.get("position"))
    return _Row(
        str(raw["player"].get("id", "")),
        _number(raw.get("ree")),
        _number(raw.get("deltaRee")),
        int(position) if position is not None else 0,
    )


@dataclass
class _Want:
    """One match's standings, and the players whose rows are still to be found in them.

    `guess`: the page to try first; `estimate`: the ree the one missing player is thought to have (from a
    nearby point), which tells, when the guessed page does not hold them, whether to look above or below."""

    number: int
    missing: set[str]
    guess: int = 1
    estimate: float | None = None
    total_pages: int | None = None
    tried: set[int] = field(default_factory=set)
    found: dict[str, _Row] = field(default_factory=dict)
    spans: dict[int, tuple[float, float]] = field(default_factory=dict)

    def take(self, rows: Iterable[_Row], page: int, total_pages: int) -> None:
        self.tried.add(page)
        self.total_pages = max(1, total_pages)
        rees = []
        for row in rows:
            if row.ree is not None:
                rees.append(row.ree)
            if row.player_id in self.missing:
                self.missing.discard(row.player_id)
                self.found[row.player_id] = row
        if rees:
            self.spans[page] = (min(rees), max(rees))

    @property
    def settled(self) -> bool:
        """Every player found, or every page looked at."""
        return not self.missing or (
            self.total_pages is not None
            and len(self.tried & set(range(1, self.total_pages + 1))) >= self.total_pages
        )

    def next_page(self) -> int:
        """The untried page nearest the guess, on the side the estimate points to (below it otherwise)."""
        last = self.total_pages if self.total_pages is not None else self.guess
        guess = min(max(1, self.guess), max(1, last))
        step = -1
        span = self.spans.get(guess)
        if span is not None and self.estimate is not None and self.estimate < span[0]:
            step = 1  # lower ree than everyone on the guessed page: further down the standings
        for distance in range(0, last + 1):
            for page in (guess + step * distance, guess - step * distance):
                if 1 <= page <= last and page not in self.tried:
                    return page
        return guess


def _look_held(group: Group, key: str, want: _Want) -> None:
    """Take the rows of the missing players from the pages the mirror holds for this match (no request)."""
    for page, held in sorted(group.mirror.rankings.rankings_pages(key, want.number).items()):
        body = held.body if isinstance(held.body, dict) else {}
        data = body.get("data")
        total = _number(body.get("totalPages"))
        rows = []
        for raw in data if isinstance(data, list) else []:
            player = raw.get("player") if isinstance(raw, dict) else None
            if isinstance(player, dict) and str(player.get("id", "")) in want.missing:
                row = _raw_row(raw)
                if row is not None:
                    rows.append(row)
        want.take(rows, page, int(total) if total else 1)


Guess = Callable[[_Want], None]
"""Sets a want's `guess` and `estimate` from what is found so far."""


async def _load(
    group: Group,
    wants: list[_Want],
    subset: str | None,
    share: float,
    guess: Guess | None = None,
) -> str | None:
    """Find the wanted rows: held pages first, then the service within the budget, in the order of `wants`.

    Each grant of the budget is spent in waves asked concurrently. With `guess` (one player's points), a wave
    is at most as large as the points found so far (2 at first), so that each later point guesses its page
    from a found neighbour close in time. Returns why it stopped short (`OFFLINE`, `QUOTA`) or None."""
    key = subset or ""

    def look_held() -> None:  # in a thread: a query and the held pages parsed a point
        for want in wants:
            _look_held(group, key, want)

    await asyncio.to_thread(look_held)
    pending = [w for w in wants if not w.settled]
    if not pending:
        return None
    budget = QuotaBudget(group, share)
    gate = asyncio.Semaphore(max(1, group.client.concurrency))

    async def one(want: _Want, page: int) -> Any:
        async with gate:
            return await group.rankings_page(page, subset=subset, match=want.number)

    while pending:
        try:
            left = await budget.grant()
        except Offline:
            return OFFLINE
        if left <= 0:
            return QUOTA
        while left > 0 and pending:
            size = left
            if guess is not None:
                size = min(left, max(2, sum(1 for w in wants if w.found)))
                for want in pending[:size]:
                    guess(want)
            batch = [(w, w.next_page()) for w in pending[:size]]
            answers = await asyncio.gather(*(one(w, p) for w, p in batch), return_exceptions=True)
            budget.spent(len(batch))
            left -= len(batch)
            stopped: str | None = None
            for (want, page), answer in zip(batch, answers, strict=True):
                if isinstance(answer, Offline):
                    stopped = OFFLINE
                elif isinstance(answer, QuotaError):
                    stopped = stopped or QUOTA
                elif isinstance(answer, NotFound):
                    want.take([], page, 0)  # no such standings: settled, nothing found
                    want.missing.clear()
                elif isinstance(answer, BaseException):
                    raise answer  # any other refusal is the caller's to show
                else:
                    rows = [_Row(str(r.player.id), r.ree, r.delta_ree, r.position) for r in answer.data]
                    want.take(rows, page, answer.total_pages)
            if stopped is not None:
                return stopped
            pending = [w for w in pending if not w.settled]
    return None


async def _matches_of(
    group: Group, player_id: str, subset: str | None
) -> tuple[list[CompactMatch], str | None]:
    """The player's matches that make `subset` (all for the main subset, a custom one or an unknown one), and
    the subset id to ask rankings for (None for the main subset)."""
    await sync_group(group)
    matches = await asyncio.to_thread(player_matches, group, player_id)  # thousands for a busy player
    if subset is None:
        return matches, None
    subsets = group.cached_subsets()
    if not any(s.id == subset for s in subsets):
        try:
            subsets = await group.subsets()
        except Offline:
            subsets = []
    held = next((s for s in subsets if s.id == subset), None)
    if held is not None and held.game is not None and not held.is_main and not held.is_custom:
        game = held.game.id
        return [m for m in matches if m.game is not None and m.game.id == game], subset
    return matches, subset


async def player_history(
    group: Group,
    player_id: str,
    *,
    subset: str | None = None,
    max_points: int = 60,
    quota_share: float = DEFAULT_SHARE,
) -> History:
    """The player's ree and position after their matches (in `subset`; None = the main subset: all matches),
    thinned to at most `max_points` (`thin`); the matches come from the mirror, synced (`source.sync_group`).

    Raises `Offline` only when the mirror has never held the group's matches; otherwise what is held is
    returned and `stopped` says why the rest is missing."""
    mine, asked = await _matches_of(group, player_id, subset)
    dates = {m.number: m.date for m in mine}
    picks = thin([m.number for m in mine], max_points)
    wants = {n: _Want(n, {player_id}) for n in picks}
    ordered = [wants[picks[i]] for i in coarse_first(len(picks))]
    stopped = await _load(group, ordered, asked, quota_share, _nearest_page(ordered, player_id))
    points = []
    for n in picks:
        row = wants[n].found.get(player_id)
        if row is not None and row.ree is not None:
            points.append(HistoryPoint(n, dates[n], row.ree, row.position))
    loaded = sum(1 for w in wants.values() if w.settled)
    return History(points, loaded, len(picks), stopped if loaded < len(picks) else None)


def _nearest_page(wants: list[_Want], player_id: str) -> Guess:
    """Guess the page holding the player after a match, and their ree, from the found point nearest in
    match number (page 1 and no estimate while none is found)."""

    def guess(want: _Want) -> None:
        known = [(w.number, w.found[player_id]) for w in wants if player_id in w.found]
        if not known:
            return
        _, row = min(known, key=lambda k: abs(k[0] - want.number))
        if row.position:
            want.guess = max(1, math.ceil(row.position / ROWS_PER_PAGE))
        want.estimate = row.ree

    return guess


async def ree_around(
    group: Group,
    numbers: Iterable[int],
    *,
    quota_share: float = DEFAULT_SHARE,
) -> ReeAround:
    """Ree before and after each of the matches `numbers` (main subset) for their players.

    After match n: the standings after n. Before it: the standings after the match before it (n - 1, when the
    mirror holds it), so an evening of consecutive matches costs one read more than its matches; a player
    not yet ranked there (their first match), or a match whose previous one is not held, takes ree - deltaRee
    from the standings after n (`deltaRee` is the change since the standings before the match). The matches'
    players come from the mirror (`source.matches_numbered`: sync it first)."""
    asked = set(numbers)
    held = {m.number: m for m in matches_numbered(group, asked | {n - 1 for n in asked})}
    evening = sorted(n for n in asked if n in held)
    players = {n: {q for f in held[n].factions for q in player_ids(f)} for n in evening}
    wants: dict[int, _Want] = {}
    for n in evening:
        wants.setdefault(n, _Want(n, set())).missing |= players[n]
        if n - 1 in held:
            wants.setdefault(n - 1, _Want(n - 1, set())).missing |= players[n]
    order = sorted(wants)  # the match before the evening first: the page guesses do not matter here
    stopped = await _load(group, [wants[n] for n in order], None, quota_share)
    before: dict[tuple[int, str], float] = {}
    after: dict[tuple[int, str], float] = {}
    new: set[tuple[int, str]] = set()
    loaded = 0
    for n in evening:
        prior = wants.get(n - 1) if n - 1 in held else None
        loaded += wants[n].settled and (prior is None or prior.settled)
        for q in players[n]:
            row = wants[n].found.get(q)
            if row is not None and row.ree is not None:
                after[(n, q)] = row.ree
            earlier = prior.found.get(q) if prior is not None else None
            if earlier is not None and earlier.ree is not None:
                before[(n, q)] = earlier.ree
            elif (
                row is not None
                and row.ree is not None
                and row.delta is not None
                and (prior is None or prior.settled)
            ):
                before[(n, q)] = round(row.ree - row.delta, 2)
                if prior is not None:  # read to its end, without them: they entered with this match
                    new.add((n, q))
    stop = stopped if loaded < len(evening) else None
    return ReeAround(before, after, loaded, len(evening), stop, frozenset(new))
