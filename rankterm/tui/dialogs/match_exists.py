"""`MatchExistsDialog`: a small modal that asks "does a match with external id X exist?".

Type an external id, Enter asks the service (`client.match_exists`, in a worker) and the answer is shown under
the field, "yes" or "no", in one sentence; the dialog stays open for the next question. Escape closes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from rankterm.api.errors import RanktermError
from rankterm.tui.text import error_sentence, plain
from rankterm.tui.widgets.form_input import FormInput

Ask = Callable[[str], Awaitable[bool]]


class MatchExistsDialog(ModalScreen[None]):
    """Ask whether an accepted match carries an external id."""

    DEFAULT_CSS = """
    MatchExistsDialog {
        align: center middle;
        background: $background 60%;
    }
    MatchExistsDialog #mx-box {
        width: 64;
        max-width: 100%;
        height: auto;
        border: round $accent;
        border-title-color: $text-accent;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }
    MatchExistsDialog Label {
        color: $text-muted;
    }
    MatchExistsDialog #mx-input {
        margin: 1 0 0 0;
    }
    MatchExistsDialog #mx-answer {
        height: auto;
        margin: 1 0 0 0;
    }
    MatchExistsDialog #mx-answer.-yes {
        color: $text-success;
    }
    MatchExistsDialog #mx-answer.-no {
        color: $text-warning;
    }
    MatchExistsDialog #mx-answer.-error {
        color: $text-error;
    }
    """

    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, ask: Ask, external_id: str = "") -> None:
        super().__init__()
        self.ask = ask
        self.initial = external_id
        self.answer: bool | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="mx-box") as box:
            box.border_title = "Does this external id exist?"
            box.border_subtitle = "enter ask · esc close"
            yield Label("External id of a match (as sent with it):")
            yield FormInput(self.initial, placeholder="e.g. rt-1a2b3c4d5e6f", id="mx-input", compact=True)
            yield Static("", id="mx-answer", markup=False)

    def on_mount(self) -> None:
        self.query_one("#mx-input", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def _say(self, text: str, kind: str) -> None:
        answer = self.query_one("#mx-answer", Static)
        answer.update(plain(text))
        for name in ("-yes", "-no", "-error"):
            answer.set_class(name == kind, name)

    @on(Input.Submitted, "#mx-input")
    def _submitted(self, event: Input.Submitted) -> None:
        wanted = event.value.strip()
        if not wanted:
            self._say("Type an external id first.", "-error")
            return
        self.lookup(wanted)

    @work(exclusive=True, group="match-exists", exit_on_error=False)
    async def lookup(self, wanted: str) -> None:
        box = self.query_one("#mx-box")
        box.loading = True
        try:
            exists = await self.ask(wanted)
        except RanktermError as exc:
            self.answer = None
            self._say(error_sentence(exc), "-error")
            return
        finally:
            box.loading = False
        self.answer = exists
        if exists:
            self._say(f"Yes: an accepted match has the external id {wanted!r}.", "-yes")
        else:
            self._say(f"No: no accepted match has the external id {wanted!r}.", "-no")
        self.query_one("#mx-input", Input).focus()
