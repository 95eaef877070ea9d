"""Stories from the numbers: a player's page, head-to-head, a game's page and tonight, from the group's matches.

- `figures` (and `results` for the types): pure functions over a sequence of `rankterm.wire.models.Match`,
  no I/O; every rule (what a win, a draw, a meeting, a streak is) is written there once.
- `source.group_matches`: the group's matches from the mirror, synced incrementally.
- `history`: ree and position over a player's matches, and ree around tonight's matches, read from the
  standings after past matches, quota-aware and cached forever in the mirror.
- `lookup`: a player or game by name or id, for the command line.

The names of `__all__` (the figures and their types) are loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankterm.stats.figures import game_figures, game_records, head_to_head, player_figures, tonight
    from rankterm.stats.results import (
        Gain,
        GameFigures,
        GameH2H,
        GameRecord,
        HeadToHead,
        Meeting,
        PlayerFigures,
        Rival,
        Streak,
        Tally,
        Tonight,
        TonightMatch,
        Upset,
    )

__all__ = [
    "Gain",
    "GameFigures",
    "GameH2H",
    "GameRecord",
    "HeadToHead",
    "Meeting",
    "PlayerFigures",
    "Rival",
    "Streak",
    "Tally",
    "Tonight",
    "TonightMatch",
    "Upset",
    "game_figures",
    "game_records",
    "head_to_head",
    "player_figures",
    "tonight",
]

_FIGURES = frozenset({"game_figures", "game_records", "head_to_head", "player_figures", "tonight"})


def __getattr__(name: str) -> Any:
    """A name of the face, loaded on first use: a screen that walks the story (`kept`, `changes`) does not
    load the figures' modules with it."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    home = "figures" if name in _FIGURES else "results"
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
