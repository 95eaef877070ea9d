"""Dashboard: the service's status (whatever keys it returns), the match status counters, quota usage bars.

The three are asked one after the other in one worker (quota last, so it counts the calls just made) and shown
when they arrive (the first time, those that come within `SPINNER_AFTER` together, in one layout): whenever the screen is shown, after a match is sent from this seat, and on F5 or ctrl+r
("r" is the rankings key app-wide). What is shown stays up while it is asked again (the loading indicator is
for the first time only, once it takes longer than `SPINNER_AFTER`). Nothing repaints while idle.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Header, Static

from rankterm.api.errors import RanktermError
from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.text import error_sentence, plain, styled
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.usage_bar import UsageBar

if TYPE_CHECKING:
    from rankterm.api.models import MatchStatus, Quota, ServiceStatus

SPINNER_AFTER = 0.15
"""Seconds the first load waits before a panel still waiting shows a spinner."""

COUNTERS: tuple[tuple[str, str], ...] = (
    ("queued", "accepted, not inserted"),
    ("waiting", "inserted, no subset yet"),
    ("added", "in their subsets"),
    ("processed", "ratings computed"),
    ("total", "sent through the API"),
)
"""The match status counters and what each means: short enough that at 80 columns the counters panel shows
every name and meaning whole (its width is its content's), the service panel taking what is left."""


def humanize(key: str) -> str:
    """`callsPerYear` -> "calls per year", `server_time` -> "server time"."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).replace("_", " ")
    return spaced.lower()


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return (
            ", ".join(f"{k}: {v}" for k, v in value.items())
            if isinstance(value, dict)
            else ", ".join(map(str, value))
        )
    return str(value)


class DashboardScreen(RanktermScreen):
    """Service status, match status counters and quota usage, with refresh."""

    DEFAULT_CSS = """
    DashboardScreen #dash-body { height: 1fr; }
    DashboardScreen #dash-top { height: auto; }
    DashboardScreen .panel {
        border: round $primary 50%; border-title-color: $text-primary; padding: 0 1; height: auto;
    }
    DashboardScreen #dash-status { width: 1fr; min-height: 4; }
    DashboardScreen #dash-status-text { text-wrap: nowrap; text-overflow: ellipsis; }
    DashboardScreen #dash-counters { width: auto; min-width: 30; max-width: 60%; min-height: 4; }
    DashboardScreen #dash-quota { min-height: 4; }
    DashboardScreen #dash-counters-text { width: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    DashboardScreen .panel-error { color: $text-error; }
    """

    BINDINGS = [
        Binding("f5", "refresh", "Refresh"),
        Binding("ctrl+r", "refresh", "Refresh", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="dash-body"):
            with Horizontal(id="dash-top"):
                with Vertical(id="dash-status", classes="panel") as status:
                    status.border_title = "Service"
                    yield Static("", id="dash-status-text")
                with Vertical(id="dash-counters", classes="panel") as counters:
                    counters.border_title = "Matches via the API"
                    yield Static("", id="dash-counters-text")
            with Vertical(id="dash-quota", classes="panel") as quota:
                quota.border_title = "Quota used"
                yield Static("", id="dash-quota-note")
        yield KeyFooter()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._loaded = False

    def on_screen_resume(self) -> None:
        self.load()

    def action_refresh(self) -> None:
        self.load()

    def reload_data(self) -> None:
        self.load()

    @task(group="dashboard")
    async def load(self) -> None:
        panels = [self.query_one(f"#{name}") for name in ("dash-status", "dash-counters", "dash-quota")]
        if not self.has_client:
            # The service is being opened (the demo group is built at start): it loads us when ready. No
            # spinners meanwhile: their frames would take the CPU from the thread that builds it.
            return
        # The first time, the answers that come within SPINNER_AFTER are shown together: one layout of the
        # screen instead of one per answer (~10 ms each on the way to `rankterm demo`'s first data). Past it,
        # what came is shown, a panel still waiting shows a spinner, and each later answer shows as it comes.
        first = not self._loaded
        self._loaded = True
        waiting = {panel.id for panel in panels} if first else set()
        held: list[Callable[[], Awaitable[None]]] = []
        holding = first

        async def release() -> None:
            nonlocal holding
            holding = False
            while held:
                await held.pop(0)()
            self._spin(panels, waiting)

        spinners = self.set_timer(SPINNER_AFTER, release) if first else None
        steps: tuple[tuple[str, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], ...] = (
            ("dash-status", self.client.status, self._show_status),
            ("dash-counters", self.client.match_status, self._show_counters),
            ("dash-quota", self.client.quota, self._show_quota),
        )
        try:
            for panel_id, ask, show in steps:
                shown: Callable[[], Awaitable[None]]
                try:
                    answer = await ask()
                except RanktermError as exc:
                    shown = partial(self._show_failure, panel_id, exc, waiting)
                else:
                    shown = partial(self._show_answer, panel_id, show, answer, waiting)
                if holding:
                    held.append(shown)
                else:
                    await shown()
        finally:
            if spinners is not None:
                spinners.stop()
            while held:
                await held.pop(0)()
            for panel in panels:
                panel.loading = False
            self.note_freshness()

    async def _show_answer(
        self, panel_id: str, show: Callable[[Any], Awaitable[None]], answer: Any, waiting: set
    ) -> None:
        await show(answer)
        self._settled(panel_id, waiting)

    async def _show_failure(self, panel_id: str, exc: RanktermError, waiting: set) -> None:
        self._panel_error(panel_id, exc)
        if panel_id == "dash-status":
            self.show_error(exc)
        self._settled(panel_id, waiting)

    def _settled(self, panel_id: str, waiting: set) -> None:
        """The panel shows an answer (or why there is none): no longer waited for, no spinner."""
        waiting.discard(panel_id)
        self.query_one(f"#{panel_id}").loading = False

    @staticmethod
    def _spin(panels: list[Widget], waiting: set[str | None]) -> None:
        for panel in panels:
            panel.loading = panel.id in waiting

    def _panel_error(self, panel_id: str, exc: BaseException) -> None:
        target = {"dash-status": "#dash-status-text", "dash-counters": "#dash-counters-text"}.get(panel_id)
        widget = self.query_one(target or "#dash-quota-note", Static)
        widget.update(plain(error_sentence(exc)))
        widget.add_class("panel-error")

    async def _show_status(self, status: ServiceStatus) -> None:
        items = status.items() or [("status", "the service answered with no details")]
        width = max(len(humanize(key)) for key, _ in items) + 2
        parts: list[object] = []
        for n, (key, value) in enumerate(items):
            parts += ["\n" if n else "", (humanize(key).ljust(width), "dim"), _value(value)]
        widget = self.query_one("#dash-status-text", Static)
        widget.remove_class("panel-error")
        widget.update(styled(*parts))

    async def _show_counters(self, counts: MatchStatus) -> None:
        width = max(len(str(getattr(counts, key))) for key, _ in COUNTERS)
        parts: list[object] = []
        for n, (key, meaning) in enumerate(COUNTERS):
            figures = str(getattr(counts, key)).rjust(width, "\u2007")  # figure spaces: not stripped
            parts += ["\n" if n else "", (figures, "bold"), f"  {key:<9} ", (meaning, "dim")]
        widget = self.query_one("#dash-counters-text", Static)
        widget.remove_class("panel-error")
        widget.update(styled(*parts))

    async def _show_quota(self, quota: Quota) -> None:
        usage = quota.usage()
        panel = self.query_one("#dash-quota")
        note = self.query_one("#dash-quota-note", Static)
        note.remove_class("panel-error")
        bars = {bar.label: bar for bar in panel.query(UsageBar)}
        new = []
        for key, percent in usage.items():
            label = humanize(key)
            if label in bars:
                bars.pop(label).percent = percent
            else:
                safe_id = re.sub(r"[^A-Za-z0-9_-]", "_", key)  # a key of the service's own may hold anything
                new.append(UsageBar(label, percent, label_width=24, id=f"quota-{safe_id}"))
        for stale in bars.values():
            await stale.remove()
        if new:
            await panel.mount_all(new, before=note)
        worst = max((p for p in usage.values() if p is not None), default=None)
        note.update(
            "" if worst is None or worst < 70 else "Near a limit: the service will refuse calls at 100%."
        )
        note.display = bool(worst is not None and worst >= 70)
