"""One rule for equal points, for every way a match is entered: the match form, `rankterm import`.

Factions listed in finishing order with no rank given (the form's rows as the result is said aloud, a file's
seats once sorted by score) take competition ranks: each its place, except that a faction with the same
points as the one before it shares that one's rank (10, 10, 7 → 1, 1, 3). Points that cannot be read, or
none, never tie. `score_ranks` orders unsorted scores by this same rule (highest first, or lowest when the
game says so), so a file's plays and a form's rows with the same points rank the same.

    listed_ranks(["10", "10", "7"])                     # [1, 1, 3]
    score_ranks([Decimal(7), Decimal(10), Decimal(10)])  # [3, 1, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, InvalidOperation


def read_points(text: object) -> Decimal | None:
    """Points as a number; None for none ("" or None) or for a text that is not a finite number."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def listed_ranks(points: Sequence[object]) -> list[int]:
    """Ranks of factions listed in finishing order: the place of each, shared with the faction before it when
    both have the same points (`read_points`)."""
    ranks: list[int] = []
    before: Decimal | None = None
    for place, text in enumerate(points, start=1):
        value = read_points(text)
        ranks.append(ranks[-1] if ranks and value is not None and value == before else place)
        before = value
    return ranks


def score_ranks(scores: Sequence[Decimal], *, lowest_wins: bool = False) -> list[int]:
    """Competition ranks (1, 1, 3) of `scores` in any order: the best score first, equal scores tied."""
    order = sorted(range(len(scores)), key=lambda i: scores[i] if lowest_wins else -scores[i])
    ranked = listed_ranks([scores[i] for i in order])
    out = [0] * len(scores)
    for i, rank in zip(order, ranked, strict=True):
        out[i] = rank
    return out
