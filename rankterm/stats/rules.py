"""The rules every figure shares: who plays a match, the order matches were played in, and a result.

See `rankterm.stats.figures` for the rules in words. Pure functions over `rankterm.wire.models.Match`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rankterm.stats.results import Result
from rankterm.wire.models import Faction, Match


def played_order(match: Match) -> tuple[str, int]:
    """Sort key of the order matches were played in: date (the wire's text sorts as time), then number."""
    return (match.date, match.number)


def in_played_order(matches: Iterable[Match]) -> list[Match]:
    return sorted(matches, key=played_order)


def player_ids(faction: Faction) -> list[str]:
    """The players of a faction (none for a bot)."""
    return [] if faction.bot else [str(p.id) for p in faction.players]


def faction_of(match: Match, player_id: str) -> Faction | None:
    """The (first) non-bot faction `player_id` plays in, None when they do not play the match."""
    for faction in match.factions:
        if not faction.bot and any(str(p.id) == player_id for p in faction.players):
            return faction
    return None


def best_rank(match: Match) -> int | None:
    return min((f.rank for f in match.factions), default=None)


def faction_result(match: Match, faction: Faction) -> Result:
    """W alone at the best rank, D sharing it with another faction (a bot too), L otherwise."""
    best = best_rank(match)
    if faction.rank != best:
        return "L"
    shared = sum(1 for f in match.factions if f.rank == best)
    return "W" if shared == 1 else "D"


def result_of(match: Match, player_id: str) -> Result | None:
    """The player's result in the match, None when they did not play it."""
    faction = faction_of(match, player_id)
    return None if faction is None else faction_result(match, faction)


def bot_won(match: Match) -> bool:
    """A bot faction alone at the best rank."""
    best = best_rank(match)
    at_best = [f for f in match.factions if f.rank == best]
    return len(at_best) == 1 and at_best[0].bot


def game_key(match: Match) -> tuple[int | None, str]:
    """(game id, game name) of a match; (None, "") when it carries no game."""
    return (match.game.id, match.game.name) if match.game is not None else (None, "")


def player_names(matches: Iterable[Match]) -> dict[str, str]:
    """Each player's name as the latest match (by number) carrying them gives it."""
    names: dict[str, str] = {}
    for match in sorted(matches, key=lambda m: m.number):
        for faction in match.factions:
            if faction.bot:
                continue
            for p in faction.players:
                names[str(p.id)] = p.label
    return names


def game_names(matches: Iterable[Match]) -> dict[int, str]:
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
