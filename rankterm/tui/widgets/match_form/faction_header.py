"""`FactionRowHeader`: the column titles over the faction rows, laid out with the rows' own widths."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label


class FactionRowHeader(Horizontal):
    """ "#  Players … Rank  Points  Faction name  Bot", aligned with `FactionRow`; the players' title says
    the two keys that pick (Enter: next faction, +: same team), the bot's its key."""

    DEFAULT_CSS = """
    FactionRowHeader {
        height: 1;
        width: 1fr;
        color: $text-muted;
        text-style: bold;
    }
    FactionRowHeader > Label {
        margin: 0 0 0 1;
    }
    FactionRowHeader > #h-num {
        width: 3;
        margin: 0;
    }
    FactionRowHeader > #h-players {
        width: 1fr;
        margin: 0;
    }
    FactionRowHeader > #h-rank {
        width: 6;
    }
    FactionRowHeader > #h-points {
        width: 8;
    }
    FactionRowHeader > #h-name {
        width: 14;
    }
    FactionRowHeader > #h-bot {
        width: 7;
    }
    FactionRowHeader.-invalid {
        color: $text-error;
    }
    """

    def compose(self) -> ComposeResult:
        yield Label("#", id="h-num")
        yield Label("Players (Enter next, + same team)", id="h-players")
        yield Label("Rank", id="h-rank")
        yield Label("Points", id="h-points")
        yield Label("Faction name", id="h-name")
        yield Label("Bot ^g", id="h-bot")
