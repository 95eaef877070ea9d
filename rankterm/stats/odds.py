"""Each faction's chance of finishing first, exact for the rating model: the minute before a match.

A faction's performance in a match is an independent normal ``N(Σmu, Σsigma² + beta²)`` (its players' skills
summed, the model's ``beta`` of chance on top), and it finishes first when its performance is the highest.
For two factions that is the closed form ``Φ(Δmu / √(2·beta² + sigma_a² + sigma_b²))``; for more it is the one-dimensional
integral ``P(i first) = ∫ φᵢ(x) Πⱼ≠ᵢ Φⱼ(x) dx``, computed here by Simpson's rule on one grid shared by every
faction (each integrand is smooth on the scale of the narrowest faction's spread, and the grid's step is a
third of it). openskill's own ``predict_win`` averages pairwise chances for more than two teams, which says
47 % where this says 85 % for a 35 against 25/25/25: the difference is why this module exists.

Pure functions, no I/O; `rankterm.stats.teams` asks these chances of every split it weighs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rankterm.wire.rating import BETA, Skill

__all__ = ["REACH", "STEPS_PER_SD", "Side", "chances_first", "normal_cdf", "side_of", "spread"]

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
REACH = 6.0
"""How many standard deviations around the leader the integral covers (beyond it: < 1e-9 of the mass)."""
STEPS_PER_SD = 3.0
"""Grid points per standard deviation of the narrowest faction: within 1e-8 of a grid twice as fine."""


@dataclass(frozen=True, slots=True)
class Side:
    """A faction as the odds see it: the sum of its players' mu and √(Σ sigma²)."""

    mu: float
    sigma: float


def side_of(skills: Iterable[Skill]) -> Side:
    """The faction of players with `skills` (mu summed, sigma added in quadrature)."""
    listed = list(skills)
    if not listed:
        raise ValueError("a faction needs at least one player")
    return Side(math.fsum(s.mu for s in listed), math.sqrt(math.fsum(s.sigma * s.sigma for s in listed)))


def spread(side: Side, beta: float = BETA) -> float:
    """The standard deviation of `side`'s performance in one match."""
    return math.sqrt(side.sigma * side.sigma + beta * beta)


def normal_cdf(z: float) -> float:
    """Φ(z), the standard normal's cumulative distribution."""
    return 0.5 * math.erfc(-z / _SQRT2)


def chances_first(sides: Sequence[Side], beta: float = BETA) -> list[float]:
    """Each side's chance of finishing first, in the order given; they sum to 1.

    Raises:
        ValueError: fewer than two sides, or a side whose mu or sigma is not finite (or sigma < 0).
    """
    if len(sides) < 2:
        raise ValueError(f"odds need at least two factions, got {len(sides)}")
    for side in sides:
        if not (math.isfinite(side.mu) and math.isfinite(side.sigma) and side.sigma >= 0):
            raise ValueError(f"a faction's skill is not a number: {side!r}")
    spreads = [spread(side, beta) for side in sides]
    if len(sides) == 2:
        a, b = sides
        p = normal_cdf((a.mu - b.mu) / math.hypot(spreads[0], spreads[1]))
        return [p, 1.0 - p]
    return _integrated(sides, spreads)


def _integrated(sides: Sequence[Side], spreads: Sequence[float]) -> list[float]:
    n = len(sides)
    mus = [side.mu for side in sides]
    widest = max(spreads)
    leader = max(mus)
    # Whoever finishes first beats the leader, whose performance is within REACH of its mu but for < 1e-15.
    low = leader - REACH * widest
    high = max(mu + REACH * s for mu, s in zip(mus, spreads, strict=True))
    steps = math.ceil((high - low) / (min(spreads) / STEPS_PER_SD))
    steps += steps % 2  # Simpson's rule takes an even number of intervals
    h = (high - low) / steps
    inverse = [1.0 / (s * _SQRT2) for s in spreads]
    density = [_INV_SQRT_2PI / s for s in spreads]
    totals = [0.0] * n
    below = [0.0] * n
    prefix = [1.0] * (n + 1)
    for k in range(steps + 1):
        x = low + k * h
        weight = 1.0 if k in (0, steps) else (4.0 if k % 2 else 2.0)
        for j in range(n):
            below[j] = 0.5 * math.erfc((mus[j] - x) * inverse[j])
            prefix[j + 1] = prefix[j] * below[j]
        suffix = 1.0
        for i in range(n - 1, -1, -1):
            z = (x - mus[i]) * inverse[i]
            totals[i] += weight * density[i] * math.exp(-z * z) * prefix[i] * suffix
            suffix *= below[i]
    whole = math.fsum(totals)
    return [t / whole for t in totals]
