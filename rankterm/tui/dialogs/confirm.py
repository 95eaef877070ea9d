"""`ConfirmDialog`: a small yes/no question before something that cannot be undone.

    self.app.push_screen(ConfirmDialog("Discard rt-1a2b?", "It will not be sent."), callback)

It closes with True on y (or the Yes button) and False on n, Escape (or the No button); No has the focus, so
an Enter pressed out of habit keeps things as they are. A question whose usual answer is yes (the match form's
"… send anyway?": most such results are typed as meant) gives Yes the focus instead (`enter_yes`): Enter goes
on, Escape goes back. The question and the detail are shown as typed, never as markup.

A question asked after keys the person typed ahead (`keeps_keys_ahead`: the match form's questions at a
send and at ctrl+n, which come after that key and the keys typed with it in one burst) takes no key read
before it was shown as its answer: a `y`, `n`, Enter or ctrl+r typed before it could be seen answers nothing. Such keys are kept
in `ahead`, for the screen that asked to hand on or drop once it is answered.
"""

from __future__ import annotations

import time
from typing import Any

from textual import events, on
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
        keeps_keys_ahead: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.keeps_keys_ahead = keeps_keys_ahead
        self.ahead: list[events.Key] = []
        """The keys read before the question was shown (with `keeps_keys_ahead`), in order: not answers."""
        self._shown_at: float | None = None
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
        self.call_after_refresh(self._shown)

    def _shown(self) -> None:
        # a key's `time` is when the app read it, on the monotonic clock
        self._shown_at = time.monotonic()

    def on_key(self, event: events.Key) -> None:
        """A key read before the question was shown is kept aside, not taken as an answer."""
        if self.keeps_keys_ahead and (self._shown_at is None or event.time < self._shown_at):
            event.stop()
            event.prevent_default()
            self.ahead.append(event)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")
