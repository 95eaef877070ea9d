"""How the stats pages say their figures: percentages, dates, a form line, a tally bar, rows of facts.

Everything here is our own wording around figures from `rankterm.stats`; a name from outside goes in
as a part of `styled()` (shown literally), never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rankterm.tui.text import NONE
from rankterm.wire import shown
from rankterm.wire.localtime import UTC_ZONE, SeatZone, parse_wire_date

RESULT_STYLE = {"W": "bold $text-success", "D": "$text-warning", "L": "$text-error"}
"""A result's colour in the form line; the letter alone says it (NO_COLOR, 16 colours)."""


def percent(value: float | None) -> str:
    """0.4836 -> "48%"; None -> a dash."""
    return shown.percent(value, absent=NONE)


def parse_date(text: str | None) -> datetime | None:
    """The wire's "YYYY-MM-DD HH:MM:SS" as a naive UTC datetime (None when it is not one)."""
    return parse_wire_date(text)


def day(text: str | None, zone: SeatZone = UTC_ZONE) -> str:
    """ "2026-05-27 22:27:00" -> "27 May 2026", the day in `zone`; nothing -> a dash."""
    when = zone.from_wire(text)
    return NONE if when is None else f"{when.day} {when:%b %Y}"


def short_day(text: str | None, zone: SeatZone = UTC_ZONE) -> str:
    """ "2026-05-27 22:27:00" -> "27 May", the day in `zone`."""
    when = zone.from_wire(text)
    return NONE if when is None else f"{when.day} {when:%b}"


def axis_labels(dates: Sequence[str], zone: SeatZone = UTC_ZONE) -> list[str]:
    """One label per date for a chart's x axis, its day in `zone`: "27 May" within half a year, "May 2026"
    over a longer span."""
    parsed = [zone.from_wire(d) for d in dates]
    known = [p for p in parsed if p is not None]
    long = bool(known) and (max(known) - min(known)).days > 183
    out = []
    for when, text in zip(parsed, dates, strict=True):
        if when is None:
            out.append(text[:10])
        else:
            out.append(f"{when:%b %Y}" if long else f"{when.day} {when:%b}")
    return out


Part = object | tuple[object, str]
"""A part of `styled()`: a text shown literally, or a (text, style of ours) pair."""


def form_parts(form: Sequence[str]) -> list[Part]:
    """ "W W L W D" as `styled()` parts, each letter in its colour (the letters carry the meaning without
    colour)."""
    if not form:
        return [NONE]
    parts: list[Part] = []
    for i, result in enumerate(form):
        if i:
            parts.append(" ")
        parts.append((result, RESULT_STYLE.get(result, "")))
    return parts


def fact_parts(rows: Sequence[tuple[str, object]], width: int = 11) -> list[Part]:
    """Label/value lines as `styled()` parts: the label dim and padded to `width`, the value shown literally
    (a name may be one). A row whose label is "" continues the value above."""
    parts: list[Part] = []
    for i, (label, value) in enumerate(rows):
        if i:
            parts.append("\n")
        parts.append((label.ljust(width), "dim"))
        parts.append(str(value))
    return parts


def bar_parts(a: int, b: int, ties: int, width: int) -> list[Part]:
    """A bar of `width` cells as `styled()` parts: A's share as █, ties as ▒, B's as ░ (shapes, not colours,
    tell them apart)."""
    total = a + b + ties
    if total <= 0 or width <= 0:
        return []
    cells_a = round(width * a / total)
    cells_t = round(width * ties / total)
    cells_b = max(0, width - cells_a - cells_t)
    return [("█" * cells_a, "$text-success"), ("▒" * cells_t, "dim"), ("░" * cells_b, "$text-error")]


def plural(count: int, one: str, many: str | None = None) -> str:
    """ "1 match", "3 matches"."""
    return f"{count} {one if count == 1 else (many or one + 's')}"
