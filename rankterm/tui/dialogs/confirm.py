"""`ConfirmDialog`: a small yes/no question before something that cannot be undone.

    self.app.push_screen(ConfirmDialog("Discard rt-1a2b?", "It will not be sent."), callback)

It closes with True on y (or the Yes button) and False on n, Escape (or the No button); No has the focus, so
an Enter pressed out of habit keeps things as they are. A question whose usual answer is yes (the match form's
"… send anyway?": most such results are typed as meant) gives Yes the focus instead (`enter_yes`): Enter goes
on, Escape goes back. The question and the detail are shown as typed, never as markup.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rankterm.tui.text import plain


class ConfirmDialog(ModalScreen[bool]):
    """Ask a yes/no question; close with the answer (False unless the person says yes)."""

    DEFAULT_CSS = """
    ConfirmDialog { align: center middle; background: $background 60%; }
    ConfirmDialog #confirm-box {
        width: 56; max-width: 100%; height: auto; max-height: 100%;
        border: round $warning; border-title-color: $text-warning; background: $surface; padding: 0 1;
    }
    ConfirmDialog #confirm-question { height: auto; width: 1fr; text-style: bold; }
    ConfirmDialog #confirm-detail { height: auto; width: 1fr; color: $text-muted; }
    ConfirmDialog #confirm-buttons { height: 1; margin-top: 1; align-horizontal: right; }
    ConfirmDialog #confirm-buttons Button { margin-left: 1; min-width: 10; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(
        self,
        question: str,
        detail: str = "",
        *,
        yes: str = "Yes (y)",
        no: str = "No (n)",
        enter_yes: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.enter_yes = enter_yes
        """Yes has the focus (Enter says yes); else No has it."""
        self.question = question
        self.detail = detail
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = "Are you sure?"
            yield Static(plain(self.question), id="confirm-question")
            if self.detail:
                yield Static(plain(self.detail), id="confirm-detail")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes_label, id="confirm-yes", variant="warning", compact=True)
                yield Button(self.no_label, id="confirm-no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#confirm-yes" if self.enter_yes else "#confirm-no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")
