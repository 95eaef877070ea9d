"""The Service screen (mode "service", key d): the service's status (whatever keys it returns), the match
status counters, quota usage bars. For whoever hosts the group; the group itself opens on Home (home.py).

The three are asked one after the other in one worker (quota last, so it counts the calls just made) and shown
when they arrive (the first time, those that come within `SPINNER_AFTER` together, in one layout): whenever the screen is shown, after a match is sent from this seat, and on F5 or ctrl+r
("r" is the rankings key app-wide). What is shown stays up while it is asked again (the loading indicator is
for the first time only, once it takes longer than `SPINNER_AFTER`). Nothing repaints while idle.

Each answer is kept in the group's mirror (the note `HELD`, with when it was read). When the service cannot be
reached, the counters and the quota show what the mirror holds, and the Service panel says so in one calm
sentence with how old those figures are ("Cannot reach the service. The figures shown are those of 20:26.");
nothing more is asked once one request went unanswered. At 80x24 the screen then still fits, status line
included. Any request of the seat finding the service gone (the live probe's) loads the screen again, so it
says so at once. The service answering again revalidates the screen (the app's `group_version`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Header, Static

from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.text import error_sentence, plain, styled
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.usage_bar import UsageBar
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import Offline, RanktermError
from rankterm.wire.localtime import SeatZone, parse_wire_date

if TYPE_CHECKING:
    from rankterm.wire.models import MatchStatus, Quota, ServiceStatus

SPINNER_AFTER = 0.15
"""Seconds the first load waits before a panel still waiting shows a spinner."""

HELD = "dashboard"
"""The mirror's note (`Mirror.note`) that keeps the last answer of each panel: panel id -> {"at": the
client's clock when read, "answer": its wire form}. Its name is the one mirror files on disk already hold."""

NOT_HELD = "Not read yet: shown once the service answers."

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


def _when(ts: float, now: float, zone: SeatZone) -> str:
    """A clock time of the same day as `now` as "20:26", of another day as "27 May 20:26" (in `zone`)."""
    when = zone.from_timestamp(ts)
    today = zone.from_timestamp(now).date()
    return f"{when:%H:%M}" if when.date() == today else f"{when:%d %b %H:%M}"


def _shown_value(value: Any, zone: SeatZone) -> str:
    """A status value as shown: a wire date (the service's time) in `zone`, named, to the minute (it fits the
    Service panel at 80 columns: "28 May 20:26 Auckland")."""
    if isinstance(value, str) and parse_wire_date(value) is not None:
        return f"{zone.show(value, '%d %b %H:%M')} {zone.label}"
    return _value(value)


