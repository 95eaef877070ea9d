"""`MatchFormAnswer`: what the service said about the matches just sent, one line a match.

"✔ accepted" lines in the success colour, "✘ rejected: <reason>" lines in the error colour, and a plain line
for anything else (a dry run, a hint, an error that refused the whole request). Empty, it takes no room.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.containers import Vertical
from textual.widgets import Static

from rankterm.tui.text import plain

OK = "ok"
BAD = "bad"
NOTE = "note"


class MatchFormAnswer(Vertical):
    """The answer panel at the top of the match form."""

    DEFAULT_CSS = """
    MatchFormAnswer {
        height: auto;
        width: 1fr;
        display: none;
        border-left: outer $primary;
        padding: 0 0 0 1;
        margin: 0 0 1 0;
    }
    MatchFormAnswer.-shown {
        display: block;
    }
    MatchFormAnswer > Static {
        width: 1fr;
        height: auto;
    }
    MatchFormAnswer > .-ok {
        color: $text-success;
    }
    MatchFormAnswer > .-bad {
        color: $text-error;
    }
    MatchFormAnswer > .-note {
        color: $text-muted;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[tuple[str, str]] = []

    def show(self, lines: Iterable[tuple[str, str]]) -> None:
        """Replace the panel with `lines`: (kind, text), kind one of "ok", "bad", "note"."""
        self.lines = list(lines)
        self.remove_children()
        self.mount_all(Static(plain(text), classes=f"-{kind}") for kind, text in self.lines)
        self.set_class(bool(self.lines), "-shown")

    def clear(self) -> None:
        self.show([])

    @property
    def text(self) -> str:
        """All lines as plain text (for tests and for the log)."""
        return "\n".join(text for _, text in self.lines)
