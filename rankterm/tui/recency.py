"""Who played last, and what: read from the newest matches, to put the likely player first in a picker.

    recent = recent_play(page.data)      # {player id: Recent("2026-05-28 20:00:00", "Catan")}

The service has no "last match of a player" call: the app reads the newest page of matches once per service
(one request, `Session.player_recency`) and again after a match is recorded or the group changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from rankterm.wire.models import Match


class Recent(NamedTuple):
    """A player's last match among those read: its date ("YYYY-MM-DD HH:MM:SS") and its game's name."""

    date: str
    game: str


def recent_play(matches: Iterable[Match]) -> dict[str, Recent]:
    """Each player's latest match among `matches` (any order)."""
    found: dict[str, Recent] = {}
    for match in matches:
        game = match.game.name if match.game else ""
        for faction in match.factions:
            for player in faction.players:
                known = found.get(player.id)
                if known is None or match.date > known.date:
                    found[player.id] = Recent(match.date, game)
    return found