class ServiceScreen(RanktermScreen):
    """Service status, match status counters and quota usage, with refresh."""

    DEFAULT_CSS = """
    ServiceScreen #service-body { height: 1fr; }
    ServiceScreen #service-top { height: auto; }
    ServiceScreen .panel {
        border: round $primary 50%; border-title-color: $text-primary; padding: 0 1; height: auto;
    }
    ServiceScreen #service-status { width: 1fr; min-height: 4; }
    ServiceScreen #service-status-text { text-wrap: nowrap; text-overflow: ellipsis; }
    ServiceScreen #service-counters { width: auto; min-width: 30; max-width: 60%; min-height: 4; }
    ServiceScreen #service-quota { min-height: 4; }
    ServiceScreen #service-counters-text { width: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    ServiceScreen .panel-error { color: $text-error; }
    ServiceScreen .panel-muted { color: $text-muted; }
    ServiceScreen #service-status-text.-unreachable { color: $text-warning; text-wrap: wrap; }
    """

    BINDINGS = [
        Binding("f5", "refresh", "Refresh"),
        Binding("ctrl+r", "refresh", "Refresh", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="service-body"):
            with Horizontal(id="service-top"):
                with Vertical(id="service-status", classes="panel") as status:
                    status.border_title = "Service"
                    yield Static("", id="service-status-text")
                with Vertical(id="service-counters", classes="panel") as counters:
                    counters.border_title = "Matches via the API"
                    yield Static("", id="service-counters-text")
            with Vertical(id="service-quota", classes="panel") as quota:
                quota.border_title = "Quota used"
                yield Static("", id="service-quota-note")
        yield KeyFooter()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._loaded = False

    def on_mount(self) -> None:
        self.watch(self.app, "offline", self._offline_changed, init=False)

    def _offline_changed(self, offline: bool) -> None:
        """Another request (the live probe's, a send) found the service gone: say so here too, with how old
        the figures are (the service answering again revalidates through the app's `group_version`)."""
        if offline and self.is_current:
            self.load()

    def on_screen_resume(self) -> None:
        self.load()

    def action_refresh(self) -> None:
        self.load()

    def reload_data(self) -> None:
        self.load()

    @task(group="service")
    async def load(self) -> None:
        panels = [
            self.query_one(f"#{name}") for name in ("service-status", "service-counters", "service-quota")
        ]
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
            ("service-status", self.client.status, self._show_status),
            ("service-counters", self.client.match_status, self._show_counters),
            ("service-quota", self.client.quota, self._show_quota),
        )
        kept: dict[str, Any] = self._held()
        read: dict[str, Any] = {}
        unreachable = False
        oldest: float | None = None
        try:
            for panel_id, ask, show in steps:
                shown: Callable[[], Awaitable[None]]
                at: float | None = None
                if unreachable:  # one unanswered request is enough: the others would wait as long
                    shown, at = self._held_panel(panel_id, show, kept.get(panel_id), waiting)
                else:
                    try:
                        answer = await ask()
                    except Offline:
                        unreachable = True
                        shown, at = self._held_panel(panel_id, show, kept.get(panel_id), waiting)
                    except RanktermError as exc:
                        shown = partial(self._show_failure, panel_id, exc, waiting)
                    else:
                        read[panel_id] = {
                            "at": self.client.clock(),
                            "answer": answer.model_dump(mode="json", by_alias=True),
                        }
                        shown = partial(self._show_answer, panel_id, show, answer, waiting)
                if at is not None:
                    oldest = at if oldest is None else min(oldest, at)
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
            self._say_unreachable(unreachable, oldest)
            self.note_freshness()
            if oldest is not None:
                self._note_oldest(oldest)
        if read:
            self.group.set_note(HELD, {**kept, **read})

    def _held(self) -> dict[str, Any]:
        """The answers the mirror keeps, by panel id (empty when it keeps none, or something unreadable)."""
        held = self.group.note(HELD)
        return held if isinstance(held, dict) else {}

    def _held_panel(
        self, panel_id: str, show: Callable[[Any], Awaitable[None]], old: Any, waiting: set
    ) -> tuple[Callable[[], Awaitable[None]], float | None]:
        """How a panel is shown from its kept answer `old` (the mirror's note), and when that answer was
        read; "not read yet" and None when nothing usable is kept. The Service panel says the service
        cannot be reached instead (`_say_unreachable`): a status read earlier is not the service's now."""
        from rankterm.wire.models import MatchStatus, Quota

        if panel_id == "service-status":
            return partial(self._settle, panel_id, waiting), None
        model: Any = MatchStatus if panel_id == "service-counters" else Quota
        if isinstance(old, dict) and isinstance(old.get("at"), int | float):
            try:
                answer = model.model_validate(old.get("answer"))
            except ValueError:
                pass
            else:
                return partial(self._show_answer, panel_id, show, answer, waiting), float(old["at"])
        return partial(self._show_not_held, panel_id, waiting), None

    def _say_unreachable(self, unreachable: bool, oldest: float | None) -> None:
        """The Service panel's one calm sentence while the service cannot be reached."""
        widget = self.query_one("#service-status-text", Static)
        widget.set_class(unreachable, "-unreachable")
        if not unreachable:
            return
        if oldest is None:
            widget.update("Cannot reach the service. Its figures show once it answers.")
        else:
            when = _when(oldest, self.client.clock(), shown_zone(self))
            widget.update(plain(f"Cannot reach the service. The figures shown are those of {when}."))
        widget.remove_class("panel-error", "panel-muted")

    def _note_oldest(self, oldest: float) -> None:
        """The status line's "as of" covers the figures shown from the mirror."""
        when = datetime.fromtimestamp(oldest).astimezone()
        as_of = self.rankterm.as_of
        if as_of is None or when < as_of:
            self.rankterm.as_of = when

    async def _settle(self, panel_id: str, waiting: set) -> None:
        self._settled(panel_id, waiting)

    async def _show_not_held(self, panel_id: str, waiting: set) -> None:
        target = {"service-status": "#service-status-text", "service-counters": "#service-counters-text"}.get(
            panel_id
        )
        widget = self.query_one(target or "#service-quota-note", Static)
        widget.update(plain(NOT_HELD))
        widget.remove_class("panel-error")
        widget.add_class("panel-muted")
        widget.display = True
        self._settled(panel_id, waiting)

    async def _show_answer(
        self, panel_id: str, show: Callable[[Any], Awaitable[None]], answer: Any, waiting: set
    ) -> None:
        await show(answer)
        self._settled(panel_id, waiting)

    async def _show_failure(self, panel_id: str, exc: RanktermError, waiting: set) -> None:
        self._panel_error(panel_id, exc)
        if panel_id == "service-status":
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
        target = {"service-status": "#service-status-text", "service-counters": "#service-counters-text"}.get(
            panel_id
        )
        widget = self.query_one(target or "#service-quota-note", Static)
        widget.update(plain(error_sentence(exc)))
        widget.remove_class("panel-muted")
        widget.add_class("panel-error")
        widget.display = True

    async def _show_status(self, status: ServiceStatus) -> None:
        items = status.items() or [("status", "the service answered with no details")]
        width = max(len(humanize(key)) for key, _ in items) + 2
        zone = shown_zone(self)
        parts: list[object] = []
        for n, (key, value) in enumerate(items):
            parts += ["\n" if n else "", (humanize(key).ljust(width), "dim"), _shown_value(value, zone)]
        widget = self.query_one("#service-status-text", Static)
        widget.remove_class("panel-error", "panel-muted")
        widget.update(styled(*parts))

    async def _show_counters(self, counts: MatchStatus) -> None:
        width = max(len(str(getattr(counts, key))) for key, _ in COUNTERS)
        parts: list[object] = []
        for n, (key, meaning) in enumerate(COUNTERS):
            figures = str(getattr(counts, key)).rjust(width, "\u2007")  # figure spaces: not stripped
            parts += ["\n" if n else "", (figures, "bold"), f"  {key:<9} ", (meaning, "dim")]
        widget = self.query_one("#service-counters-text", Static)
        widget.remove_class("panel-error", "panel-muted")
        widget.update(styled(*parts))

    async def _show_quota(self, quota: Quota) -> None:
        usage = quota.usage()
        panel = self.query_one("#service-quota")
        note = self.query_one("#service-quota-note", Static)
        note.remove_class("panel-error", "panel-muted")
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
