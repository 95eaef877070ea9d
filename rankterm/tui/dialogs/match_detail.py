"""`MatchDetailScreen`: a modal with one recorded match: its factions in rank order, players, points, winner, bot.

It shows the `Match` the matches list already holds (no call). Escape closes it.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from rankterm.stats.recap import match_summary
from rankterm.tui.base import copy_out
from rankterm.tui.text import match_type_text, plain, plain_str, weight_text
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.tui.zone import shown_zone
from rankterm.wire.localtime import UTC_ZONE, SeatZone
from rankterm.wire.models import Faction, Match


def points_text(value: float | int | None) -> str:
    if value is None:
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


def faction_players(faction: Faction) -> str:
    if faction.bot:
        return "(bot)"
    return ", ".join(p.label for p in faction.players) or "(no player)"


def match_facts(match: Match, zone: SeatZone = UTC_ZONE) -> list[str]:
    """The lines above the factions: when (in `zone`, named: "2026-05-29 08:26 (Auckland)") and the game;
    weight and type; external id; notes. The date and its zone start a line of their own length, so that
    they are never cut apart in a dialog 80 columns wide, whatever the zone, game or type.

    (Not the registration date: the demo service stamps it with the real clock even when its clock is
    frozen, and it tells a player little.)
    """
    game = match.game.name if match.game else "?"
    lines = [
        f"{zone.show(match.date)} ({zone.label}) · {game}",
        f"weight {weight_text(match.weight_label, match.weight)} · {match_type_text(match.type)}"
        + (" · draw" if match.draw else ""),
    ]
    if match.external_id:
        lines.append(f"external id {match.external_id}")
    if match.notes:
        lines.append(f"Notes: {match.notes}")
    return lines


class MatchDetailScreen(ModalScreen[None]):
    """One match in full."""

    DEFAULT_CSS = """
    MatchDetailScreen {
        align: center middle;
        background: $background 60%;
    }
    MatchDetailScreen #md-box {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: round $accent;
        border-title-color: $text-accent;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }
    MatchDetailScreen #md-facts {
        height: auto;
        color: $text-muted;
        margin: 0 0 1 0;
    }
    MatchDetailScreen DataTable {
        height: auto;
        max-height: 20;
    }
    """

    BINDINGS = [Binding("escape", "close", "Close"), Binding("y", "copy", "Copy", show=False)]

    def __init__(self, match: Match) -> None:
        super().__init__()
        self.match = match

    def compose(self) -> ComposeResult:
        match = self.match
        with Vertical(id="md-box") as box:
            box.border_title = plain(f"Match {match.number} · {match.game.name if match.game else 'game?'}")
            box.border_subtitle = "esc close"
            yield Static(plain("\n".join(match_facts(match, shown_zone(self)))), id="md-facts")
            yield TextTable(id="md-table", cursor_type="row", zebra_stripes=True)

    def action_copy(self) -> None:
        """The match in one plain line, to the clipboard."""
        copy_out(self, match_summary(self.match), "the match")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        named = any(f.name for f in self.match.factions)
        columns = [("Rank", "Rank"), ("Faction", "Faction"), ("Players", "Players"), ("Points", "Points")]
        columns += [("marks", "")]
        if not named:
            del columns[1]
        rows: list[list[Text]] = []
        for faction in sorted(self.match.factions, key=lambda f: f.rank):
            marks = []
            if faction.winner:
                marks.append("★ winner")
            if faction.bot:
                marks.append("bot")
            style = "bold" if faction.winner else ""
            cells = [
                Text(str(faction.rank), style=style),
                Text(plain_str(faction.name), style=style),
                Text(plain_str(faction_players(faction)), style=style),
                Text(points_text(faction.points), style=style),
                Text(" · ".join(marks), style=style),
            ]
            if not named:
                del cells[1]
            rows.append(cells)
        # each column as wide as its widest cell at once: a dialog is drawn before the table is next idle
        fill_table(table, columns, rows)
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a faction: its (first) player's page; Escape comes back here."""
        from rankterm.tui.screens.stats.player_page import PlayerPageScreen

        factions = sorted(self.match.factions, key=lambda f: f.rank)
        if 0 <= event.cursor_row < len(factions) and not factions[event.cursor_row].bot:
            players = factions[event.cursor_row].players
            if players:
                self.app.push_screen(PlayerPageScreen(players[0]))
