"""A player or a game by name or id, as typed on the command line.

Exact id first, then exact name (a ghost's with or without its leading "*"), then the name ignoring case,
accents (NFKD, combining marks dropped, casefolded) and a ghost's "*". More than one candidate at the first
rule that finds any: `AmbiguousName` listing them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rankterm.wire.errors import RanktermError
from rankterm.wire.models import Game, Player
from rankterm.wire.text import fold_name as fold

T = TypeVar("T")


class NameNotFound(RanktermError):
    """Nothing has that name or id."""


class AmbiguousName(RanktermError):
    """Several have that name: `candidates` holds (id, name) of each."""

    def __init__(self, message: str, candidates: Sequence[tuple[str, str]]) -> None:
        super().__init__(message)
        self.candidates = list(candidates)


def _find(items: Sequence[T], query: str, what: str, key: Callable[[T], str], name: Callable[[T], str]) -> T:
    wanted = query.strip()
    rules: list[Callable[[T], bool]] = [
        lambda item: key(item) == wanted,
        lambda item: wanted in (name(item), name(item).removeprefix("*")),
        lambda item: fold(name(item).lstrip("*")) == fold(wanted.lstrip("*")),  # a ghost's "*" optional
    ]
    for rule in rules:
        found = [item for item in items if rule(item)]
        if len(found) == 1:
            return found[0]
        if found:
            listed = ", ".join(f"{name(i)} ({key(i)})" for i in found)
            raise AmbiguousName(
                f"{len(found)} {what}s are called {query!r}: {listed}; give the id.",
                [(key(i), name(i)) for i in found],
            )
    raise NameNotFound(f"No {what} is called {query!r} (nor has that id).")


def find_player(players: Sequence[Player], query: str) -> Player:
    """The player whose id or name (display name, else username) is `query`. Raises NameNotFound or
    AmbiguousName."""
    return _find(players, query, "player", lambda p: str(p.id), lambda p: p.label)


def find_game(games: Sequence[Game], query: str) -> Game:
    """The game whose id or name is `query`. Raises NameNotFound or AmbiguousName."""
    return _find(games, query, "game", lambda g: str(g.id), lambda g: g.name)
