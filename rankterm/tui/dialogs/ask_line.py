"""`AskDialog`: a small modal that asks for one line of text and runs an async action with it.

    result = await self.app.push_screen_wait(
        AskDialog("New ghost player", "Name", submit=self.client.create_player)
    )

The action runs in a worker with the dialog showing loading; an error (a RanktermError's sentence, a
ValueError's text as a sentence, any other error's name) is shown inline under the field and the dialog stays
open with the text kept. On success
the dialog closes with the action's result; escape closes it with None. Enter or ctrl+s submits.

`warn(text)`, when given, is asked first: a sentence it returns (e.g. "that name is taken") is shown as a
warning and nothing is submitted; Enter again with the same text goes on, a changed text is asked again.
Every text shown (title, prompt, problem) is shown as typed, never as markup.

A dialog that answers and stays open for the next question (e.g. "does this external id exist?") has its
`submit` return an `Answer`: its sentence is shown under the field in its kind's colour, the text is kept.

This is rankterm's one "ask for a line" dialog.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from rankterm.tui.text import as_sentence, error_sentence, plain
from rankterm.tui.widgets.form_input import FormInput

Warn = Callable[[str], Awaitable[str | None]]


@dataclass(frozen=True)
class Answer:
    """What `submit` returns to keep the dialog open and say something: `kind` is "ok", "warning" or "info"."""

    text: str
    kind: str = "info"


class AskDialog(ModalScreen[Any]):
    """Ask for one line, run `submit(text)`, close with its result; errors stay inline."""

    DEFAULT_CSS = """
    AskDialog { align: center middle; background: $background 60%; }
    AskDialog #ask-box {
        width: 64; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; border-title-color: $text-accent; background: $surface; padding: 0 1;
    }
    AskDialog #ask-prompt { color: $text-muted; height: auto; width: 1fr; }
    AskDialog #ask-input { margin-top: 1; }
    AskDialog #ask-input.-invalid { background: $error 25%; }
    AskDialog #ask-error { color: $text-error; height: auto; }
    AskDialog #ask-error.-warning { color: $text-warning; }
    AskDialog #ask-error.-ok { color: $text-success; }
    AskDialog #ask-error.-info { color: $text-muted; }
    AskDialog #ask-buttons { height: 1; margin-top: 1; align-horizontal: right; }
    AskDialog #ask-buttons Button { margin-left: 1; min-width: 10; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "submit", "Submit"),
    ]

    def __init__(
        self,
        title: str,
        prompt: str,
        *,
        submit: Callable[[str], Awaitable[Any]],
        placeholder: str = "",
        ok_label: str = "Create",
        warn: Warn | None = None,
        value: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.dialog_title = title
        self.prompt = prompt
        self.placeholder = placeholder
        self.ok_label = ok_label
        self._submit = submit
        self._warn = warn
        self._warned_for: str | None = None
        self.initial = value
        self.last_answer: Answer | None = None
        """The last `Answer` shown (a dialog that stays open), None after an error."""

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-box") as box:
            box.border_title = plain(self.dialog_title)
            yield Label(plain(self.prompt), id="ask-prompt")
            yield FormInput(self.initial, placeholder=self.placeholder, id="ask-input", compact=True)
            yield Static("", id="ask-error")
            with Horizontal(id="ask-buttons"):
                yield Button(f"{self.ok_label} ⏎", id="ask-ok", variant="primary", compact=True)
                yield Button("Cancel esc", id="ask-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#ask-input", Input).focus()

    @property
    def error_text(self) -> str:
        """The inline error shown now ("" when none)."""
        return str(self.query_one("#ask-error", Static).render())

    def show_problem(self, sentence: str, *, warning: bool = False) -> None:
        """One sentence under the field (a warning is shown in the warning colour and lets Enter go on)."""
        self.last_answer = None
        self._show(sentence, "warning" if warning else "error")

    def _show(self, sentence: str, kind: str) -> None:
        line = self.query_one("#ask-error", Static)
        line.update(plain(sentence))
        for name in ("warning", "ok", "info"):
            line.set_class(kind == name, f"-{name}")
        self.query_one("#ask-input", Input).set_class(bool(sentence) and kind == "error", "-invalid")

    @on(Button.Pressed, "#ask-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#ask-input")
    @on(Button.Pressed, "#ask-ok")
    def action_submit(self) -> None:
        self.run_submit(self.query_one("#ask-input", Input).value)

    @work(exclusive=True, group="ask-dialog", exit_on_error=False)
    async def run_submit(self, text: str) -> None:
        box = self.query_one("#ask-box")
        box.loading = True
        try:
            if self._warn is not None and text.strip() and text != self._warned_for:
                warning = await self._warn(text)
                if warning:
                    self._warned_for = text
                    self.show_problem(warning, warning=True)
                    return
            result = await self._submit(text)
        except ValueError as exc:
            self.show_problem(as_sentence(str(exc)))
        except Exception as exc:  # a bug too is told under the field, not lost in a worker that may fail
            self.show_problem(error_sentence(exc))
        else:
            if isinstance(result, Answer):
                self.last_answer = result
                self._show(result.text, result.kind)
            else:
                self.dismiss(result)
                return
        finally:
            box.loading = False
        self.query_one("#ask-input", Input).focus()
