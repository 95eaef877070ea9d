"""A player's page (`PlayerPageScreen`, in `pages` beside the game's page it opens) and its body
(`PlayerStory`, a widget of `widgets.stats.player_story`), named here for the screens that open it."""

from rankterm.tui.screens.stats.pages import PlayerPageScreen, open_game_row
from rankterm.tui.widgets.stats.player_story import (
    COARSE_POINTS,
    GAME_COLUMNS,
    MAX_POINTS,
    RETRY_SECONDS,
    TALL,
    PlayerStory,
    figure_rows,
)

__all__ = [
    "COARSE_POINTS",
    "GAME_COLUMNS",
    "MAX_POINTS",
    "RETRY_SECONDS",
    "TALL",
    "PlayerPageScreen",
    "PlayerStory",
    "figure_rows",
    "open_game_row",
]
