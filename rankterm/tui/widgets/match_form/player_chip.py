"""`PlayerChip`: one chosen player in a players field, "Ada" on a coloured pill; a click removes it.

A chip may also stand for a name typed and picked with Enter before the group's players arrived
(`PlayerChip.waiting`: "Ad…"); the players field turns it into the player when they come, or marks it "?"
when nobody matches. Chips are as narrow as their names (no close mark: Backspace or a click removes one),
and the players field narrows them further when they would leave no room to type.
"""

from __future__ import annotations

from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from rankterm.tui.text import plain
from rankterm.wire.models import Player


class PlayerChip(Static):
    """One chosen player: "Ada". A click removes it."""

    DEFAULT_CSS = """
    PlayerChip {
        width: auto;
        height: 1;
        padding: 0 1;
        margin: 0 1 0 0;
        background: $accent 30%;
        color: $text;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    PlayerChip.-waiting {
        background: $panel;
        text-style: italic;
    }
    PlayerChip.-unknown {
        background: $error 25%;
    }
    """

    def __init__(self, player: Player | None = None, *, waiting: str = "") -> None:
        label = player.label if player is not None else f"{waiting}…"
        super().__init__(plain(label), classes="" if player is not None else "-waiting")
        self.player = player
        self.waiting = waiting
        """The text typed for a player not known yet (empty for a chosen player)."""
        self.state = "player" if player is not None else "waiting"
        """ "player", "waiting" (for the players to arrive), "unknown" (nobody matched) or "gone" (removed)."""
        self.tooltip = "Backspace (or a click) removes it"

    @property
    def natural_width(self) -> int:
        """Cells the chip takes when not narrowed (name, padding, margin)."""
        label = self.player.label if self.player is not None else f"{self.waiting}…"
        return len(label) + 3

    def mark_unknown(self) -> None:
        """Nobody matches the text this chip waited with."""
        self.state = "unknown"
        self.remove_class("-waiting")
        self.add_class("-unknown")
        self.update(plain(f"{self.waiting}?"))

    def drop(self) -> None:
        """Remove the chip (at once for whoever asks the picker what it holds; from the screen soon after)."""
        self.state = "gone"
        self.remove()

    class Remove(Message):
        """Asks the players field to drop this chip's player."""

        def __init__(self, chip: PlayerChip) -> None:
            super().__init__()
            self.chip = chip

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Remove(self))
