"""The figures of the stats pages, computed from a sequence of matches (pure: no I/O, no clock).

Rules, written once here:

- A player **plays** a match when they are in one of its non-bot factions.
- **Result** of a player in a match (`result_of`): W when their faction is alone at the best (lowest) rank,
  D when it shares the best rank with another faction (a bot faction included), L otherwise. A bot alone at
  the best rank is a loss for every player (co-op games). A match of one faction only is a W for its players.
- **Order**: a player's matches in the order played: date, then match number (numbers count acceptance, and a
  match may be recorded late). Streaks, form and "last" lists follow this order.
- **Streak**: consecutive W; a D or an L ends it. The current streak is the run that ends with the player's
  latest match (0 when that was not a W).
- **Meeting**: a match where both players played, in different factions. Ahead = better (lower) rank; same
  rank = tie. Team-mates (one faction) are not a meeting: they count as "together".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from rankterm.api.models import Match
from rankterm.api.stats.results import GameFigures, HeadToHead, PlayerFigures, Tonight


def player_figures(matches: Sequence[Match], player_id: str) -> PlayerFigures:
    """A player's page from the group's matches (any order). A player with no match gets zeros."""
    raise NotImplementedError


def head_to_head(matches: Sequence[Match], a_id: str, b_id: str | None) -> HeadToHead:
    """A against B; `b_id` None: A against everyone (sums over the other players)."""
    raise NotImplementedError


def game_figures(matches: Sequence[Match], game_id: int) -> GameFigures:
    """A game's page from the group's matches (the matches of other games are ignored)."""
    raise NotImplementedError


def tonight(
    matches: Sequence[Match],
    since: datetime,
    ree_before: Mapping[tuple[int, str], float] | None = None,
    ree_after: Mapping[tuple[int, str], float] | None = None,
) -> Tonight:
    """The evening: matches dated at or after `since` (naive, the wire's clock), in the order played.

    `ree_before[(match number, player id)]` is the player's ree before that match, `ree_after[...]` after it
    (`history.ree_around` reads both). Biggest gain: ree after a player's last match of the evening minus
    before their first (only players with both known). Biggest upset: the W winner with the lowest ree before
    their winning match.
    """
    raise NotImplementedError
