"""`UsageBar`: one line that shows a percentage of a quota as a label, a bar and the number.

    calls per hour     ███████░░░░░░░░░░░░░  35%

The bar takes the success colour below 70 %, the warning colour from 70 % and the error colour from 90 %
(classes `-warning` / `-error`, so a theme or NO_COLOR decides how it looks; the glyphs carry the meaning
without colour). An unknown value (`None`) shows as "?". It never animates.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from rankterm.tui.text import plain_str

WARNING_FROM = 70.0
ERROR_FROM = 90.0


def usage_level(percent: float | None) -> str:
    """ "ok", "warning" or "error" for a percentage (unknown counts as ok)."""
    if percent is None or percent < WARNING_FROM:
        return "ok"
    return "error" if percent >= ERROR_FROM else "warning"


class UsageBar(Widget):
    """A labelled, one-line percentage bar with warning and error colours."""

    DEFAULT_CSS = """
    UsageBar { height: 1; width: 1fr; }
    UsageBar > .usage-bar--label { color: $text-muted; }
    UsageBar > .usage-bar--filled { color: $success; }
    UsageBar > .usage-bar--empty { color: $foreground 25%; }
    UsageBar.-warning > .usage-bar--filled { color: $warning; }
    UsageBar.-error > .usage-bar--filled { color: $error; }
    UsageBar.-warning > .usage-bar--value { color: $text-warning; }
    UsageBar.-error > .usage-bar--value { color: $text-error; text-style: bold; }
    """

    COMPONENT_CLASSES = {"usage-bar--label", "usage-bar--filled", "usage-bar--empty", "usage-bar--value"}

    percent: reactive[float | None] = reactive(None)

    def __init__(self, label: str, percent: float | None = None, *, label_width: int = 22, **kwargs) -> None:
        super().__init__(**kwargs)
        self.label = plain_str(label)
        self.label_width = label_width
        self.percent = percent

    def watch_percent(self, percent: float | None) -> None:
        level = usage_level(percent)
        self.set_class(level == "warning", "-warning")
        self.set_class(level == "error", "-error")

    def render(self) -> Text:
        width = self.size.width
        label = self.label[: self.label_width - 1].ljust(self.label_width)
        value = "    ?" if self.percent is None else f"{self.percent:4.0f}%"
        bar_width = max(0, width - len(label) - len(value) - 1)
        shown = 0.0 if self.percent is None else min(max(self.percent, 0.0), 100.0)
        filled = round(bar_width * shown / 100)
        if shown > 0 and filled == 0 and bar_width:
            filled = 1  # any use at all is visible
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(label, self.get_component_rich_style("usage-bar--label"))
        text.append("█" * filled, self.get_component_rich_style("usage-bar--filled"))
        text.append("░" * (bar_width - filled), self.get_component_rich_style("usage-bar--empty"))
        text.append(" " + value, self.get_component_rich_style("usage-bar--value"))
        return text
