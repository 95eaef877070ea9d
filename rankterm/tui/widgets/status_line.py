"""`StatusLine`: one line above the footer saying where unsent matches stand, and whether the service is reachable.

Hidden while there is nothing to say (empty outbox, service reachable), so an 80x24 window keeps its line.
Offline it says, in this order, that the seat is offline, what the outbox holds (the counts that are not 0),
how old what is shown is ("as of 20:26", from the app's `as_of`, in the seat's time zone) and that matches are
kept, saying the last two more briefly until the line fits the window (`offline_line`: 80 columns keep the
count and the time). The note goes once the service answers again. On a board (`rankterm board`, the app's
`kiosk`) nothing is entered, so no outbox is named: offline, it says only how old the figures are. When the
live probe (rankterm/tui/live.py) stops because the
quota is nearly spent, it says so ("Live updates paused: calls per hour at 84% of the quota (F5 reloads)").
It redraws only when the app's `outbox_counts`, `offline`, `as_of` or `outbox_note`, or the probe's note,
change: never while idle, never for a probe that found nothing new.
"""

from __future__ import annotations

from datetime import datetime

from rich.cells import cell_len
from textual.widgets import Static

from rankterm.tui.text import plain
from rankterm.tui.zone import shown_zone


class StatusLine(Static):
    """Outbox counts (pending · sent · rejected), an offline banner, why sending or live updates are paused."""

    DEFAULT_CSS = """
    StatusLine {
        dock: bottom;
        height: 1;
        margin-bottom: 1;
        padding: 0 1;
        background: $panel;
        color: $text;
        display: none;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    StatusLine.-shown { display: block; }
    StatusLine.-rejected { background: $warning 30%; }
    StatusLine.-offline { background: $error 60%; color: $text; text-style: bold; }
    """

    def __init__(self) -> None:
        super().__init__("", markup=False, id="status-line")

    def on_mount(self) -> None:
        for name in ("outbox_counts", "offline", "outbox_note", "as_of"):
            self.watch(self.app, name, self._changed, init=False)
        live = getattr(self.app, "live", None)
        if live is not None:
            live.changed.subscribe(self, self._changed)
        self._changed()

    def on_resize(self) -> None:
        self._changed()

    def _changed(self, *_: object) -> None:
        counts: dict[str, int] = getattr(self.app, "outbox_counts", {}) or {}
        offline: bool = getattr(self.app, "offline", False)
        kiosk: bool = getattr(self.app, "kiosk", False)  # a board on a TV: nothing is entered there
        note: str = "" if kiosk else getattr(self.app, "outbox_note", "")
        as_of: datetime | None = getattr(self.app, "as_of", None)
        pending, sent, rejected = (
            (0, 0, 0) if kiosk else (counts.get(k, 0) for k in ("pending", "sent", "rejected"))
        )
        parts = []
        outbox = f"Outbox: {pending} pending · {sent} sent · {rejected} rejected (o)"
        if offline:
            held = f"as of {shown_zone(self).local(as_of):%H:%M}" if as_of is not None else ""
            parts.append(
                offline_line(self._room(), outbox_counts(pending, sent, rejected), held, kiosk=kiosk)
            )
        elif pending or sent or rejected:
            parts.append(outbox)
        if note:
            parts.append(note)
        live = getattr(self.app, "live", None)
        live_note: str = getattr(live, "note", "") if live is not None else ""
        if live_note and not offline:
            parts.append(live_note)
        self.update(plain("  ·  ".join(parts)))
        self.set_class(bool(parts), "-shown")
        self.set_class(offline, "-offline")
        self.set_class(bool(rejected) and not offline, "-rejected")

    def _room(self) -> int:
        """The cells the line has for its text (the window's width less the padding)."""
        return max(1, (self.size.width or self.app.size.width) - 2)


def outbox_counts(pending: int, sent: int, rejected: int) -> str:
    """The outbox's counts that are not 0, short: "Outbox: 3 pending · 51 sent (o)"; "" when it is empty."""
    said = [f"{n} {what}" for n, what in ((pending, "pending"), (sent, "sent"), (rejected, "rejected")) if n]
    return f"Outbox: {' · '.join(said)} (o)" if said else ""


KEPT = (
    "matches are kept and sent when the service answers",
    "kept, sent when the service answers",
    "kept, sent when back",
    "",
)
"""What becomes of a match recorded offline, from the longest way of saying it to none."""
FOLLOW = ("the figures follow when the service answers", "")
"""On a board (kiosk): what becomes of the figures shown."""


def offline_line(room: int, outbox: str, held: str, *, kiosk: bool = False) -> str:
    """The offline line in `room` cells: "⚠ Offline", what the outbox holds, how old what is shown is, what
    becomes of a match, saying less of the last two (never the count) until it fits."""
    tails = FOLLOW if kiosk else KEPT
    candidates = [(held, tail) for tail in tails] + [("", "")]
    for shown_held, tail in candidates:
        line = " · ".join(p for p in ("⚠ Offline", outbox, shown_held, tail) if p)
        if cell_len(line) <= room:
            return line
    return line  # the count first: the end is cut (with "…") where even that does not fit
