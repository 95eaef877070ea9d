"""A game's page (`GamePageScreen`, in `pages` beside the player's page it opens) and its body (`GameStory`,
a widget of `widgets.stats.game_story`), named here for the screens that open it."""

from rankterm.tui.screens.stats.pages import GamePageScreen, open_player_row
from rankterm.tui.widgets.stats.game_story import STANDING_COLUMNS, GameStory, game_rows, subset_of

__all__ = [
    "STANDING_COLUMNS",
    "GamePageScreen",
    "GameStory",
    "game_rows",
    "open_player_row",
    "subset_of",
]
