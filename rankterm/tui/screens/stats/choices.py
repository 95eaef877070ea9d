"""Who and what the stats pickers offer, read from the group's matches (no request): the players and games
that have a story, named as their most recent match names them, and a sensible first choice for each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text

from rankterm.api.models import Match
from rankterm.tui.text import plain_str


def players_in(matches: Sequence[Match]) -> dict[str, str]:
    """Player id -> name, for everyone who played a match (the newest match's name wins)."""
    names: dict[str, str] = {}
    for match in sorted(matches, key=lambda m: m.number, reverse=True):
        for faction in match.factions:
            if faction.bot:
                continue
            for player in faction.players:
                names.setdefault(str(player.id), player.label)
    return names


def games_in(matches: Sequence[Match]) -> dict[int, str]:
    """Game id -> name, for every game played (the newest match's name wins)."""
    names: dict[int, str] = {}
    for match in sorted(matches, key=lambda m: m.number, reverse=True):
        if match.game is not None:
            names.setdefault(match.game.id, match.game.name)
    return names


def most_active(matches: Sequence[Match]) -> str | None:
    """The player with the most matches (then by name), the Player tab's first choice."""
    counts: Counter[str] = Counter()
    names = players_in(matches)
    for match in matches:
        for q in {str(p.id) for f in match.factions if not f.bot for p in f.players}:
            counts[q] += 1
    if not counts:
        return None
    return min(counts, key=lambda q: (-counts[q], names.get(q, "").casefold(), q))


def most_met(matches: Sequence[Match], player_id: str) -> str | None:
    """The player `player_id` met most often in another faction (the head-to-head's first opponent)."""
    counts: Counter[str] = Counter()
    names = players_in(matches)
    for match in matches:
        mine = next(
            (f for f in match.factions if not f.bot and any(str(p.id) == player_id for p in f.players)), None
        )
        if mine is None:
            continue
        for f in match.factions:
            if f is not mine and not f.bot:
                for p in f.players:
                    if str(p.id) != player_id:
                        counts[str(p.id)] += 1
    if not counts:
        return None
    return min(counts, key=lambda q: (-counts[q], names.get(q, "").casefold(), q))


def options(names: dict[str, str] | dict[int, str]) -> list[tuple[Text, str]]:
    """Select options (plain text, by name) whose values are the ids as strings."""
    ordered = sorted(names.items(), key=lambda item: (item[1].casefold(), str(item[0])))
    return [(Text(plain_str(name)), str(key)) for key, name in ordered]
