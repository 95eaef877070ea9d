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

__all__ = ["Scores", "match_sides", "score_predictions", "scores_whole_and_last"]


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
    if last is None:
        return scores_whole_and_last(matches, 0)[0]
    return scores_whole_and_last(matches, last, whole=False)[1]


def scores_whole_and_last(
    matches: Sequence[Match], last: int, *, whole: bool = True
) -> tuple[Scores, Scores]:
    """The scores of every match and of the `last` ones, from one replay of `matches` (oldest first): a big
    group's history is rated once, not once for each. With `whole` False only the last ones are predicted (the
    first of the pair is then empty); the ones before are only rated."""
    model = TableModel()
    recent_from = max(0, len(matches) - last)
    predicted_from = 0 if whole else recent_from
    model.follow(matches[:predicted_from])
    every, recent = _Tally(), _Tally()
    openskill = _openskill()
    for end in range(predicted_from, len(matches)):
        match = matches[end]
        ranks = [f.rank for f in match.factions]
        skills = match_sides(match, model)
        model.add(match)
        if len(ranks) < 2 or any(not s for s in skills):
            continue
        sides = [side_of(s) for s in skills]
        chances = chances_first(sides)
        theirs = openskill.predict_win([[openskill.rating(s.mu, s.sigma) for s in team] for team in skills])
        for tally in (every, recent) if end >= recent_from else (every,):
            tally.add(ranks, sides, chances, theirs)
    return every.scores(), recent.scores()


class _Tally:
    """The sums behind one `Scores`, a predicted match at a time."""

    def __init__(self) -> None:
        self.picked = self.baseline = self.brier = self.even_brier = self.os_picked = self.os_brier = 0.0
        self.ordered = self.pairs = self.counted = 0

    def add(self, ranks: list[int], sides: list[Side], chances: list[float], theirs: list[float]) -> None:
        best = min(ranks)
        firsts = [r == best for r in ranks]
        outcome = [1.0 / sum(firsts) if first else 0.0 for first in firsts]
        self.counted += 1
        self.picked += firsts[_favourite(chances)]
        self.os_picked += firsts[_favourite(theirs)]
        self.baseline += sum(firsts) / len(ranks)
        self.brier += math.fsum((c - o) ** 2 for c, o in zip(chances, outcome, strict=True))
        self.os_brier += math.fsum((c - o) ** 2 for c, o in zip(theirs, outcome, strict=True))
        self.even_brier += math.fsum((1 / len(ranks) - o) ** 2 for o in outcome)
        for i in range(len(sides)):
            for j in range(i + 1, len(sides)):
                if ranks[i] != ranks[j]:
                    self.pairs += 1
                    ahead = _pairwise(sides[i], sides[j]) > 0.5
                    self.ordered += ahead == (ranks[i] < ranks[j])

    def scores(self) -> Scores:
        counted = self.counted
        share = (lambda x: x / counted) if counted else (lambda x: 0.0)
        return Scores(
            matches=counted,
            winner_picked=share(self.picked),
            baseline=share(self.baseline),
            pairwise=self.ordered / self.pairs if self.pairs else 0.0,
            brier=share(self.brier),
            baseline_brier=share(self.even_brier),
            openskill_winner_picked=share(self.os_picked),
            openskill_brier=share(self.os_brier),
        )


def _favourite(chances: Sequence[float]) -> int:
    return max(range(len(chances)), key=chances.__getitem__)


def _pairwise(a: Side, b: Side) -> float:
    return normal_cdf((a.mu - b.mu) / math.hypot(spread(a, BETA), spread(b, BETA)))
