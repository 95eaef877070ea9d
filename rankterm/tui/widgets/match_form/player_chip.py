"""`PlayerChip`: one chosen player in a players field, "Ada" and a times sign; a click removes it."""

from __future__ import annotations

from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from rankterm.api.models import Player
from rankterm.tui.text import plain


class PlayerChip(Static):
    """One chosen player: "Ada x" (a times sign). A click removes it."""

    DEFAULT_CSS = """
    PlayerChip {
        width: auto;
        height: 1;
        padding: 0 1;
        margin: 0 1 0 0;
        background: $accent 30%;
        color: $text;
    }
    """

    def __init__(self, player: Player) -> None:
        super().__init__(plain(f"{player.label} \u00d7"))
        self.player = player

    class Remove(Message):
        """Asks the players field to drop this chip's player."""

        def __init__(self, chip: PlayerChip) -> None:
            super().__init__()
            self.chip = chip

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Remove(self))
