"""Stats (mode "stats", key s): the group's stories in five tabs: a player's page, head-to-head, a game's page,
tonight, and how often the odds came true.

Every tab is drawn from the group's matches held in the mirror, revalidated (see `StoryScreen`): the
pickers from the roster of who and what the matches name (`held_roster`, no match parsed), each tab from
only the matches it tells (a player's, a game's, an evening's), read in a thread. The Player and Game tabs show the
same page that Enter on a player or a game opens elsewhere.

Keys: 1 Player · 2 Head-to-head · 3 Game · 4 Tonight · 5 Odds · v ree/position chart · Enter on a player or a game
opens their page · F5 reload.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import DataTable, Header, Select, Static, TabbedContent, TabPane

from rankterm.stats import PlayerFigures, player_figures
from rankterm.stats.compact import CompactMatch, player_matches
from rankterm.stats.recap import h2h_summary, player_summary
from rankterm.stats.source import Roster, held_roster
from rankterm.tui.base import copy_out, task
from rankterm.tui.screens.stats.base import StoryScreen
from rankterm.tui.screens.stats.pages import open_game_row, open_player_row
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.stats.choices import most_active, options
from rankterm.tui.widgets.stats.game_story import GameStory, read_game
from rankterm.tui.widgets.stats.head_to_head import HeadToHeadView
from rankterm.tui.widgets.stats.odds import OddsView
from rankterm.tui.widgets.stats.picked import LazyPane, PickedStory
from rankterm.tui.widgets.stats.player_story import RETRY_SECONDS, TALL, PlayerStory
from rankterm.tui.widgets.stats.tonight import TonightView

if TYPE_CHECKING:
    from rankterm.mirror import Group

TAB_TITLES = {
    "player": "1 Player",
    "h2h": "2 Head-to-head",
    "game": "3 Game",
    "tonight": "4 Tonight",
    "odds": "5 Odds",
}


def tab_body(tab: str) -> Widget:
    """The body of a tab, built when the tab is first drawn (a Stats screen opened on one tab mounts only
    that one)."""
    if tab == "player":
        return PickedStory("Player", "stats-player", PlayerStory(id="stats-player-story"))
    if tab == "game":
        return PickedStory("Game", "stats-game", GameStory(id="stats-game-story"))
    if tab == "h2h":
        return HeadToHeadView(id="stats-h2h")
    if tab == "odds":
        return OddsView(id="stats-odds")
    return TonightView(id="stats-tonight")


class StatsScreen(StoryScreen):
    """The five stories of the group, one tab each."""

    INFO = "#stats-info"
    NO_COPY = "Offline: no copy of the group's matches here; the stats come when the service is back."

    DEFAULT_CSS = """
    StatsScreen #stats-info { height: auto; padding: 0 1; color: $text-muted; }
    StatsScreen #stats-info.-error { color: $text-error; }
    StatsScreen TabPane { padding: 0; }
    StatsScreen .stats-pick { height: 1; padding: 0 1; }
    StatsScreen .stats-pick Label { width: auto; margin-right: 1; color: $text-muted; }
    StatsScreen .stats-pick Select { width: 28; }
    """

    BINDINGS = [
        Binding("1", "tab('player')", "Player", show=False),
        Binding("2", "tab('h2h')", "Head-to-head", show=False),
        Binding("3", "tab('game')", "Game", show=False),
        Binding("4", "tab('tonight')", "Tonight", show=False),
        Binding("5", "tab('odds')", "Odds", show=False),
        Binding("v", "toggle_chart", "Ree/position"),
        Binding("f5", "reload", "Reload"),
        Binding("y", "copy", "Copy", show=False),
        Binding("escape", "leave_picker", "Back to the table", show=False),  # then a digit or letter is a key
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.roster: Roster | None = None
        self._players: dict[str, str] = {}
        self._games: dict[int, str] = {}
        self._filling = False
        self._mounting: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="stats-info")
        with TabbedContent(initial="player", id="stats-tabs"):
            for tab, title in TAB_TITLES.items():
                yield LazyPane(title, id=tab)  # its body is mounted when the tab is first drawn
        yield KeyFooter()

    def on_mount(self) -> None:
        if not self.loaded:
            self.say("Reading the group's matches…")
        self.set_interval(RETRY_SECONDS, self._retry_history)

    def _retry_history(self) -> None:
        """What the quota left out of the chart, asked again while the Player tab is shown."""
        for story in self.query(PlayerStory):
            if self.is_current and self.tab == "player" and story.history_incomplete and self.has_client:
                story.reload_history(self.group)

    # ------------------------------------------------------------------ reading and drawing

    def read_held(self, group: Group) -> Roster:
        """Who and what the pickers offer (`held_roster`: no match parsed); each tab reads its own matches."""
        return held_roster(group)

    def held_key(self, held: Roster) -> object:
        return held.key

    def show_held(self, held: Roster) -> None:
        self.roster = held
        self.say("" if held.players else "No match recorded yet: the stories start with the first one.")
        self._fill_pickers(held)
        self._draw_tab()

    @property
    def tab(self) -> str:
        return self.query_one(TabbedContent).active or "player"

    def _fill_pickers(self, roster: Roster) -> None:
        """Offer the players and games of the held matches in the pickers mounted so far."""
        players, games = roster.players, roster.games
        picks = {s.id: s for s in self.query(Select) if s.id in ("stats-player", "stats-game")}
        player_pick, game_pick = picks.get("stats-player"), picks.get("stats-game")
        self._filling = True
        try:
            if player_pick is not None and players != self._players:
                self._players = players
                chosen = player_pick.value
                player_pick.set_options(options(players))
                first = chosen if isinstance(chosen, str) and chosen in players else most_active(roster)
                if first is not None:
                    player_pick.value = first
            if game_pick is not None and games != self._games:
                self._games = games
                chosen_game = game_pick.value
                game_pick.set_options(options(games))
                if isinstance(chosen_game, str) and chosen_game.isdigit() and int(chosen_game) in games:
                    game_pick.value = chosen_game
                elif games:
                    game_pick.value = str(max(games, key=lambda g: (roster.game_played.get(g, 0), -g)))
        finally:
            self._filling = False

    def _draw_tab(self) -> None:
        """Draw the tab shown (the others are drawn when shown); its body is mounted first."""
        if self.roster is None or not self.has_client:
            return
        tab = self.tab
        pane = self.query_one(f"#{tab}", TabPane)
        if not pane.children:
            if tab not in self._mounting:
                self._mounting.add(tab)
                self.call_later(self._mount_body, pane, tab)
            return
        if tab == "player":
            value = self.query_one("#stats-player", Select).value
            if isinstance(value, str):
                self.read_tab(tab, value)
        elif tab == "h2h":
            self.query_one(HeadToHeadView).show(self.roster, self.group)
        elif tab == "game":
            value = self.query_one("#stats-game", Select).value
            if isinstance(value, str) and value.lstrip("-").isdigit():
                self.read_tab(tab, value)
        elif tab == "tonight":
            self.query_one(TonightView).show(self.roster, self.group)
        elif tab == "odds":
            self.query_one(OddsView).show(self.roster.key, self.group)

    @task(group="stats-tab")
    async def read_tab(self, tab: str, value: str) -> None:
        """The Player or Game tab: the player's (the game's) matches read in a thread, then drawn."""
        group = self.group
        if tab == "player":

            def read_player() -> tuple[list[CompactMatch], PlayerFigures]:
                mine = player_matches(group, value)  # and the figures counted here too: thousands of matches
                return mine, player_figures(mine, value)

            mine, figures = await asyncio.to_thread(read_player)
            self.query_one(PlayerStory).show(mine, value, group, figures)
        else:
            game = int(value)
            read = await asyncio.to_thread(read_game, group, game)
            self.query_one(GameStory).show(read, group)

    async def _mount_body(self, pane: TabPane, tab: str) -> None:
        await pane.mount(tab_body(tab))
        self._mounting.discard(tab)
        if tab == "player":
            self._players = {}
        elif tab == "game":
            self._games = {}
        if self.roster is not None:
            self._fill_pickers(self.roster)
        self._draw_tab()

    # ------------------------------------------------------------------ events and keys

    @on(TabbedContent.TabActivated)
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        if self.loaded:
            self._draw_tab()

    @on(Select.Changed, "#stats-player, #stats-game")
    def _picked(self, event: Select.Changed) -> None:
        if not self._filling and self.loaded:
            self._draw_tab()
            if event.select.has_focus:  # picked by hand (the first fill's change arrives late, unfocused)
                self.action_leave_picker()

    def action_leave_picker(self) -> None:
        """Leave the picker the cursor is in (Escape, or a pick): the tab's first table takes the keys, so that
        a digit, a screen's letter or a cursor key reaches the screen again (a picker searches what is typed)."""
        pane = self.query_one(TabbedContent).active_pane
        table = next(iter(pane.query(DataTable)), None) if pane is not None else None
        self.set_focus(table if table is not None and table.focusable else None)

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_toggle_chart(self) -> None:
        for story in self.query(PlayerStory):
            story.toggle_chart()

    def action_copy(self) -> None:
        """The tab shown (a player, a head-to-head, Tonight) in a few plain lines, to the clipboard."""
        tab = self.tab
        if tab == "player":
            figures = next((s.figures for s in self.query(PlayerStory)), None)
            if figures is not None:
                copy_out(self, player_summary(figures), f"{figures.name}'s page")
                return
        elif tab == "h2h":
            meeting = next((v.figures for v in self.query(HeadToHeadView)), None)
            if meeting is not None:
                copy_out(self, h2h_summary(meeting), "the head-to-head")
                return
        elif tab == "tonight":
            view = next(iter(self.query(TonightView)), None)
            if view is not None and view.evening is not None and self.has_client:
                self.copy_recap(view)
                return
        else:
            self.say("y copies a player's page, a head-to-head or Tonight.")
            return
        self.say("Nothing to copy yet: pick who or what first.")

    @task(group="copy")
    async def copy_recap(self, view: TonightView) -> None:
        """Tonight's recap with what it changed (a walk of the held history, in a thread), to the clipboard."""
        text = await asyncio.to_thread(view.recap, self.group)
        copy_out(self, text, "the evening's recap")

    def action_reload(self) -> None:
        super().action_reload()
        if not self.has_client:
            return
        if self.tab == "player":
            for story in self.query(PlayerStory):
                story.reload_history(self.group)
        elif self.tab == "tonight":
            for view in self.query(TonightView):
                view.reload_ree()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "toggle_chart" or not self.is_mounted:
            return True
        # the chart is the Player tab's, and at TALL lines both charts are shown
        return self.tab == "player" and self.app.size.height < TALL

    @on(DataTable.RowSelected, "#ps-games, #h2h-games")
    def _open_game(self, event: DataTable.RowSelected) -> None:
        open_game_row(self, event)

    @on(DataTable.RowSelected, "#gs-standings, #tn-tally")
    def _open_player(self, event: DataTable.RowSelected) -> None:
        open_player_row(self, event)
