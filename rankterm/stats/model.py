"""The table's model: every player's skill from the group's held matches, replayed with the service's rules.

The embedded service rates a group's matches in the order they were played with `rankterm.wire.rating`; this
replays the matches the mirror holds (oldest first by number, which is that order) with the same rules, so
against the embedded service each player's ree here equals the service's, and against any other service that
speaks the wire it is rankterm's estimate (and said so where shown). Odds and fair teams read it.

`TableModel.follow` keeps up as history moves: matches appended are rated on top; when a match played before
others arrives (every later number moves), the model goes back to the last checkpoint before the first match
that changed and replays from there, so a replay costs the matches after it, not the whole history.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rankterm.stats.rules import MatchLike
from rankterm.wire.models import Match
from rankterm.wire.rating import (
    RATING_MODEL,
    WEIGHT_FACTORS,
    FactionResult,
    Skill,
    initial_skill,
    rate_match,
    ree,
)

__all__ = ["CHECKPOINT_EVERY", "TableModel", "factions_of"]

RULES = f"{RATING_MODEL}; weights {sorted(WEIGHT_FACTORS.items())}"
"""The rules a kept model was made under: another release's rules make it worthless."""

CHECKPOINT_EVERY = 500
"""Matches between two copies of every skill kept to go back to (a replay redoes at most this many more)."""


@dataclass
class _State:
    skills: dict[str, Skill] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)

    def copy(self) -> _State:
        return _State(dict(self.skills), dict(self.played))


def factions_of(match: MatchLike) -> list[FactionResult]:
    """A held match as the rules read it: a bot faction is its game's bot, the others their players' ids."""
    game = match.game.id if match.game is not None else ""
    return [
        FactionResult(f.rank, (f"bot:{game}",) if f.bot else tuple(p.id for p in f.players), f.bot)
        for f in match.factions
    ]


class TableModel:
    """Each player's skill (mu, sigma), ree and matches played after the matches it has followed."""

    def __init__(self, *, replayable: bool = True) -> None:
        """`replayable` False: a model that only ever adds matches (a walk of the history, a season), which
        keeps neither the ids followed nor a state every `CHECKPOINT_EVERY` matches (at 100,000 matches those
        were most of a walk's memory); `follow` is then refused."""
        self.replayable = replayable
        self._state = _State()
        self._count = 0
        self._followed: list[str] = []
        """The id of every match followed, in played order (a replayable model's)."""
        self._checkpoints: list[tuple[int, _State]] = [(0, _State())] if replayable else []
        """(n, the state after the first n matches), n a multiple of CHECKPOINT_EVERY, rising."""
        self.rated = 0
        """How many matches the last `follow` had to rate (a measure of what a change cost)."""

    def follow(self, matches: Sequence[Match]) -> None:
        """Catch up with the group's held `matches` (oldest first): rate what is new, replay what moved."""
        if not self.replayable:
            raise TypeError("a model kept without its checkpoints only adds matches")
        ids = [m.id or f"#{m.number}" for m in matches]
        same = 0
        limit = min(len(ids), len(self._followed))
        while same < limit and ids[same] == self._followed[same]:
            same += 1
        if same < len(self._followed):
            at = bisect.bisect_right([n for n, _ in self._checkpoints], same) - 1
            start, state = self._checkpoints[at]
            del self._checkpoints[at + 1 :]
            self._state = state.copy()
            del self._followed[start:]
            self._count = same = start
        for match in matches[same:]:
            self.add(match)
        self.rated = len(matches) - same

    def add(self, match: Match) -> None:
        """Rate `match`, played after every match followed so far."""
        self._rate(match)
        self._count += 1
        if self.replayable:
            self._followed.append(match.id or f"#{match.number}")
            if self._count % CHECKPOINT_EVERY == 0:
                self._checkpoints.append((self._count, self._state.copy()))

    def _rate(self, match: Match) -> None:
        weight = match.weight if match.weight in WEIGHT_FACTORS else "normal"
        try:
            rated = rate_match(factions_of(match), self._state.skills, weight)
        except ValueError:
            return  # a match the rules cannot rate (a single faction): the service rates none either
        self._state.skills.update(rated)
        for key in rated:
            self._state.played[key] = self._state.played.get(key, 0) + 1

    @property
    def followed(self) -> int:
        """How many matches the model has followed."""
        return self._count

    def skill(self, player_id: str) -> Skill:
        """The player's skill now; a player with no match rated yet has the initial skill."""
        return self._state.skills.get(player_id, initial_skill())

    def ree(self, player_id: str) -> float:
        """The player's ree as the service's rules give it."""
        return ree(self.skill(player_id))

    def played(self, player_id: str) -> int:
        """How many followed matches the player was rated in (0 for a newcomer)."""
        return self._state.played.get(player_id, 0)

    def snapshot(self) -> dict[str, Any]:
        """What `restored` needs to go on from here without replaying: the skills, the matches played, the
        ids followed (no checkpoint: a history that moves under a restored model is replayed whole)."""
        return {
            "rules": RULES,
            "skills": {key: [s.mu, s.sigma] for key, s in self._state.skills.items()},
            "played": dict(self._state.played),
            "followed": list(self._followed),
            "count": self._count,
        }

    @classmethod
    def restored(cls, snapshot: Any, *, replayable: bool = True) -> TableModel | None:
        """The model a `snapshot` kept, or None when it is not one (or was made under other rules)."""
        try:
            if snapshot["rules"] != RULES:
                return None
            model = cls(replayable=replayable)
            model._state = _State(
                {key: Skill(float(mu), float(sigma)) for key, (mu, sigma) in snapshot["skills"].items()},
                {key: int(n) for key, n in snapshot["played"].items()},
            )
            followed = [str(i) for i in snapshot["followed"]]
            model._followed = followed if replayable else []
            model._count = int(snapshot.get("count", len(followed)))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return model
