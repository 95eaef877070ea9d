"""A player's story (`PlayerStory`): ree over their matches as a chart, position over time, and the figures
that tell their story (matches, wins, win rate overall and per game, streaks, best game, nemesis, favourite
victim, the last 10 results as a form line). The body of a player's page (`screens.stats.pages`) and of the
Stats mode's Player tab. See docs/design/tui.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from rankterm.stats import PlayerFigures, player_figures
from rankterm.stats.history import History, player_history
from rankterm.stats.rules import MatchLike
from rankterm.tui.base import task
from rankterm.tui.text import NONE, error_sentence, styled
from rankterm.tui.widgets.chart import LineChart
from rankterm.tui.widgets.stats.words import axis_labels, day, fact_parts, form_parts, percent, plural
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError

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

    def show(
        self,
        matches: Sequence[MatchLike],
        player_id: str,
        group: Group | None,
        figures: PlayerFigures | None = None,
    ) -> None:
        """Draw the player's figures (`figures`, counted in the thread that read `matches`: a busy player of a
        big group plays thousands; else counted here) at once; read the chart's history in the background."""
        if player_id != self.player_id and self.history is not None:  # another player: not their chart
            self.history = None
            for chart in self.query(LineChart):
                chart.empty = "Reading the standings after each match…"
                chart.show_series([], [], [])
        self.player_id = player_id
        fig = figures if figures is not None else player_figures(matches, player_id)
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
