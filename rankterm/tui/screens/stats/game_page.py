"""A game's page: its figures (matches played, players, average factions, how often the bot wins, the most
winning player, the longest streak) above its subset's standings.

`GameStory` is the page's body (the Stats mode's Game tab shows it under a picker); `GamePageScreen` is the
page pushed by Enter on a game in the games list: Escape returns. The figures come from the group's matches
at once (`rankterm.stats.game_figures`); the standings are the service's rankings of the game's subset
(the mirror's copy first, then the service's), read in a worker.

Keys: Enter on a player opens their page · F5 reload · Escape back (the pushed page).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Header, Static

from rankterm.stats import GameFigures, GameRecord, game_figures, player_figures
from rankterm.stats.compact import CompactMatch, game_matches
from rankterm.stats.rules import MatchLike
from rankterm.tui.base import task
from rankterm.tui.screens.stats.base import StoryScreen
from rankterm.tui.screens.stats.words import day, fact_parts, percent, plural
from rankterm.tui.text import NONE, error_sentence, label_text, plain, plain_str, styled
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.localtime import UTC_ZONE, SeatZone
from rankterm.wire.models import Game, RankingRow, Subset

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient

STANDING_COLUMNS = ("Pos", "Player", "Ree", "Played", "Won", "Rate", "Status")


def game_rows(fig: GameFigures, zone: SeatZone = UTC_ZONE) -> list[tuple[str, object]]:
    """The game's figures as label/value rows (names plain; days in `zone`)."""
    rows: list[tuple[str, object]] = [
        (
            "Matches",
            f"{fig.played} · {day(fig.first_date, zone)} to {day(fig.last_date, zone)}" if fig.played else 0,
        ),
        ("Players", fig.players),
        (
            "Factions",
            NONE if fig.average_factions is None else f"{fig.average_factions:.1f} a match on average",
        ),
    ]
    if fig.bot_matches:
        rows.append(
            ("Bot won", f"{fig.bot_wins} of {fig.bot_matches} with a bot ({percent(fig.bot_win_rate)})")
        )
    top = fig.top_winner
    rows.append(
        (
            "Most wins",
            NONE if top is None else f"{top.name} · {top.wins} of {top.played} ({percent(top.win_rate)})",
        )
    )
    streak = fig.longest_streak
    rows.append(
        (
            "Streak",
            NONE
            if streak is None
            else f"{streak.name} · {plural(streak.length, 'win')} in a row"
            f" (matches {streak.first} to {streak.last})",
        )
    )
    return rows


def subset_of(subsets: list[Subset], game_id: int) -> Subset | None:
    """The game's own subset (not a custom one), if the group has it."""
    return next(
        (
            s
            for s in subsets
            if s.game is not None and s.game.id == game_id and not s.is_custom and not s.is_main
        ),
        None,
    )


