"""`StatusLine`: one line above the footer saying where unsent matches stand, and whether the service is reachable.

Hidden while there is nothing to say (empty outbox, service reachable), so an 80x24 window keeps its line.
Offline it says, in this order, that the seat is offline, what the outbox holds, how old what is shown is
("as of 20:26", from the app's `as_of`, in the seat's time zone) and that matches are kept: a narrow window cuts the end of the line
(with "…"), never the count. The note goes once the service answers again. When the live probe (rankterm/tui/live.py) stops because the
quota is nearly spent, it says so ("Live updates paused: calls per hour at 84% of the quota (F5 reloads)").
It redraws only when the app's `outbox_counts`, `offline`, `as_of` or `outbox_note`, or the probe's note,
change: never while idle, never for a probe that found nothing new.
"""

from __future__ import annotations

from datetime import datetime

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

    def _changed(self, *_: object) -> None:
        counts: dict[str, int] = getattr(self.app, "outbox_counts", {}) or {}
        offline: bool = getattr(self.app, "offline", False)
        note: str = getattr(self.app, "outbox_note", "")
        as_of: datetime | None = getattr(self.app, "as_of", None)
        pending, sent, rejected = (counts.get(k, 0) for k in ("pending", "sent", "rejected"))
        parts = []
        outbox = f"Outbox: {pending} pending · {sent} sent · {rejected} rejected (o)"
        if offline:
            # What the seat holds comes first: at 80 columns the end of the line is cut, never the count.
            said = ["⚠ Offline"]
            if pending or sent or rejected:
                said.append(outbox)
            if as_of is not None:
                said.append(f"as of {shown_zone(self).local(as_of):%H:%M}")
            said.append("matches are kept and sent when the service answers")
            parts.append(" · ".join(said))
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
