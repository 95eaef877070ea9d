"""A player's page (`PlayerStory`, `PlayerPageScreen`): it lives in `pages`, beside the game's page it opens."""

from rankterm.tui.screens.stats.pages import (
    COARSE_POINTS,
    GAME_COLUMNS,
    MAX_POINTS,
    RETRY_SECONDS,
    TALL,
    PlayerPageScreen,
    PlayerStory,
    figure_rows,
    open_game_row,
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
