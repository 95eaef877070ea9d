"""The two story pages that open each other: a player's page (`PlayerPageScreen`) and a game's page
(`GamePageScreen`); `player_page` and `game_page` name them. Enter on a game's row of a player's page opens
the game's, Enter on a player's row of a game's page opens theirs: both live here so that neither module
imports the other. Their bodies are widgets (`widgets.stats.player_story`, `widgets.stats.game_story`).

Keys: v the chart (ree or position) · h the player's recent matches · Enter on a row opens its page · F5
reload · Escape back. See docs/design/tui.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import DataTable, Header, Static

from rankterm.stats import PlayerFigures, player_figures
from rankterm.stats.compact import CompactMatch, player_matches
from rankterm.stats.recap import player_summary
from rankterm.stats.rules import MatchLike, played_order
from rankterm.stats.source import matches_numbered
from rankterm.tui.base import copy_out
from rankterm.tui.screens.stats.base import StoryScreen, matches_key
from rankterm.tui.text import plain_str
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.wire.models import Game, Player

if TYPE_CHECKING:
    from rankterm.mirror import Group
from rankterm.tui.widgets.stats.game_story import GameRead, GameStory, read_game
from rankterm.tui.widgets.stats.player_story import RETRY_SECONDS, TALL, PlayerStory


class PlayerPageScreen(StoryScreen):
    """A player's page, pushed by Enter on a player: Escape returns to where it was opened."""

    INFO = "#pp-info"
    AUTO_FOCUS = "#ps-games"

    DEFAULT_CSS = """
    PlayerPageScreen #pp-info { height: auto; padding: 0 1; color: $text-muted; }
    PlayerPageScreen #pp-info.-error { color: $text-error; }
    """

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("v", "toggle_chart", "Ree/position"),
        Binding("h", "recent_matches", "Recent matches"),
        Binding("f5", "reload", "Reload"),
        Binding("y", "copy", "Copy", show=False),
    ]

    def __init__(self, player: Player | str) -> None:
        super().__init__()
        self.player: Player = Player(id=player) if isinstance(player, str) else player
        self.player_id = str(self.player.id)
        self.player_name = self.player.label
        self._retry: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="pp-info")
        yield PlayerStory(id="pp-story")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = plain_str(f"Player · {self.player_name}")
        if not self.loaded:
            self.say("Reading the player's matches…")
        self._retry = self.set_interval(RETRY_SECONDS, self._retry_history, pause=False)

    @property
    def story(self) -> PlayerStory:
        return self.query_one(PlayerStory)

    def read_held(self, group: Group) -> tuple[list[CompactMatch], PlayerFigures]:
        """The player's matches only (`player_matches`): all their figures need (not the group's); and the
        figures, counted here in the thread."""
        matches = sorted(player_matches(group, self.player_id), key=lambda m: m.number)
        return matches, player_figures(matches, self.player_id)

    def held_key(self, held: tuple[list[CompactMatch], PlayerFigures]) -> object:
        return matches_key(held[0])

    def show_held(self, held: tuple[list[CompactMatch], PlayerFigures]) -> None:
        matches, figures = held
        self.matches = list(matches)
        self._show(self.matches, figures)

    def show_matches(self, matches: Sequence[MatchLike]) -> None:
        self._show(matches, None)

    def _show(self, matches: Sequence[MatchLike], figures: PlayerFigures | None) -> None:
        self.say("")
        self.story.show(matches, self.player_id, self.group if self.has_client else None, figures)
        if self.story.figures is not None and self.story.figures.played:
            self.title = plain_str(f"Player · {self.story.figures.name}")

    def _retry_history(self) -> None:
        if self.is_current and self.story.history_incomplete and self.has_client:
            self.story.reload_history(self.group)

    def action_reload(self) -> None:
        super().action_reload()
        if self.has_client:
            self.story.reload_history(self.group)

    def action_toggle_chart(self) -> None:
        self.story.toggle_chart()

    def action_copy(self) -> None:
        """The page in a few plain lines, to the clipboard."""
        if self.story.figures is None:
            self.say("Nothing to copy yet: the page is still reading.")
        else:
            copy_out(self, player_summary(self.story.figures), f"{self.player_name}'s page")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # at TALL lines both charts are shown: nothing to switch
        return not (action == "toggle_chart" and self.is_mounted and self.app.size.height >= TALL)

    def action_recent_matches(self) -> None:
        """The player's recent matches, each with its rank and points (from the matches held: no call)."""
        from rankterm.tui.dialogs.player_matches import LIMIT, PlayerMatchesScreen

        if not self.has_client:
            return
        figures = self.story.figures
        player = self.player
        if figures is not None and figures.played and not player.display_name:
            player = Player(id=player.id, display_name=figures.name)
        # the player's matches this page shows, the newest parsed whole (rank, points): no call
        newest = sorted(self.matches, key=played_order)[-(LIMIT + 1) :]
        held = matches_numbered(self.group, [m.number for m in newest]) or None
        self.app.push_screen(PlayerMatchesScreen(player, None, fetch=self.group.matches_page, held=held))

    @on(DataTable.RowSelected, "#ps-games")
    def _open_game(self, event: DataTable.RowSelected) -> None:
        open_game_row(self, event)


def open_game_row(screen: StoryScreen, event: DataTable.RowSelected) -> None:
    """Enter on a game's row (its key the game id): that game's page."""
    key = event.row_key.value
    if key is None or not key.lstrip("-").isdigit():
        return
    screen.app.push_screen(GamePageScreen(int(key)))


class GamePageScreen(StoryScreen):
    """A game's page, pushed by Enter on a game: Escape returns to where it was opened."""

    INFO = "#gp-info"
    AUTO_FOCUS = "#gs-standings"

    DEFAULT_CSS = """
    GamePageScreen #gp-info { height: auto; padding: 0 1; color: $text-muted; }
    GamePageScreen #gp-info.-error { color: $text-error; }
    """

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("f5", "reload", "Reload")]

    def __init__(self, game: Game | int) -> None:
        super().__init__()
        self.game_id = game if isinstance(game, int) else game.id
        self.game_name = "" if isinstance(game, int) else game.name

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="gp-info")
        yield GameStory(id="gp-story")
        yield KeyFooter()

    def on_mount(self) -> None:
        name = self.game_name or GameStory.known_name(self.rankterm.group, self.game_id)
        self.title = plain_str(f"Game · {name}")
        if not self.loaded:
            self.say("Reading the game's matches…")

    def read_held(self, group: Group) -> GameRead:
        """The game's matches, figures and records (`read_game`), in the thread: nothing left for the loop."""
        return read_game(group, self.game_id)

    def held_key(self, held: GameRead) -> object:
        return matches_key(held.matches)

    def show_held(self, held: GameRead) -> None:
        self.matches = held.matches
        self.say("")
        self.query_one(GameStory).show(held, self.group if self.has_client else None)

    @on(DataTable.RowSelected, "#gs-standings")
    def _open_player(self, event: DataTable.RowSelected) -> None:
        open_player_row(self, event)


def open_player_row(screen: StoryScreen, event: DataTable.RowSelected) -> None:
    """Enter on a row whose key is a player id: that player's page."""
    key = event.row_key.value
    if not key:
        return
    screen.app.push_screen(PlayerPageScreen(key))
