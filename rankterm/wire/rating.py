"""The rating rules of the embedded ranking service: match results in, skills, ree, belts, titles, status out.

Pure functions only: no I/O, no SQL, no HTTP, the same outputs for the same inputs. The service's store calls
:func:`rate_match` once per match and keeps the skills; the table's model (rankterm.stats.model) replays a
group's held history with the same rules. Skills follow openskill's Bradley-Terry full-pairing model, the
update divided by the number of factions less one and scaled by the match weight; a bot faction is rated as
copies of one bot; ree is a smooth curve of ``mu - sigma``, always above 1000.

Every rule, its formula and its thresholds: docs/standings.md ("The rating rules in full").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from openskill.models import BradleyTerryFull

__all__ = [
    "BELTS",
    "BETA",
    "K_SIGMA",
    "RATING_MODEL",
    "REE_REFERENCE",
    "REE_SCALE",
    "STATUSES",
    "TITLES",
    "WEIGHT_FACTORS",
    "BeltRule",
    "FactionResult",
    "Skill",
    "belt_for",
    "initial_skill",
    "rate_match",
    "ree",
    "status_for",
    "title_for",
]

WEIGHT_FACTORS: dict[str, float] = {
    "ultralight": 0.25,
    "light": 0.5,
    "midlight": 0.75,
    "normal": 1.0,
    "heavy": 1.5,
    "massive": 2.0,
}


RATING_MODEL = "openskill 6.2 BradleyTerryFull"
"""The model behind every skill, with the openskill release it was checked against (a test compares both with
what is installed). Any change to the model changes this module, so the demo kept between runs (named by a
hash of the service's code) is seeded again."""


@cache
def _model() -> BradleyTerryFull:
    """One model for the whole process: construction is not free and the service rates 100,000s of matches.

    Made (and openskill imported, ~6 ms) at the first match rated, not when the service starts: a service
    that only reads (`rankterm demo` until a match is recorded) never needs it."""
    from openskill.models import BradleyTerryFull

    return BradleyTerryFull()


@dataclass(frozen=True, slots=True)
class Skill:
    """Estimated strength ``mu`` and its uncertainty ``sigma`` (> 0) of one participant."""

    mu: float
    sigma: float


_INITIAL = Skill(mu=25.0, sigma=25.0 / 3.0)
"""openskill's defaults (the model's mu and sigma; tests check that they are still its own)."""


BETA = 25.0 / 6.0
"""openskill's default beta: the spread of one performance around a player's mu (a test checks it is the
model's own), the chance in every match that odds add to the players' uncertainty."""


def initial_skill() -> Skill:
    """Skill of a participant before any match: mu 25, sigma 25/3."""
    return _INITIAL


@dataclass(frozen=True, slots=True)
class FactionResult:
    """One faction of a match: its placement (1 = best, equal ranks = tie) and its participant keys."""

    rank: int
    participants: tuple[str, ...]
    bot: bool = False


def _checked_skill(key: str, skills: Mapping[str, Skill]) -> Skill:
    skill = skills.get(key)
    if skill is None:
        return _INITIAL
    if not (math.isfinite(skill.mu) and math.isfinite(skill.sigma) and skill.sigma > 0):
        raise ValueError(f"participant {key!r} has an invalid skill {skill!r}")
    return skill


def rate_match(
    factions: Sequence[FactionResult], skills: Mapping[str, Skill], weight: str
) -> dict[str, Skill]:
    """New skills for every participant of the match (keys missing from `skills` start at initial_skill()).

    Bot participants are updated too, so the strength of each game's bot is learnt; a single-key bot
    faction is rated as a team as large as the largest human faction (see the module docstring).
    The result holds exactly the participants of the match, in faction order.
    """
    factor = WEIGHT_FACTORS.get(weight) if isinstance(weight, str) else None
    if factor is None:
        raise ValueError(f"unknown match weight {weight!r}; expected one of {', '.join(WEIGHT_FACTORS)}")
    if len(factions) < 2:
        raise ValueError(f"a match needs at least 2 factions, got {len(factions)}")
    factor /= len(factions) - 1

    human_sizes = [len(f.participants) for f in factions if not f.bot]
    bot_copies = max(human_sizes, default=1) or 1

    seen: set[str] = set()
    keys: list[tuple[str, ...]] = []
    olds: list[list[Skill]] = []
    teams = []
    model = _model()
    ranks: list[float] = []
    for faction in factions:
        participants = tuple(faction.participants)
        if not participants:
            raise ValueError("every faction needs at least one participant (a bot faction needs its bot key)")
        rank = faction.rank
        if isinstance(rank, bool) or not isinstance(rank, int):
            raise ValueError(f"faction rank must be an integer, got {rank!r}")
        for key in participants:
            if key in seen:
                raise ValueError(f"participant {key!r} appears more than once in the match")
            seen.add(key)
        old = [_checked_skill(key, skills) for key in participants]
        if faction.bot and len(old) == 1:
            team = [model.rating(old[0].mu, old[0].sigma) for _ in range(bot_copies)]
        else:
            team = [model.rating(s.mu, s.sigma) for s in old]
        keys.append(participants)
        olds.append(old)
        teams.append(team)
        ranks.append(rank)

    rated = model.rate(teams, ranks=ranks)

    result: dict[str, Skill] = {}
    for faction_keys, old_skills, new_team in zip(keys, olds, rated, strict=True):
        for key, before, raw in zip(faction_keys, old_skills, new_team, strict=False):
            mu = before.mu + factor * (raw.mu - before.mu)
            sigma = before.sigma * (raw.sigma / before.sigma) ** factor
            sigma = min(sigma, max(before.sigma, _INITIAL.sigma))
            result[key] = Skill(mu=mu, sigma=sigma)
    return result


K_SIGMA = 1.0
"""How many sigmas the conservative estimate behind ree subtracts from mu."""
REE_REFERENCE = _INITIAL.mu - K_SIGMA * 3.0
"""Conservative estimate of an established average player (mu 25, sigma 3): ree 2000."""
REE_SCALE = 8.0
"""Skill points per unit of ``z`` (near 2000, one skill point is about 62 ree)."""
_REE_FLOOR = 1000.01


def ree(skill: Skill) -> float:
    """Public score: always > 1000, about 2000 for an established average player; see the module docstring."""
    x = skill.mu - K_SIGMA * skill.sigma
    if not math.isfinite(x):
        raise ValueError(f"cannot compute ree of {skill!r}")
    z = (x - REE_REFERENCE) / REE_SCALE
    root = math.hypot(z, 2.0)
    # Two algebraically equal forms, each free of cancellation on its side of 0.
    g = (z + root) / 2.0 if z >= 0 else 2.0 / (root - z)
    return max(round(1000.0 + 1000.0 * g, 2), _REE_FLOOR)


class BeltRule(NamedTuple):
    """What a belt needs: a best-ever ree of at least ``min_ree`` and at least ``min_matches`` matches."""

    min_ree: float
    min_matches: int


BELTS: list[tuple[BeltRule, str, str]] = [
    (BeltRule(0.0, 0), "white", "White"),
    (BeltRule(1850.0, 5), "yellow", "Yellow"),
    (BeltRule(1950.0, 10), "orange", "Orange"),
    (BeltRule(2050.0, 20), "green", "Green"),
    (BeltRule(2150.0, 30), "blue1", "Blue 1"),
    (BeltRule(2250.0, 40), "blue2", "Blue 2"),
    (BeltRule(2350.0, 50), "brown1", "Brown 1"),
    (BeltRule(2450.0, 75), "brown2", "Brown 2"),
    (BeltRule(2550.0, 100), "brown3", "Brown 3"),
    (BeltRule(2700.0, 150), "black", "Black"),
]
"""Belts from lowest to highest; both thresholds strictly rise, so meeting one rule meets all below it."""


def belt_for(best_ree: float, matches_played: int) -> tuple[str, str]:
    """(key, label) of the highest belt whose best-ree and match thresholds are both met.

    Pass the best ree ever reached, so the belt is never lost; it is non-decreasing in both arguments.
    """
    if matches_played < 0:
        raise ValueError(f"matches_played must be >= 0, got {matches_played}")
    key, label = BELTS[0][1], BELTS[0][2]
    for rule, belt_key, belt_label in BELTS:
        if best_ree >= rule.min_ree and matches_played >= rule.min_matches:
            key, label = belt_key, belt_label
        else:
            break
    return key, label


TITLES: dict[int, tuple[str, str]] = {
    1: ("emperor", "Emperor"),
    2: ("shogun", "Shogun"),
    3: ("daimyo", "Daimyo"),
    4: ("samurai", "Samurai"),
    5: ("samurai", "Samurai"),
}
"""Title by ranking position (1-based)."""
MIN_RANKED_FOR_TITLES = 4
"""No titles at all in a ranking with fewer ranked players."""


def title_for(position: int, ranked_players: int) -> tuple[str, str]:
    """(key, label) of the title at ``position`` (1-based), or ("", "") when none.

    A title needs at least ``max(MIN_RANKED_FOR_TITLES, 2 * position)`` ranked players.
    """
    title = TITLES.get(position)
    if title is None or ranked_players < max(MIN_RANKED_FOR_TITLES, 2 * position):
        return "", ""
    return title


STATUSES: dict[str, str] = {
    "inactive": "Inactive",
    "occasional": "Occasional",
    "active": "Active",
    "very_active": "Very active",
}
"""Status keys, least to most active, and their labels."""
ACTIVE_MIN_MATCHES = 4
VERY_ACTIVE_MIN_MATCHES = 12
VERY_ACTIVE_MAX_DAYS = 7.0
ACTIVITY_WINDOW_DAYS = 30.0


def status_for(matches_last_30_days: int, days_since_last_match: float) -> tuple[str, str]:
    """(key, label) of how active a player is; see the module docstring for the rules.

    ``days_since_last_match`` may be ``math.inf`` for a player who never played.
    """
    if matches_last_30_days < 0 or days_since_last_match < 0:
        raise ValueError("match count and days since the last match must be >= 0")
    if (
        matches_last_30_days == 0
        or math.isnan(days_since_last_match)
        or days_since_last_match > ACTIVITY_WINDOW_DAYS
    ):
        key = "inactive"
    elif matches_last_30_days >= VERY_ACTIVE_MIN_MATCHES and days_since_last_match <= VERY_ACTIVE_MAX_DAYS:
        key = "very_active"
    elif matches_last_30_days >= ACTIVE_MIN_MATCHES:
        key = "active"
    else:
        key = "occasional"
    return key, STATUSES[key]
