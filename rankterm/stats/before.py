"""What the match form says before a match is sent: each faction's chance of finishing first, or, for a
co-op match against the game, the group's record with those players.

A faction of players has a chance from the table's model (`rankterm.stats.model`: their skills, newcomers at
the initial skill, and so marked). A match of one team of players against the game's bot is no contest of
equals to put a chance on: the form shows how often the group won that game with exactly those players
(`won 7 of 12`), counted from the held matches, rather than a made-up chance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rankterm.stats.model import TableModel, factions_of
from rankterm.stats.odds import chances_first, side_of
from rankterm.stats.rules import MatchLike

__all__ = ["Before", "Chance", "before_match"]


@dataclass(frozen=True, slots=True)
class Chance:
    """One faction's chance of finishing first, and which of its players are new to the model."""

    players: tuple[str, ...]
    chance: float
    newcomers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Before:
    """Chances (one a faction, in the form's order), or a co-op record: `won` of `played`."""

    chances: tuple[Chance, ...] = ()
    coop_players: tuple[str, ...] = ()
    won: int = 0
    played: int = 0

    @property
    def is_coop(self) -> bool:
        return bool(self.coop_players)


def before_match(
    model: TableModel, factions: Sequence[tuple[Sequence[str], bool]], game_matches: Iterable[MatchLike] = ()
) -> Before | None:
    """What to say before a match of `factions` (each: its players' ids, whether it is the game's bot);
    None while fewer than two factions have players (or a bot), or while a player is in two of them.

    `game_matches`: the held matches of the game picked, for a co-op record.
    """
    sides = [(tuple(ids), bot) for ids, bot in factions if ids or bot]
    everyone = [pid for ids, _ in sides for pid in ids]
    if len(sides) < 2 or len(set(everyone)) != len(everyone):
        return None  # a player in two factions is the form's problem to say, not a chance
    people = [ids for ids, bot in sides if not bot]
    if any(bot for _, bot in sides):
        if len(people) != 1:
            return None  # several factions against a bot: no rule here says who is favoured
        team = frozenset(people[0])
        won = played = 0
        for match in game_matches:
            factions_then = factions_of(match)
            humans = [f for f in factions_then if not f.bot]
            if len(humans) == 1 and frozenset(humans[0].participants) == team and len(factions_then) == 2:
                played += 1
                won += humans[0].rank < next(f.rank for f in factions_then if f.bot)
        return Before(coop_players=tuple(people[0]), won=won, played=played)
    chances = chances_first([side_of(model.skill(pid) for pid in ids) for ids in people])
    return Before(
        chances=tuple(
            Chance(ids, chance, tuple(pid for pid in ids if not model.played(pid)))
            for ids, chance in zip(people, chances, strict=True)
        )
    )
