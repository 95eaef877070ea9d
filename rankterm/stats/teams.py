"""The fairest ways to split the players at the table into teams, each with its odds.

Every split of the players into `teams` teams whose sizes differ by at most one is weighed (15,400 for twelve
players in four teams of three), teams unordered. Fairness: for two teams, how far the first team's chance of
finishing first is from a coin toss (|P - 0.5|, smaller is fairer); for more, the smallest chance of finishing
first among the teams (larger is fairer: nobody is there only to make up the numbers). Equal fairness is broken
by how many of the last evening's teammate pairings the split repeats (fewer first).

Exhaustive and still quick: the splits of twelve players share only a few hundred distinct teams, so each
team's performance density and distribution are worked out once on one grid shared by every split
(`rankterm.stats.odds`'s integral, its step a third of the narrowest spread), and weighing a split is only
products and sums of those columns. The splits chosen are then given their chances by `chances_first` itself.
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from rankterm.stats.odds import REACH, STEPS_PER_SD, chances_first, normal_cdf, side_of, spread
from rankterm.wire.localtime import parse_wire_date
from rankterm.wire.models import Match
from rankterm.wire.rating import BETA, Skill

__all__ = ["EVENING_HOURS", "Split", "fairest_splits", "last_evening_pairings", "splits"]

EVENING_HOURS = 12
"""The last evening: the matches of the this many hours before the group's newest."""

_SAME = 1e-7
"""Fairness values closer than this are equal (then fewer repeated pairings wins)."""


@dataclass(frozen=True, slots=True)
class Split:
    """One way to split the players: its teams (player keys, in the order given), each team's chance of
    finishing first, how unfair it is (smaller is fairer) and how many of last evening's pairings it repeats."""

    teams: tuple[tuple[str, ...], ...]
    chances: tuple[float, ...]
    unfairness: float
    repeats: int


def splits(players: Sequence[str], teams: int) -> Iterator[tuple[tuple[str, ...], ...]]:
    """Every split of `players` into `teams` unordered teams whose sizes differ by at most one.

    Raises:
        ValueError: fewer than two teams, or fewer players than teams, or a player named twice.
    """
    if teams < 2:
        raise ValueError("a split needs at least two teams")
    if len(players) < teams:
        raise ValueError(f"{len(players)} players cannot make {teams} teams")
    if len(set(players)) != len(players):
        raise ValueError("a player is named twice")
    small, extra = divmod(len(players), teams)
    memo: dict[tuple[tuple[str, ...], tuple[int, ...]], list[tuple[tuple[str, ...], ...]]] = {}
    yield from _split(tuple(players), (small + 1,) * extra + (small,) * (teams - extra), memo)


def _split(
    rest: tuple[str, ...],
    sizes: tuple[int, ...],
    memo: dict[tuple[tuple[str, ...], tuple[int, ...]], list[tuple[tuple[str, ...], ...]]],
) -> list[tuple[tuple[str, ...], ...]]:
    """The splits of `rest` into teams of `sizes`; the same players left with the same sizes recur under many
    first teams, so each such rest is split once (`memo`)."""
    if not sizes:
        return [()]
    known = memo.get((rest, sizes))
    if known is not None:
        return known
    found: list[tuple[tuple[str, ...], ...]] = []
    first, others = rest[0], rest[1:]
    # The first player left joins a team of each distinct size once: teams of one size are interchangeable.
    for size in sorted(set(sizes), reverse=True):
        left = list(sizes)
        left.remove(size)
        for mates in itertools.combinations(others, size - 1):
            chosen = set(mates)
            remaining = tuple(p for p in others if p not in chosen)
            team = (first, *mates)
            found.extend((team, *tail) for tail in _split(remaining, tuple(left), memo))
    memo[(rest, sizes)] = found
    return found


def fairest_splits(
    skills: Mapping[str, Skill],
    teams: int = 2,
    *,
    best: int = 3,
    pairings: Mapping[frozenset[str], int] | None = None,
    beta: float = BETA,
) -> list[Split]:
    """The `best` fairest splits of the players in `skills` (in its order) into `teams` teams, fairest first.

    `pairings` counts, for a pair of players, how often they were teammates in the last evening's matches.

    Raises:
        ValueError: as `splits` does.
    """
    pairings = pairings or {}
    every = list(splits(list(skills), teams))
    if teams == 2:
        scored = [
            (_two_teams(teams_of, skills, beta), _repeats(teams_of, pairings), teams_of) for teams_of in every
        ]
    else:
        scored = _weighed_on_grid(skills, every, beta, best, pairings)
    scored.sort(key=lambda s: (round(s[0] / _SAME), s[1]))
    chosen = []
    for unfairness, repeats, teams_of in scored[:best]:
        chances = chances_first([side_of(skills[p] for p in team) for team in teams_of], beta)
        chosen.append(Split(teams_of, tuple(chances), unfairness, repeats))
    return chosen


