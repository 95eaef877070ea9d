"""How often the odds come true: every past match predicted from the ratings before it, never after.

The table's model is replayed over the held history; before each match is rated, each faction's chance of
finishing first is asked of `rankterm.stats.odds` (and, beside it, of openskill's own ``predict_win``), then
the match's result is scored against it:

- winner picked: the favourite (the largest chance) finished first (a shared first place counts);
- baseline: what picking a faction at random would score (the share of factions that finished first);
- pairwise: of every two factions that did not tie, the share the odds ordered right;
- Brier score: the mean over matches of Σ(chanceᵢ - outcomeᵢ)², outcome 1 for a winner (1/k each for k
  sharing first place), 0 otherwise; 0 is perfect, lower is better; beside it the Brier of even chances.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from rankterm.stats.model import TableModel, factions_of
from rankterm.stats.odds import Side, chances_first, normal_cdf, side_of, spread
from rankterm.wire.models import Match
from rankterm.wire.rating import BETA, Skill

__all__ = ["Scores", "match_sides", "score_predictions"]


@dataclass(frozen=True, slots=True)
class Scores:
    """How well the odds predicted `matches` matches (see the module docstring for each figure)."""

    matches: int
    winner_picked: float
    baseline: float
    pairwise: float
    brier: float
    baseline_brier: float
    openskill_winner_picked: float
    openskill_brier: float

    def document(self) -> dict[str, Any]:
        """The JSON of `rankterm stats predictions`."""
        return {
            "matches": self.matches,
            "winner_picked": self.winner_picked,
            "baseline": self.baseline,
            "brier": self.brier,
            "baseline_brier": self.baseline_brier,
            "pairwise": self.pairwise,
            "openskill_winner_picked": self.openskill_winner_picked,
            "openskill_brier": self.openskill_brier,
        }


def match_sides(match: Match, model: TableModel) -> list[list[Skill]]:
    """Each faction's players' skills before `match`, as the rules rate it (a lone bot counts as many copies
    of itself as the largest human faction has players)."""
    factions = factions_of(match)
    largest = max((len(f.participants) for f in factions if not f.bot), default=1) or 1
    sides = []
    for faction in factions:
        skills = [model.skill(key) for key in faction.participants]
        sides.append(skills * largest if faction.bot and len(skills) == 1 else skills)
    return sides


@cache
def _openskill() -> Any:
    from openskill.models import BradleyTerryFull

    return BradleyTerryFull()


def score_predictions(matches: Sequence[Match], last: int | None = None) -> Scores:
    """Replay `matches` (oldest first), predicting each before rating it; score the `last` ones (all: None)."""
    model = TableModel()
    scored_from = 0 if last is None else max(0, len(matches) - last)
    model.follow(matches[:scored_from])
    picked = baseline = brier = even_brier = os_picked = os_brier = 0.0
    ordered = pairs = 0
    counted = 0
    openskill = _openskill()
    for end in range(scored_from, len(matches)):
        match = matches[end]
        ranks = [f.rank for f in match.factions]
        skills = match_sides(match, model)
        model.add(match)
        if len(ranks) < 2 or any(not s for s in skills):
            continue
        sides = [side_of(s) for s in skills]
        chances = chances_first(sides)
        theirs = openskill.predict_win([[openskill.rating(s.mu, s.sigma) for s in team] for team in skills])
        best = min(ranks)
        firsts = [r == best for r in ranks]
        outcome = [1.0 / sum(firsts) if first else 0.0 for first in firsts]
        counted += 1
        picked += firsts[_favourite(chances)]
        os_picked += firsts[_favourite(theirs)]
        baseline += sum(firsts) / len(ranks)
        brier += math.fsum((c - o) ** 2 for c, o in zip(chances, outcome, strict=True))
        os_brier += math.fsum((c - o) ** 2 for c, o in zip(theirs, outcome, strict=True))
        even_brier += math.fsum((1 / len(ranks) - o) ** 2 for o in outcome)
        for i in range(len(sides)):
            for j in range(i + 1, len(sides)):
                if ranks[i] != ranks[j]:
                    pairs += 1
                    ahead = _pairwise(sides[i], sides[j]) > 0.5
                    ordered += ahead == (ranks[i] < ranks[j])
    share = (lambda x: x / counted) if counted else (lambda x: 0.0)
    return Scores(
        matches=counted,
        winner_picked=share(picked),
        baseline=share(baseline),
        pairwise=ordered / pairs if pairs else 0.0,
        brier=share(brier),
        baseline_brier=share(even_brier),
        openskill_winner_picked=share(os_picked),
        openskill_brier=share(os_brier),
    )


def _favourite(chances: Sequence[float]) -> int:
    return max(range(len(chances)), key=chances.__getitem__)


def _pairwise(a: Side, b: Side) -> float:
    return normal_cdf((a.mu - b.mu) / math.hypot(spread(a, BETA), spread(b, BETA)))
