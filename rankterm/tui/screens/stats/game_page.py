"""A game's page (`GameStory`, `GamePageScreen`): it lives in `pages`, beside the player's page it opens."""

from rankterm.tui.screens.stats.pages import (
    STANDING_COLUMNS,
    GamePageScreen,
    GameStory,
    game_rows,
    open_player_row,
    subset_of,
)

__all__ = [
    "STANDING_COLUMNS",
    "GamePageScreen",
    "GameStory",
    "game_rows",
    "open_player_row",
    "subset_of",
]
