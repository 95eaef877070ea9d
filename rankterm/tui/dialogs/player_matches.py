"""`PlayerMatchesScreen`: a modal with one player's recent matches in a subset, each with its rank and points
(opened with h from a player's page, `rankterm.tui.screens.stats.player_page`, which Enter on a player opens).

Given the group's matches held on disk (`held`, as the player's page has them), it lists the player's newest
from those, with no call. Otherwise (the service has no "matches of a player" endpoint) it reads the subset's newest matches a page at a time
(`client.matches_page`, at most `MAX_PAGES` pages) and keeps those where the player appears, stopping at
`LIMIT` matches. The line above the table says honestly how far it looked: "last 7 matches of Ada, among the
75 newest matches of Catan". Escape closes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from rankterm.tui.text import error_sentence, plain
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import Faction, Match, MatchesPage, Player, Subset

MAX_PAGES = 4
"""Pages of the subset's matches read at most (each costs a call against the quota)."""
LIMIT = 10
"""Matches shown at most."""

COLUMNS = ("No.", "Date", "Game", "Rank", "Points", "Result")

FetchPage = Callable[..., Awaitable[MatchesPage]]
"""`client.matches_page`: (page, subset=...) -> MatchesPage."""


def faction_of(match: Match, player_id: str) -> Faction | None:
    """The faction of `match` in which the player played, if any."""
    for faction in match.factions:
        if any(p.id == player_id for p in faction.players):
            return faction
    return None


def format_points(value: float | int | None) -> str:
    if value is None:
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


class PlayerMatchesScreen(ModalScreen[None]):
    """A player's recent matches in the chosen subset."""

    DEFAULT_CSS = """
    PlayerMatchesScreen {
        align: center middle;
        background: $background 60%;
    }
    PlayerMatchesScreen #pm-box {
        width: 90%;
        max-width: 100;
        height: 90%;
        border: round $accent;
        border-title-color: $text-accent;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }
    PlayerMatchesScreen #pm-info {
        height: auto;
        color: $text-muted;
    }
    PlayerMatchesScreen #pm-info.-error {
        color: $text-error;
    }
    PlayerMatchesScreen DataTable {
        height: 1fr;
    }
    """

    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(
        self, player: Player, subset: Subset | None, *, fetch: FetchPage, held: list[Match] | None = None
    ) -> None:
        super().__init__()
        self.fetch = fetch
        self.held = held
        self.player = player
        self.subset = subset
        self.found: list[tuple[Match, Faction]] = []
        self.scanned = 0

    @property
    def subset_name(self) -> str:
        if self.subset is None or self.subset.is_main:
            return "the group"
        return self.subset.name

    def compose(self) -> ComposeResult:
        with Vertical(id="pm-box") as box:
            box.border_title = plain(f"{self.player.label} · recent matches")
            box.border_subtitle = "esc close"
            yield Static("Looking through the newest matches…", id="pm-info", markup=False)
            yield TextTable(id="pm-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        fill_table(table, COLUMNS, [], [])
        table.focus()
        self.load()

    def action_close(self) -> None:
        self.dismiss(None)

    @work(exclusive=True, group="player-matches", exit_on_error=False)
    async def load(self) -> None:
        if self.held is not None:
            newest = sorted(self.held, key=lambda m: (m.date, m.number), reverse=True)
            for match in newest:
                self.scanned += 1
                faction = faction_of(match, self.player.id)
                if faction is not None:
                    self.found.append((match, faction))
                    if len(self.found) == LIMIT:
                        break
            self._fill(complete=self.scanned == len(newest))
            return
        box = self.query_one("#pm-box")
        box.loading = True
        subset_id = None if self.subset is None or self.subset.is_main else self.subset.id
        total_pages = 1
        try:
            page = 1
            while page <= min(MAX_PAGES, total_pages) and len(self.found) < LIMIT:
                data = await self.fetch(page, subset=subset_id)
                total_pages = data.total_pages
                for match in data.data:
                    self.scanned += 1
                    faction = faction_of(match, self.player.id)
                    if faction is not None and len(self.found) < LIMIT:
                        self.found.append((match, faction))
                page += 1
            complete = page > total_pages
        except RanktermError as exc:
            self._say(error_sentence(exc), error=True)
            return
        finally:
            box.loading = False
        self._fill(complete)

    def _say(self, text: str, *, error: bool = False) -> None:
        info = self.query_one("#pm-info", Static)
        info.update(plain(text))
        info.set_class(error, "-error")

    def _fill(self, complete: bool) -> None:
        zone = shown_zone(self)
        rows = [
            [
                str(match.number),
                zone.show(match.date, "%Y-%m-%d"),  # a day: the seat's, its zone named where times are shown
                match.game.name if match.game else "",
                f"{faction.rank} of {len(match.factions)}",
                format_points(faction.points),
                "won" if faction.winner else ("draw" if match.draw else ""),
            ]
            for match, faction in self.found
        ]
        # each column as wide as its widest cell at once (str cells: plain, display-safe text, measured in cells)
        fill_table(self.query_one(DataTable), COLUMNS, rows, [str(match.number) for match, _ in self.found])
        n = len(self.found)
        who = self.player.label
        if complete and n < LIMIT:
            text = f"All {n} match{'es' if n != 1 else ''} of {who} in {self.subset_name}."
        else:
            text = f"Last {n} match{'es' if n != 1 else ''} of {who}, among the {self.scanned} newest of {self.subset_name}."
        self._say(text if n else f"No match of {who} among the {self.scanned} newest of {self.subset_name}.")