def last_evening_pairings(matches: Sequence[Match]) -> dict[frozenset[str], int]:
    """How often each pair of players were teammates (one faction) in the last evening's `matches` (the
    `EVENING_HOURS` before the newest of them), by player id."""
    dated = [(when, m) for m in matches if (when := parse_wire_date(m.date)) is not None]
    if not dated:
        return {}
    newest = max(when for when, _ in dated)
    pairs: dict[frozenset[str], int] = {}
    for when, match in dated:
        if (newest - when).total_seconds() > EVENING_HOURS * 3600:
            continue
        for faction in match.factions:
            ids = sorted({str(p.id) for p in faction.players})
            for pair in itertools.combinations(ids, 2):
                key = frozenset(pair)
                pairs[key] = pairs.get(key, 0) + 1
    return pairs


def _repeats(teams_of: tuple[tuple[str, ...], ...], pairings: Mapping[frozenset[str], int]) -> int:
    return sum(pairings.get(frozenset(p), 0) for team in teams_of for p in itertools.combinations(team, 2))


def _two_teams(teams_of: tuple[tuple[str, ...], ...], skills: Mapping[str, Skill], beta: float) -> float:
    """How far the first of two teams' chance of finishing first is from a coin toss (the closed form)."""
    a, b = (side_of(skills[p] for p in team) for team in teams_of)
    return abs(normal_cdf((a.mu - b.mu) / math.hypot(spread(a, beta), spread(b, beta))) - 0.5)


def _weighed_on_grid(
    skills: Mapping[str, Skill],
    every: list[tuple[tuple[str, ...], ...]],
    beta: float,
    best: int,
    pairings: Mapping[frozenset[str], int],
) -> list[tuple[float, int, tuple[tuple[str, ...], ...]]]:
    """(unfairness, repeats, split) for the splits of three or more teams that may be among the `best`.

    A split's unfairness is minus its weakest team's chance of finishing first. Splits are weighed in rising
    order of the gap between their strongest and weakest team's mu; a split whose weakest-by-mu team already
    has less chance than the `best`-th fairest so far has less than it at its minimum too, and is left there.
    """
    teams = {team for teams_of in every for team in teams_of}
    sides = {team: side_of(skills[p] for p in team) for team in teams}
    spreads = {team: spread(side, beta) for team, side in sides.items()}
    low = min(side.mu - REACH * spreads[team] for team, side in sides.items())
    high = max(side.mu + REACH * spreads[team] for team, side in sides.items())
    steps = math.ceil((high - low) / (min(spreads.values()) / STEPS_PER_SD))
    steps += steps % 2
    h = (high - low) / steps
    xs = [low + k * h for k in range(steps + 1)]
    simpson = [h / 3.0 * (1.0 if k in (0, steps) else (4.0 if k % 2 else 2.0)) for k in range(steps + 1)]
    below: dict[tuple[str, ...], list[float]] = {}
    density: dict[tuple[str, ...], list[float]] = {}
    for team, side in sides.items():
        s = spreads[team]
        below[team] = [normal_cdf((x - side.mu) / s) for x in xs]
        scale = 1.0 / (s * math.sqrt(2.0 * math.pi))
        density[team] = [
            w * scale * math.exp(-0.5 * ((x - side.mu) / s) ** 2) for w, x in zip(simpson, xs, strict=True)
        ]
    mul = operator.mul

    def chance(i: int, teams_of: tuple[tuple[str, ...], ...]) -> float:
        others = None
        for j, team in enumerate(teams_of):
            if j != i:
                others = below[team] if others is None else list(map(mul, others, below[team]))
        return sum(map(mul, density[teams_of[i]], others or []))

    memo: dict[tuple[tuple[float, float], ...], float] = {}
    mus = {team: side.mu for team, side in sides.items()}
    keys = {team: (round(side.mu, 9), round(side.sigma, 9)) for team, side in sides.items()}
    ordered = sorted(every, key=lambda t: max(mus[x] for x in t) - min(mus[x] for x in t))
    kept: list[tuple[float, int, tuple[tuple[str, ...], ...]]] = []
    leading: list[float] = []  # the `best` largest least-chances so far (a min-heap)
    floor = -1.0
    for teams_of in ordered:
        same = tuple(sorted(keys[t] for t in teams_of))
        least = memo.get(same, math.nan)
        if math.isnan(
            least
        ):  # teams of the same skills in another order (a table of newcomers) weigh the same
            weakest = min(range(len(teams_of)), key=lambda i: mus[teams_of[i]])
            if chance(weakest, teams_of) < floor:
                continue
            least = memo[same] = min(chance(i, teams_of) for i in range(len(teams_of)))
        if least < floor:
            continue
        kept.append((-least, _repeats(teams_of, pairings), teams_of))
        heapq.heappush(leading, least)
        if len(leading) > best:
            heapq.heappop(leading)
        if len(leading) == best:
            floor = leading[0] - 2 * _SAME  # within _SAME of the last kept, repeats may still decide
    return [k for k in kept if -k[0] >= floor]
