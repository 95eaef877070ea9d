"""A player or a game by name or id, as typed on the command line.

Exact id first, then exact name, then the name ignoring case and accents (NFKD, combining marks dropped,
casefolded). More than one candidate at the first rule that finds any: `AmbiguousName` listing them.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankterm.api.errors import RanktermError
from rankterm.api.models import Game, Player


class NameNotFound(RanktermError):
    """Nothing has that name or id."""


class AmbiguousName(RanktermError):
    """Several have that name: `candidates` holds (id, name) of each."""

    def __init__(self, message: str, candidates: Sequence[tuple[str, str]]) -> None:
        super().__init__(message)
        self.candidates = list(candidates)


def fold(text: str) -> str:
    """Text compared ignoring case and accents."""
    raise NotImplementedError


def find_player(players: Sequence[Player], query: str) -> Player:
    """The player whose id or name is `query`. Raises NameNotFound or AmbiguousName."""
    raise NotImplementedError


def find_game(games: Sequence[Game], query: str) -> Game:
    """The game whose id or name is `query`. Raises NameNotFound or AmbiguousName."""
    raise NotImplementedError