class GameStory(Vertical):
    """One game's page body: head line, figures, the subset's standings."""

    DEFAULT_CSS = """
    GameStory { height: 1fr; padding: 0 1; }
    GameStory #gs-head { height: 1; text-style: bold; }
    GameStory #gs-facts { height: auto; margin-bottom: 1; }
    GameStory #gs-standings-title { height: 1; color: $text-muted; }
    GameStory #gs-standings { height: 1fr; min-height: 3; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.game_id: int | None = None
        self.matches: list[MatchLike] = []
        self.figures: GameFigures | None = None
        self.rows: list[RankingRow] = []
        self._shown: object = None

    def compose(self) -> ComposeResult:
        yield Static("", id="gs-head")
        yield Static("", id="gs-facts")
        yield Static("Standings", id="gs-standings-title")
        yield TextTable(id="gs-standings", cursor_type="row", zebra_stripes=True)

    def show(self, matches: Sequence[MatchLike], game_id: int, client: RankingClient | None) -> None:
        """Draw the game's figures from `matches` at once; its standings from the mirror, then the service."""
        changed = game_id != self.game_id
        self.game_id = game_id
        self.matches = [m for m in matches if m.game is not None and m.game.id == game_id]
        fig = game_figures(matches, game_id)
        self.figures = fig
        name = fig.name or self._known_name(client, game_id)
        self.query_one("#gs-head", Static).update(
            styled((name, "bold"), (f" · {plural(fig.played, 'match', 'matches')}", ""))
        )
        self.query_one("#gs-facts", Static).update(
            styled(*fact_parts(game_rows(fig, shown_zone(self)), width=10))
        )
        if changed:
            self.rows = []
            self._shown = None
            self.query_one("#gs-standings", DataTable).clear(columns=True)
        if client is not None:
            self.load_standings(client, game_id)

    @staticmethod
    def _known_name(client: RankingClient | None, game_id: int) -> str:
        games: list[Game] = client.cached_games() if client is not None else []
        return next((g.name for g in games if g.id == game_id), f"Game {game_id}")

    @task(group="game-standings")
    async def load_standings(self, client: RankingClient, game_id: int) -> None:
        title = self.query_one("#gs-standings-title", Static)
        subset = subset_of(client.cached_subsets(), game_id)
        try:
            if subset is None:
                subset = subset_of(await client.subsets(), game_id)
            if subset is None:
                title.update("Standings: this game has no subset of its own yet.")
                return
            rows = await client.all_rankings(subset=subset.id)
        except RanktermError as exc:
            title.update(plain(f"Standings could not be read. {error_sentence(exc)}"))
            return
        if game_id != self.game_id:
            return
        self._fill(rows, subset)

    def _fill(self, rows: list[RankingRow], subset: Subset) -> None:
        shown = ([(r.player.id, r.position, r.ree) for r in rows], subset.count_matches, len(self.matches))
        if shown == self._shown:
            return
        self._shown = shown
        self.rows = rows
        self.query_one("#gs-standings-title", Static).update(
            styled(
                ("Standings", "bold"), (f" · {plural(len(rows), 'player')} · Enter a player's page", "dim")
            )
        )
        cells = []
        for row in rows:
            record = self._record(str(row.player.id))
            cells.append(
                [
                    Text(str(row.position), justify="right"),
                    Text(plain_str(row.player.label)),
                    Text(NONE if row.ree is None else f"{row.ree:.1f}", justify="right"),
                    Text(str(record.played) if record else "0", justify="right"),
                    Text(str(record.wins) if record else "0", justify="right"),
                    Text(percent(record.win_rate) if record else NONE, justify="right"),
                    Text(plain_str(label_text(row.status_label, row.status))),
                ]
            )
        # Each column as wide as its widest cell at once (not when the table is next idle: drawn before
        # that, names were cut to the width of the list shown before).
        table = self.query_one("#gs-standings", DataTable)
        fill_table(table, STANDING_COLUMNS, cells, [str(row.player.id) for row in rows])

    def _record(self, player_id: str) -> GameRecord | None:
        """The player's results in this game (their page's row for it: the same rules)."""
        figures = player_figures(self.matches, player_id)
        return next((g for g in figures.per_game if g.game_id == self.game_id), None)


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
        name = self.game_name or GameStory._known_name(self.rankterm.client, self.game_id)
        self.title = plain_str(f"Game · {name}")
        if not self.loaded:
            self.say("Reading the game's matches…")

    def read_held(self, client: RankingClient) -> list[CompactMatch]:
        """The game's matches only (`game_matches`): all its figures need."""
        return game_matches(client, self.game_id)

    def show_matches(self, matches: Sequence[MatchLike]) -> None:
        self.say("")
        self.query_one(GameStory).show(matches, self.game_id, self.client if self.has_client else None)

    @on(DataTable.RowSelected, "#gs-standings")
    def _open_player(self, event: DataTable.RowSelected) -> None:
        open_player_row(self, event)


def open_player_row(screen: StoryScreen, event: DataTable.RowSelected) -> None:
    """Enter on a row whose key is a player id: that player's page."""
    key = event.row_key.value
    if not key:
        return
    from rankterm.tui.screens.stats.player_page import PlayerPageScreen

    screen.app.push_screen(PlayerPageScreen(key))
