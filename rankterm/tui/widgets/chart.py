"""`LineChart`: one series over matches, drawn in braille by textual-plotext, legible in any colour mode.

    chart = LineChart(empty="No ree history yet.")
    chart.show_series([12, 40, 77], [2010.5, 2044.0, 1998.2], ["3 Jan", "14 Feb", "2 Apr"])
    LineChart(reverse=True, integer=True)   # positions: 1 at the top, whole numbers on the axis

The x axis is the match number (points keep their true spacing) and is labelled with the dates given, a few
of them, as many as the width allows. The plot uses plotext's "clear" theme, so the canvas and the axes take
the widget's own background and foreground (no colour block that a 16-colour terminal would turn odd), and
the line is drawn in the theme's accent: braille dots read as a line in 16 colours and with NO_COLOR alike.
Labels are our own words (dates, numbers), never outside text. With no points the widget says `empty`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from textual.app import RenderResult
from textual.color import Color
from textual_plotext import PlotextPlot

from rankterm.tui.text import plain

TICK_SPACING = 11
"""Columns between two date labels at least (a label such as "12 Mar" is 6 wide)."""


def even_indices(count: int, wanted: int) -> list[int]:
    """`wanted` indices spread evenly over 0..count-1, first and last included, no repeats."""
    if count <= 0 or wanted <= 0:
        return []
    if count == 1 or wanted == 1:
        return [count - 1]
    wanted = min(wanted, count)
    return sorted({round(i * (count - 1) / (wanted - 1)) for i in range(wanted)})


def nice_ticks(low: float, high: float, most: int) -> list[float]:
    """Round values between `low` and `high` (at most `most`), on a 1-2-5 step."""
    if most < 2 or not math.isfinite(low) or not math.isfinite(high):
        return []
    if high - low < 1e-9:
        return [round(low)]
    power = 10 ** math.floor(math.log10((high - low) / most))
    steps = [m * power * p for p in (1, 10, 100) for m in (1, 2, 5)]

    def count(step: float) -> int:
        return math.floor(high / step + 1e-9) - math.ceil(low / step - 1e-9) + 1

    step = next((s for s in steps if count(s) <= most), steps[-1])
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + 1e-9:
        ticks.append(value)
        value += step
    return ticks


def integer_ticks(low: int, high: int, most: int) -> list[int]:
    """Whole numbers from `low` (always shown: first place) towards `high`, at most `most`, evenly stepped."""
    if high <= low:
        return [low]
    step = max(1, math.ceil((high - low) / max(1, most - 1)))
    return list(range(low, high + 1, step))


class LineChart(PlotextPlot):
    """A line over match numbers, x labelled with dates; `reverse` puts the smallest value on top."""

    DEFAULT_CSS = """
    LineChart {
        width: 1fr;
        height: 1fr;
        min-height: 5;
    }
    """

    def __init__(
        self,
        *,
        empty: str = "Nothing to draw yet.",
        reverse: bool = False,
        integer: bool = False,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.theme = "clear"  # canvas and axes in the widget's own colours
        self.empty = empty
        self.reverse = reverse
        self.integer = integer
        self.xs: list[int] = []
        self.ys: list[float] = []
        self.labels: list[str] = []

    def show_series(self, xs: Sequence[int], ys: Sequence[float], labels: Sequence[str]) -> None:
        """Draw these points (x: match numbers, ascending; labels: one per point, e.g. its date)."""
        self.xs, self.ys, self.labels = list(xs), [float(y) for y in ys], list(labels)
        self.refresh()

    def _line_colour(self) -> tuple[int, int, int] | str:
        value = self.app.theme_variables.get("accent") if self.is_attached else None
        if not value:
            return "default"
        try:
            colour = Color.parse(value)
        except Exception:
            return "default"
        return colour.rgb

    def render(self) -> RenderResult:
        width, height = self.size.width, self.size.height
        if not self.xs or width < 12 or height < 4:
            return plain(self.empty if not self.xs else "")
        plt = self.plt
        plt.clear_figure()
        ys = [-y for y in self.ys] if self.reverse else self.ys
        plt.plot(self.xs, ys, marker="braille", color=self._line_colour())
        plt.xaxes(True, False)
        plt.yaxes(True, False)
        plt.grid(False, False)
        low, high = min(self.ys), max(self.ys)
        if low == high:
            pad = 1.0 if self.integer else max(1.0, abs(low) * 0.01)
            low, high = low - pad, high + pad
        most = max(2, min(6, (height - 2) // 2 + 1))
        ticks: list[float]
        if self.integer:
            ticks = [
                float(t)
                for t in integer_ticks(
                    round(min(self.ys)), round(max(self.ys)), max(2, (height - 2) // 3 + 1)
                )
            ]
        else:
            ticks = nice_ticks(low, high, most)
        shown = [-t for t in ticks] if self.reverse else ticks
        plt.yticks(shown, [f"{t:.0f}" for t in ticks])
        y_lo, y_hi = (-high, -low) if self.reverse else (low, high)
        plt.ylim(y_lo, y_hi)
        x_lo, x_hi = self.xs[0], self.xs[-1]
        if x_lo == x_hi:
            x_lo, x_hi = x_lo - 1, x_hi + 1
        plt.xlim(x_lo, x_hi)
        at = even_indices(len(self.xs), max(2, (width - 8) // TICK_SPACING))
        ticks_x: list[float] = []
        names: list[str] = []
        for index in at:
            label = self.labels[index] if index < len(self.labels) else str(self.xs[index])
            if names and label == names[-1]:
                continue
            ticks_x.append(self.xs[index])
            names.append(label)
        plt.xticks(ticks_x, names)
        self._keep_tick_order(ticks_x, names)
        return super().render()

    def _keep_tick_order(self, ticks: list[float], names: list[str]) -> None:
        """Plotext drops duplicate ticks through a set, so the labels are placed in an order that changes
        with the process's string hashing, and where two are close the one placed first wins its room: the
        same chart came out two ways. Put them back in their order, so that it always comes out one way."""
        monitor = getattr(self.plt, "monitor", None)
        xticks, xlabels = getattr(monitor, "xticks", None), getattr(monitor, "xlabels", None)
        if isinstance(xticks, list) and isinstance(xlabels, list) and xticks and xlabels:
            xticks[0], xlabels[0] = list(ticks), list(names)
