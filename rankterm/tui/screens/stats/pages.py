"""The two story pages that open each other: a player's page and a game's page (`player_page` and
`game_page` name them as before). Enter on a game's row of a player's page opens the game's, Enter on a
player's row of a game's page opens theirs: both live here so that neither module imports the other.

A player's page: ree over their matches as a chart, position over time, and the figures that tell their story.

`PlayerStory` is the page's body (the Stats mode's Player tab shows it under a picker); `PlayerPageScreen` is
the page pushed by Enter on a player anywhere (rankings, players, a match's players): Escape returns.

The figures (matches, wins, win rate overall and per game, current and longest streak, best game, nemesis,
favourite victim, the last 10 results as a form line) come from the group's matches at once
(`rankterm.stats.player_figures`). The chart needs the standings after the player's matches: they are read
in a worker (`player_history`, which spends at most a share of the hourly quota and keeps every page it read),
and the chart's title says how much is loaded ("42 of 60 points"); what the quota left out is asked again
later, in the background (every `RETRY_SECONDS` while the page is shown, and on F5).

Keys: v switches the chart between ree and position (at 40 lines or more both are shown) · h the player's
recent matches (rank and points of each) · Enter on a game opens its page · F5 reload · Escape back (the
pushed page).

A game's page: its figures (matches played, players, average factions, how often the bot wins, the most
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

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import DataTable, Header, Static

from rankterm.stats import GameFigures, PlayerFigures, game_figures, game_records, player_figures
from rankterm.stats.compact import CompactMatch, game_matches, player_matches
from rankterm.stats.history import History, player_history
from rankterm.stats.rules import MatchLike, played_order
from rankterm.stats.source import matches_numbered
from rankterm.tui.base import task
from rankterm.tui.screens.stats.base import StoryScreen
from rankterm.tui.screens.stats.words import axis_labels, day, fact_parts, form_parts, percent, plural
from rankterm.tui.text import NONE, error_sentence, label_text, plain, plain_str, styled
from rankterm.tui.widgets.chart import LineChart
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.localtime import UTC_ZONE, SeatZone
from rankterm.wire.models import Game, Player, RankingRow, Subset
from rankterm.wire.standing import shown_positions

if TYPE_CHECKING:
    from rankterm.mirror import Group

TALL = 34
"""From this many lines of terminal up, both charts (ree and position) are shown."""
COARSE_POINTS = 12
"""Points of the chart read first, so that it shows at once; then up to MAX_POINTS."""
MAX_POINTS = 60
"""Points of the chart at most (`player_history`'s max_points): the standings after that many matches."""
RETRY_SECONDS = 300.0
"""While a page is shown with history left out by the quota, it asks again this often."""
GAME_COLUMNS = ("Game", "Played", "Won", "Drawn", "Lost", "Rate")


def figure_rows(fig: PlayerFigures) -> list[tuple[str, object]]:
    """The figures beside the chart, as label/value rows (names plain)."""
    rows: list[tuple[str, object]] = [
        ("Played", fig.played),
        ("Won", f"{fig.wins} · {percent(fig.win_rate)}"),
        ("Drawn", fig.draws),
        ("Streak", f"{fig.current_streak} now · {fig.longest_streak} best"),
    ]
    best = fig.best_game
    if best is None:
        rows.append(("Best game", NONE))
    else:
        rows += [("Best game", best.game_name), ("", f"{percent(best.win_rate)} of {best.played}")]
    for label, rival, count, word in (
        ("Nemesis", fig.nemesis, fig.nemesis.behind if fig.nemesis else 0, "ahead in"),
        ("Victim", fig.victim, fig.victim.ahead if fig.victim else 0, "behind in"),
    ):
        if rival is None:
            rows.append((label, NONE))
        else:
            rows += [(label, rival.name), ("", f"{word} {count} of {rival.meetings}")]
    return rows


class PlayerStory(Vertical):
    """One player's page body: head line, chart(s) beside the figures, form line, results per game."""

    DEFAULT_CSS = """
    PlayerStory { height: 1fr; padding: 0 1; }
    PlayerStory #ps-head { height: 1; text-style: bold; }
    PlayerStory #ps-top { height: 11; }
    PlayerStory.-tall #ps-top { height: 22; }
    PlayerStory #ps-charts { width: 1fr; }
    PlayerStory .ps-chart-title { height: 1; color: $text-muted; }
    PlayerStory LineChart { height: 1fr; }
    PlayerStory #ps-pos-title, PlayerStory #ps-pos { display: none; }
    PlayerStory.-position #ps-pos-title, PlayerStory.-position #ps-pos { display: block; }
    PlayerStory.-position #ps-ree-title, PlayerStory.-position #ps-ree { display: none; }
    PlayerStory.-tall #ps-pos-title, PlayerStory.-tall #ps-pos,
    PlayerStory.-tall #ps-ree-title, PlayerStory.-tall #ps-ree { display: block; }
    PlayerStory #ps-facts { width: 30; height: auto; margin-left: 2; }
    PlayerStory #ps-form { height: 1; margin-top: 1; }
    PlayerStory #ps-games { height: 1fr; min-height: 3; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.player_id: str | None = None
        self.figures: PlayerFigures | None = None
        self.history: History | None = None
        self._history_for: tuple[str, tuple[int, ...]] | None = None
        self._history_of: str | None = None
        self._notes: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static("", id="ps-head")
        with Horizontal(id="ps-top"):
            with Vertical(id="ps-charts"):
                yield Static("Ree over matches", id="ps-ree-title", classes="ps-chart-title")
                yield LineChart(id="ps-ree", empty="Reading the standings after each match…")
                yield Static("Position over matches", id="ps-pos-title", classes="ps-chart-title")
                yield LineChart(
                    id="ps-pos", reverse=True, integer=True, empty="Reading the standings after each match…"
                )
            yield Static("", id="ps-facts")
        yield Static("", id="ps-form")
        yield TextTable(id="ps-games", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        self._fit()
        if self._notes:
            self._chart_titles(*self._notes)

    def _fit(self) -> None:
        self.set_class(self.app.size.height >= TALL, "-tall")

    def toggle_chart(self) -> None:
        """Ree <-> position (when only one chart fits)."""
        self.toggle_class("-position")

    # ------------------------------------------------------------------ drawing

    def show(self, matches: Sequence[MatchLike], player_id: str, group: Group | None) -> None:
        """Draw the player's figures from `matches` at once; read the chart's history in the background."""
        if player_id != self.player_id and self.history is not None:  # another player: not their chart
            self.history = None
            for chart in self.query(LineChart):
                chart.empty = "Reading the standings after each match…"
                chart.show_series([], [], [])
        self.player_id = player_id
        fig = player_figures(matches, player_id)
        self.figures = fig
        self.query_one("#ps-head", Static).update(
            styled(
                (fig.name, "bold"),
                f" · {plural(fig.played, 'match', 'matches')} · {fig.wins} won ({percent(fig.win_rate)})",
                (f" · since {day(fig.first_date, shown_zone(self))}" if fig.first_date else "", "dim"),
            )
        )
        self.query_one("#ps-facts", Static).update(styled(*fact_parts(figure_rows(fig))))
        self.query_one("#ps-form", Static).update(
            styled(("Form       ", "dim"), *form_parts(fig.form), ("  (newest last)", "dim"))
        )
        rows = [
            [
                Text(g.game_name),
                Text(str(g.played), justify="right"),
                Text(str(g.wins), justify="right"),
                Text(str(g.draws), justify="right"),
                Text(str(g.losses), justify="right"),
                Text(percent(g.win_rate), justify="right"),
            ]
            for g in fig.per_game
        ]
        self._fill_games(rows, [str(g.game_id) for g in fig.per_game])
        wanted = (player_id, fig.match_numbers)
        if group is not None and fig.played and wanted != self._history_for:
            self._history_for = wanted
            self.call_after_refresh(self.load_history, group, player_id)  # the figures are painted first
        elif not fig.played:
            self._show_history(History(points=[], loaded=0, wanted=0), player_id)

    def _fill_games(self, rows: list[list[Text]], keys: list[str]) -> None:
        # Each column as wide as its widest cell at once (not when the table is next idle: drawn before
        # that, game names were cut to the width of the column's title).
        fill_table(self.query_one("#ps-games", DataTable), GAME_COLUMNS, rows, keys)

    @task(group="player-history")
    async def load_history(self, group: Group, player_id: str) -> None:
        """The chart's points: first a coarse few (drawn at once), then up to MAX_POINTS; the coarse ones are
        among those (`history.thin` is stable), so the second read asks only for the others."""
        first = self.history is None or not self.history.points or self._history_of != player_id
        played = self.figures.played if self.figures is not None else 0
        try:
            if first:
                self._chart_titles("reading the standings…")
                if played > COARSE_POINTS:
                    coarse = await player_history(group, player_id, max_points=COARSE_POINTS)
                    if player_id != self.player_id:
                        return
                    if coarse.points:
                        self._show_history(coarse, player_id, more=True)
            history = await player_history(group, player_id, max_points=MAX_POINTS)
        except RanktermError as exc:
            self._chart_titles(error_sentence(exc))
            return
        if player_id != self.player_id:
            return
        self._show_history(history, player_id)

    def reload_history(self, group: Group) -> None:
        """Ask again for what the quota left out (F5, the retry timer)."""
        if self.player_id is not None:
            self.load_history(group, self.player_id)

    def _show_history(self, history: History, player_id: str | None = None, *, more: bool = False) -> None:
        self.history = history
        self._history_of = player_id
        points = history.points
        labels = axis_labels([p.date for p in points], shown_zone(self))
        xs = [p.match_number for p in points]
        empty = "No match yet." if not history.wanted else "No standings could be read yet."
        ree = self.query_one("#ps-ree", LineChart)
        pos = self.query_one("#ps-pos", LineChart)
        ree.empty = pos.empty = empty
        ree.show_series(xs, [p.ree for p in points], labels)
        pos.show_series(xs, [p.position for p in points], labels)
        if more:
            notes: tuple[str, ...] = (f"{history.loaded} points · reading more…",)
        elif history.complete:
            notes = (f"{history.loaded} points" if history.loaded != 1 else "1 point",)
        else:
            counted = f"{history.loaded} of {history.wanted} points"
            why = {
                "quota": (" · the rest when the quota allows", " (quota)"),
                "offline": (" · offline", " (offline)"),
            }.get(history.stopped or "", (" · loading…", " (loading)"))
            notes = (counted + why[0], counted + why[1], counted)
        self._chart_titles(*notes)

    def _chart_titles(self, *notes: str) -> None:
        """The charts' title lines: the latest figure, then the first of `notes` (longest first) that fits
        the line whole, with the key that shows the other chart when that fits too."""
        self._notes = notes
        last = self.history.points[-1] if self.history and self.history.points else None
        tall = self.has_class("-tall")
        for selector, head, now, other in (
            ("#ps-ree-title", "Ree", f" · {last.ree:.0f} now" if last else "", "position"),
            ("#ps-pos-title", "Position", f" · #{last.position} now" if last else "", "ree"),
        ):
            title = self.query_one(selector, Static)
            room = (title.size.width or self.query_one("#ps-charts").size.width or self.app.size.width) - 1
            hint = "" if tall else f" · v: {other}"
            tails = [f" · {note}{h}" for note in notes for h in dict.fromkeys((hint, ""))]
            tail = next((t for t in tails if cell_len(head + now + t) <= room), tails[-1])
            title.update(styled((head, "bold"), now, (tail, "dim")))

    @property
    def history_incomplete(self) -> bool:
        return self.history is not None and not self.history.complete


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

    def read_held(self, group: Group) -> list[CompactMatch]:
        """The player's matches only (`player_matches`): all their figures need (not the group's)."""
        return player_matches(group, self.player_id)

    def show_matches(self, matches: Sequence[MatchLike]) -> None:
        self.say("")
        self.story.show(matches, self.player_id, self.group if self.has_client else None)
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

    def show(self, matches: Sequence[MatchLike], game_id: int, group: Group | None) -> None:
        """Draw the game's figures from `matches` at once; its standings from the mirror, then the service."""
        changed = game_id != self.game_id
        self.game_id = game_id
        self.matches = [m for m in matches if m.game is not None and m.game.id == game_id]
        fig = game_figures(matches, game_id)
        self.figures = fig
        name = fig.name or self._known_name(group, game_id)
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
        if group is not None:
            self.load_standings(group, game_id)

    @staticmethod
    def _known_name(group: Group | None, game_id: int) -> str:
        games: list[Game] = group.cached_games() if group is not None else []
        return next((g.name for g in games if g.id == game_id), f"Game {game_id}")

    @task(group="game-standings")
    async def load_standings(self, group: Group, game_id: int) -> None:
        title = self.query_one("#gs-standings-title", Static)
        subset = subset_of(group.cached_subsets(), game_id)
        try:
            if subset is None:
                subset = subset_of(await group.subsets(), game_id)
            if subset is None:
                title.update("Standings: this game has no subset of its own yet.")
                return
            rows = await group.all_rankings(subset=subset.id)
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
        records = game_records(self.matches, self.game_id) if self.game_id is not None else {}
        positions = shown_positions(rows)  # equal ree, equal place
        cells = []
        for row in rows:
            record = records.get(str(row.player.id))
            cells.append(
                [
                    Text(str(positions[row.player.id]), justify="right"),
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
        name = self.game_name or GameStory._known_name(self.rankterm.group, self.game_id)
        self.title = plain_str(f"Game · {name}")
        if not self.loaded:
            self.say("Reading the game's matches…")

    def read_held(self, group: Group) -> list[CompactMatch]:
        """The game's matches only (`game_matches`): all its figures need."""
        return game_matches(group, self.game_id)

    def show_matches(self, matches: Sequence[MatchLike]) -> None:
        self.say("")
        self.query_one(GameStory).show(matches, self.game_id, self.group if self.has_client else None)

    @on(DataTable.RowSelected, "#gs-standings")
    def _open_player(self, event: DataTable.RowSelected) -> None:
        open_player_row(self, event)


def open_player_row(screen: StoryScreen, event: DataTable.RowSelected) -> None:
    """Enter on a row whose key is a player id: that player's page."""
    key = event.row_key.value
    if not key:
        return
    screen.app.push_screen(PlayerPageScreen(key))
