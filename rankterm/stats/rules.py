"""The rules every figure shares: who plays a match, the order matches were played in, and a result.

See `rankterm.stats.figures` for the rules in words. Pure functions over matches as the figures read them
(`MatchLike`): a parsed `rankterm.wire.models.Match`, or the mirror's compact rows (`stats.compact`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:  # a Literal for the annotations: the figures' types load with the figures
    from rankterm.stats.results import Result


class PlayerLike(Protocol):
    """What the figures read of a faction's player."""

    @property
    def id(self) -> str: ...
    @property
    def label(self) -> str: ...


class FactionLike(Protocol):
    """What the figures read of a faction."""

    @property
    def rank(self) -> int: ...
    @property
    def bot(self) -> bool: ...
    @property
    def players(self) -> Sequence[PlayerLike]: ...


class GameLike(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...


class MatchLike(Protocol):
    """What the figures read of a match: `rankterm.wire.models.Match` is one, `compact.CompactMatch` too."""

    @property
    def number(self) -> int: ...
    @property
    def date(self) -> str: ...
    @property
    def game(self) -> GameLike | None: ...
    @property
    def factions(self) -> Sequence[FactionLike]: ...
    @property
    def when(self) -> datetime | None: ...


M = TypeVar("M", bound=MatchLike)


def played_order(match: MatchLike) -> tuple[str, int]:
    """Sort key of the order matches were played in: date (the wire's text sorts as time), then number."""
    return (match.date, match.number)


def in_played_order(matches: Iterable[M]) -> list[M]:
    return sorted(matches, key=played_order)


def player_ids(faction: FactionLike) -> list[str]:
    """The players of a faction (none for a bot)."""
    return [] if faction.bot else [str(p.id) for p in faction.players]


def faction_of(match: MatchLike, player_id: str) -> FactionLike | None:
    """The (first) non-bot faction `player_id` plays in, None when they do not play the match."""
    for faction in match.factions:
        if not faction.bot and any(str(p.id) == player_id for p in faction.players):
            return faction
    return None


def best_rank(match: MatchLike) -> int | None:
    return min((f.rank for f in match.factions), default=None)


def faction_result(match: MatchLike, faction: FactionLike) -> Result:
    """W alone at the best rank, D sharing it with another faction (a bot too), L otherwise."""
    best = best_rank(match)
    if faction.rank != best:
        return "L"
    shared = sum(1 for f in match.factions if f.rank == best)
    return "W" if shared == 1 else "D"


def result_of(match: MatchLike, player_id: str) -> Result | None:
    """The player's result in the match, None when they did not play it."""
    faction = faction_of(match, player_id)
    return None if faction is None else faction_result(match, faction)


def bot_won(match: MatchLike) -> bool:
    """A bot faction alone at the best rank."""
    best = best_rank(match)
    at_best = [f for f in match.factions if f.rank == best]
    return len(at_best) == 1 and at_best[0].bot


def game_key(match: MatchLike) -> tuple[int | None, str]:
    """(game id, game name) of a match; (None, "") when it carries no game."""
    return (match.game.id, match.game.name) if match.game is not None else (None, "")


def player_names(matches: Iterable[MatchLike]) -> dict[str, str]:
    """Each player's name as the latest match (by number) carrying them gives it."""
    names: dict[str, str] = {}
    for match in sorted(matches, key=lambda m: m.number):
        for faction in match.factions:
            if faction.bot:
                continue
            for p in faction.players:
                names[str(p.id)] = p.label
    return names


def game_names(matches: Iterable[MatchLike]) -> dict[int, str]:
    """Each game's name as the latest match (by number) of it gives it."""
    names: dict[int, str] = {}
    for match in sorted(matches, key=lambda m: m.number):
        if match.game is not None:
            names[match.game.id] = match.game.name
    return names


def longest_run(results: Sequence[Result]) -> tuple[int, int]:
    """(length, index of its first result) of the first longest run of W; (0, -1) when there is none."""
    best, best_start, run, start = 0, -1, 0, 0
    for i, r in enumerate(results):
        if r == "W":
            if run == 0:
                start = i
            run += 1
            if run > best:
                best, best_start = run, start
        else:
            run = 0
    return best, best_start


def current_run(results: Sequence[Result]) -> int:
    """Consecutive W at the end."""
    n = 0
    for r in reversed(results):
        if r != "W":
            break
        n += 1
    return n
