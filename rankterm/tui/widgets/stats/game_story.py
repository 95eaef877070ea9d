"""A game's story (`GameStory`): its figures (matches played, players, average factions, how often the bot
wins, the most winning player, the longest streak) above its subset's standings. The body of a game's page
(`screens.stats.pages`) and of the Stats mode's Game tab. See docs/design/tui.md.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from rankterm.stats import GameFigures, game_records
from rankterm.stats.compact import game_matches, held_game_figures
from rankterm.stats.figures import GameRecord
from rankterm.stats.rules import MatchLike
from rankterm.tui.base import task
from rankterm.tui.text import NONE, error_sentence, label_text, plain, plain_str, styled
from rankterm.tui.widgets.stats.words import day, fact_parts, percent, plural
from rankterm.tui.widgets.text_table import Room, TableFill, TextTable, put_fill, room_of, table_fill
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.localtime import UTC_ZONE, SeatZone
from rankterm.wire.models import Game, RankingRow, Subset
from rankterm.wire.standing import shown_positions

if TYPE_CHECKING:
    from rankterm.mirror import Group
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


@dataclass(frozen=True)
class GameRead:
    """A game's story as read in a thread (`read_game`), for `GameStory.show` to draw with no work of its own."""

    game_id: int
    matches: list[MatchLike]
    """The game's held matches, oldest first."""
    figures: GameFigures
    records: dict[str, GameRecord]
    """Each player's results in the game, by player id."""


def read_game(group: Group, game_id: int) -> GameRead:
    """The game's matches from the mirror, its figures counted in SQL (`held_game_figures`), each player's
    record in one pass; no request, and slow on a big group: run it in a thread, never on the event loop."""
    matches: list[MatchLike] = sorted(game_matches(group, game_id), key=lambda m: m.number)
    return GameRead(game_id, matches, held_game_figures(group, game_id), game_records(matches, game_id))


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
        self.records: dict[str, GameRecord] = {}
        self.rows: list[RankingRow] = []
        self._shown: object = None

    def compose(self) -> ComposeResult:
        yield Static("", id="gs-head")
        yield Static("", id="gs-facts")
        yield Static("Standings", id="gs-standings-title")
        yield TextTable(id="gs-standings", cursor_type="row", zebra_stripes=True)

    def show(self, read: GameRead, group: Group | None) -> None:
        """Draw the game's figures as read (`read_game`) at once; its standings from the mirror, then the
        service."""
        game_id = read.game_id
        changed = game_id != self.game_id
        self.game_id = game_id
        self.matches = read.matches
        self.records = read.records
        fig = self.figures = read.figures
        name = fig.name or self.known_name(group, game_id)
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
    def known_name(group: Group | None, game_id: int) -> str:
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
        shown = ([(r.player.id, r.position, r.ree) for r in rows], subset.count_matches, len(self.matches))
        if shown == self._shown:
            return
        table = self.query_one("#gs-standings", DataTable)
        # a big group's game has hundreds of players: their cells are made and measured in a thread
        fill = await asyncio.to_thread(standings_fill, rows, self.records, room_of(table))
        if game_id != self.game_id:
            return
        self._shown = shown
        self.rows = rows
        self.query_one("#gs-standings-title", Static).update(
            styled(
                ("Standings", "bold"), (f" · {plural(len(rows), 'player')} · Enter a player's page", "dim")
            )
        )
        # Each column as wide as its widest cell at once (not when the table is next idle: drawn before
        # that, names were cut to the width of the list shown before).
        put_fill(table, fill)


def standings_fill(rows: list[RankingRow], records: dict[str, GameRecord], room: Room) -> TableFill:
    """A game's standings as its table shows them, each player's record in the game beside their ree."""
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
    return table_fill(room, STANDING_COLUMNS, cells, [str(row.player.id) for row in rows])
