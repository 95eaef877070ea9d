"""Home (mode "home", key h): the group at a glance, the first screen of every seat.

What a game group opens rankterm for: the standings (as many rows as fit), the last match and what it did
(the board's panels, rankterm/tui/widgets/board/), tonight so far (the matches of the last 12 hours, who won
them, and what changed: new leaders and champions, nemeses, streaks, milestones, rankterm/stats/changes.py),
the outbox's line, and the keys for what comes next. The service's own figures (status, match counters,
quota) are one key away on the Service screen (d).

It revalidates as every screen does (shown again, the group changed, F5); reads are the board's (one
rankings call for the standings, the mirror for the rest), shown at once; then the held matches are brought
up to date and the tonight line's work runs in a thread, on the evening's matches only.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.text import error_sentence, plain, styled
from rankterm.tui.warm import imported
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.wire.errors import AuthError, RanktermError
from rankterm.wire.localtime import parse_wire_date

if TYPE_CHECKING:  # the board's panels, the stats and the models load once the first screen is painted
    from rankterm.mirror import Group
    from rankterm.stats.changes import Event
    from rankterm.tui.widgets.board.view import BoardView
    from rankterm.wire.models import Match

TONIGHT_HOURS = 12
"""Tonight is the last this many hours."""
NEXT_KEYS: tuple[tuple[str, str, str], ...] = (
    ("n", "match", "new match"),
    ("r", "rankings", "rankings"),
    ("b", "board", "board"),
    ("s", "stats", "stats"),
    ("m", "matches", "matches"),
    ("d", "service", "service"),
)
"""What comes next, from Home: the keys a group uses most, as (key, mode, what it opens)."""
CHANGES_SHOWN = 4
"""The newest events of tonight shown (the Stats mode's Tonight tab has the rest)."""


def keys_lines(keys: list[tuple[str, str]], width: int) -> list[object]:
    """`keys` ((key, what it opens)) as `styled()` parts, wrapped at `width` columns between two keys, never
    between a key and its word."""
    parts: list[object] = []
    used = 0
    for key, word in keys:
        size = len(key) + 1 + len(word)
        if used and used + 2 + size > width:
            parts.append("\n")
            used = 0
        elif used:
            parts.append("  ")
            used += 2
        parts += [(key, "bold"), f" {word}"]
        used += size
    return parts


def tonight_lines(matches: list[Match], events: list[Event], since: datetime) -> list[object]:
    """Tonight so far as `styled()` parts: how many matches, who won the most, what changed; with no match
    tonight yet, the same of the last game night (the `TONIGHT_HOURS` before the newest match)."""
    evening = [m for m in matches if (when := parse_wire_date(m.date)) is not None and when >= since]
    title = "Tonight"
    if not evening:
        newest = max((w for m in matches if (w := parse_wire_date(m.date)) is not None), default=None)
        if newest is None:
            return [("Tonight  ", "bold"), "no match yet: ", ("n", "bold"), " records the first."]
        start = newest - timedelta(hours=TONIGHT_HOURS)
        evening = [m for m in matches if (when := parse_wire_date(m.date)) is not None and when >= start]
        title = f"Last game night ({newest:%a} {newest.day} {newest:%b})"
    wins: dict[str, int] = {}
    for match in evening:
        best = min((f.rank for f in match.factions), default=0)
        for faction in match.factions:
            if faction.rank == best and not faction.bot:
                for player in faction.players:
                    wins[player.label] = wins.get(player.label, 0) + 1
    parts: list[object] = [(title, "bold"), "\n", f"{len(evening)} match{'es' if len(evening) != 1 else ''}"]
    if wins:
        top = max(wins.values())
        leaders = sorted(name for name, count in wins.items() if count == top)
        parts.append(f" · most wins: {', '.join(leaders)} ({top})")
    numbers = {m.number for m in evening}
    tonight = [e for e in events if e.number in numbers][-CHANGES_SHOWN:]
    for event in tonight:
        parts += ["\n  ", ("▸ ", "bold"), event.text]
    return parts


class HomeScreen(RanktermScreen):
    """The group: standings, the last match, tonight so far, the outbox."""

    INFO = "#home-note"

    DEFAULT_CSS = """
    HomeScreen #home-bar { height: auto; background: $primary; color: $text; padding: 0 1; }
    HomeScreen #home-title { width: 1fr; text-style: bold; }
    HomeScreen #home-note { width: auto; max-width: 60%; }
    HomeScreen #home-note.-error { color: $text-error; text-style: bold; }
    HomeScreen #home-body { height: 1fr; }
    HomeScreen #home-left { width: 1fr; max-width: 44; border-right: vkey $primary 50%; }
    HomeScreen #home-side { width: 1fr; padding: 0 1; }
    HomeScreen #home-last { height: auto; max-height: 12; }
    HomeScreen #home-tonight { height: auto; margin-top: 1; }
    HomeScreen #home-outbox { height: auto; margin-top: 1; color: $text-muted; }
    HomeScreen #home-keys { height: auto; margin-top: 1; }
    """

    BINDINGS = [Binding("f5", "reload", "Reload")]

    def __init__(self) -> None:
        super().__init__()
        self.view: BoardView | None = None
        self.tonight: list[object] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="home-bar"):
            yield Static("Home", id="home-title", markup=False)
            yield Static("", id="home-note", markup=False)
        with Horizontal(id="home-body"):
            yield Vertical(id="home-left")  # the standings, mounted with the first view (`_draw`)
            with Vertical(id="home-side"):
                yield Static("", id="home-tonight")
                yield Static("", id="home-outbox")
                yield Static("", id="home-keys")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "sub_title", self._title_changed, init=False)
        self._draw()

    def _title_changed(self, _sub_title: str) -> None:
        self._draw()

    def on_screen_resume(self) -> None:
        self._draw()  # the keys a seat may use now (a service opened since)
        self.reload_data()

    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self._draw)  # once the keys line has its new width

    def reload_data(self) -> None:
        self.load()

    def action_reload(self) -> None:
        self.reload_data()

    @task(group="home")
    async def load(self) -> None:
        if not self.has_client:
            return
        await imported("rankterm.tui.screens.board")  # its first import, beside the loop, not on it
        from rankterm.tui.screens.board import read_view

        group = self.group
        try:
            self.view = await read_view(group, None, "Main")
        except RanktermError as exc:
            self.say(error_sentence(exc), "error")
            if isinstance(exc, AuthError) and not exc.token_problem:
                self.rankterm.credentials_refused(
                    exc
                )  # back to the profiles; a guest is told to tell the host
        else:
            self.say("")
            self.note_freshness()
            self._draw()  # the standings and the last match first: tonight's story walks every match held
        with contextlib.suppress(RanktermError):  # the mirror's matches still tell tonight
            await group.sync_matches()
        self.tonight = await asyncio.to_thread(self._tonight, group)
        self._draw()

    def _tonight(self, group: Group) -> list[object]:
        """Tonight's lines from the evening's matches only (the stats rows find them, only they are parsed):
        a big group's whole history is never parsed for them."""
        from rankterm.stats.compact import matches_since
        from rankterm.stats.kept import held_changes
        from rankterm.stats.source import matches_numbered

        since = (datetime.fromtimestamp(group.client.clock(), UTC) - timedelta(hours=TONIGHT_HOURS)).replace(
            tzinfo=None
        )
        evening = matches_since(group, since)
        if not evening:  # the last game night: the hours before the newest match (numbers follow dates)
            newest = group.cached_matches(limit=1)
            when = parse_wire_date(newest[0].date) if newest else None
            if when is not None:
                evening = matches_since(group, when - timedelta(hours=TONIGHT_HOURS))
        matches = matches_numbered(group, [m.number for m in evening])
        events = held_changes(group, min(m.date for m in matches)) if matches else []
        return tonight_lines(matches, events, since)

    def _draw(self) -> None:
        view = self.view
        group_name = self.app.sub_title
        if view is None:
            after = " · loading the standings…" if self.has_client else ""
        else:
            after = " · no match yet" if view.match is None else f" · after match {view.match.number}"
        self.query_one("#home-title", Static).update(styled(("Home", "bold"), f" — {group_name}{after}"))
        if view is not None:
            from rankterm.tui.widgets.board.panels import LastMatchPanel, StandingsPanel

            if not self.query(StandingsPanel):
                self.query_one("#home-left").mount(StandingsPanel(id="home-standings"))
                self.query_one("#home-side").mount(LastMatchPanel(id="home-last"), before="#home-tonight")
            self.query_one(StandingsPanel).show(view, start=1)
            last = self.query_one(LastMatchPanel)
            last.styles.height = max(2, LastMatchPanel.wanted(view))
            last.show(view)
        if self.tonight:
            self.query_one("#home-tonight", Static).update(styled(*self.tonight))
        self.query_one("#home-outbox", Static).update(plain(self._outbox_line()))
        keys = self.query_one("#home-keys", Static)
        width = keys.content_region.width or self.size.width // 2
        keys.update(styled(*keys_lines(self.next_keys(), width)))

    def next_keys(self) -> list[tuple[str, str]]:
        """The keys of `NEXT_KEYS` this seat may use (a guest seat or a kiosk may not open every screen)."""
        return [
            (key, word)
            for key, mode, word in NEXT_KEYS
            if self.app.check_action("open_mode", (mode,)) is not False
        ]

    def _outbox_line(self) -> str:
        counts = getattr(self.app, "outbox_counts", {}) or {}
        pending = counts.get("pending", 0)
        if pending:
            return (
                f"Outbox: {pending} match{'es' if pending != 1 else ''} waiting to be sent (o to see them)."
            )
        return "Outbox: every match recorded here has reached the service."
