"""Who and what the stats pickers offer (no request): the players and games that have a story, as the
roster of the held matches names them (`source.held_roster`: the newest match's names), and a sensible first
choice for each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text

from rankterm.stats.rules import MatchLike
from rankterm.stats.source import Roster
from rankterm.tui.text import plain_str


def most_active(roster: Roster) -> str | None:
    """The player with the most matches (then by name), the Player tab's first choice."""
    counts, names = roster.played, roster.players
    if not counts:
        return None
    return min(counts, key=lambda q: (-counts[q], names.get(q, "").casefold(), q))


def most_met(matches: Sequence[MatchLike], player_id: str) -> str | None:
    """The player `player_id` met most often in another faction (the head-to-head's first opponent), from
    `player_id`'s matches (`player_matches`)."""
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
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
                        names[str(p.id)] = p.label
    if not counts:
        return None
    return min(counts, key=lambda q: (-counts[q], names.get(q, "").casefold(), q))


def options(names: dict[str, str] | dict[int, str]) -> list[tuple[Text, str]]:
    """Select options (plain text, by name) whose values are the ids as strings."""
    ordered = sorted(names.items(), key=lambda item: (item[1].casefold(), str(item[0])))
    return [(Text(plain_str(name)), str(key)) for key, name in ordered]
