"""Scoreboard (mode "board", key b; `rankterm board` starts the app on it, read-only): a full-screen view for a
TV or a spare laptop, readable from across a room.

What it shows, for the main subset: a bar (the subset, the match the standings are after), the podium (the
first three places, five from `view.WIDE` columns, the ree in big `Digits`; from `view.TALL` rows the last
match's changes of ree in big type too), the rest of the standings, the
last match with what it did to each player (rankterm/stats/effect.py: the change of ree and of position, the
same figures the match form toasts) and the last five matches. The players of the last match are marked
(bold, ▲/▼ and +ree, the podium box's border in the colour of their change).

Live: it revalidates when the group changes (`group_changed`: a match sent from this seat, another seat's
match noticed by the live probe, rankterm/tui/live.py) and on F5; an unchanged view is not drawn again.

Cycling: while the last match is fresh (`CYCLE_FOR`, 10 minutes after it was recorded, or after this board
first saw it arrive) and its game has its own subset, the board alternates between the main standings
(`MAIN_SECONDS`, 20 s) and that game's (`GAME_SECONDS`, 12 s). Why these: a game night records a match every
20 to 60 minutes, and the people who just played walk over within minutes to see it; 20 s is enough to read
ten names from across a room, the game's shorter view is the footnote. Then it rests on the main standings
and writes nothing while idle, as every other screen. Space shows the other view at once.

Quota: one rankings call for the main standings each time the group changes, one more while cycling, and the
standings before the last match once (the mirror keeps standings that can no longer change).

A period (`rankterm board --season YYYY|YYYY-Qn|YYYY-MM|NAME`, or `t` on the board: all time, this month,
this quarter, this year, then each season the host names): the standings of a group that played only the
period's matches (`stats.seasons.season_standings`, everyone starting even), its last match and last five,
all from the held matches, in a thread; the bar names the period, and the board does not cycle. No rankings
call: the matches are synced, one request when nothing is new.

Tonight: one line under the podium says what changed in the last `TONIGHT_HOURS` (`stats.changes`: a new
leader, a game's champion, a nemesis, a streak, a milestone), newest first; hidden when nothing did.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Static

from rankterm.stats.changes import Event
from rankterm.stats.effect import EffectUnknown, match_effect
from rankterm.stats.kept import held_in_period
from rankterm.tui.base import Kind, RanktermScreen, Where, task
from rankterm.tui.periods import seat_now, shown_seasons
from rankterm.tui.text import error_sentence, styled
from rankterm.tui.widgets.board.panels import LastMatchPanel, RecentPanel, StandingsPanel, TonightLine
from rankterm.tui.widgets.board.podium import EffectStrip, Podium
from rankterm.tui.widgets.board.view import TALL, TONIGHT_HOURS, WIDE, BoardView, timestamp, when
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.subset_picker import subset_title
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.localtime import parse_wire_date
from rankterm.wire.models import Match, Player, RankingRow, Subset

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.stats.seasons import Period
    from rankterm.wire.localtime import SeatZone

CYCLE_FOR = 10 * 60.0
"""Seconds after the last match (recorded, or first seen by this board) during which the board cycles."""
MAIN_SECONDS = 20.0
"""Seconds the main standings stay up in a cycle."""
GAME_SECONDS = 12.0
"""Seconds the last match's game's standings stay up in a cycle."""
NOT_YET = "What it did shows when the service answers."


def game_subset(match: Match | None, subsets: list[Subset]) -> Subset | None:
    """The subset of a match's game, when the game has its own (not the main one, not a custom one)."""
    if match is None or match.game is None:
        return None
    for subset in subsets:
        own = subset.game is not None and subset.game.id == match.game.id
        if own and not subset.is_main and not subset.is_custom:
            return subset
    return None


async def read_view(group: Group, subset_id: str | None, title: str) -> BoardView:
    """One subset as the board shows it: the latest standings (page 1), what the last match did (the
    standings before it: one call the first time, the mirror after), the last five matches held."""
    page = await group.rankings_page(1, subset=subset_id)
    match = page.match
    effect, note = None, ""
    if match is not None:
        try:
            effect = await match_effect(group, match.number, subset_id, after=page)
        except EffectUnknown as exc:
            note = str(exc)
        except RanktermError:
            note = NOT_YET
    recent = list(group.cached_matches(subset=subset_id, limit=5))
    if match is not None and not any(m.number == match.number for m in recent):
        recent = [match, *(m for m in recent if m.number < match.number)]
    more = page.total_pages > 1
    return BoardView(subset_id, title, tuple(page.data), match, effect, note, tuple(recent[:5]), more)


def period_view(group: Group, period: Period, zone: SeatZone) -> BoardView:
    """A period as the board shows it (run in a thread): its standings from an even start over the held
    matches, its last match and its last five, newest first."""
    from rankterm.stats.seasons import season_standings

    inside = held_in_period(group, period, zone)
    season = season_standings(inside, period, zone)
    inside = inside[-5:]
    rows = tuple(
        RankingRow(player=row.player or Player(id=row.player_id), ree=row.ree, position=row.position)
        for row in season.rows
    )
    last = inside[-1] if inside else None
    note = "Standings from an even start."
    return BoardView(None, f"Main · {period.name}", rows, last, None, note, tuple(reversed(inside)))


def held_tonight(group: Group, now: float) -> tuple[str, ...]:
    """What the held matches changed in the `TONIGHT_HOURS` before `now`, newest first, from the story the
    mirror keeps (`stats.kept`): only the events since then are read, no history walked again (run in a
    thread: the first time it walks the held matches once for every screen)."""
    from rankterm.stats.kept import held_changes

    since = datetime.fromtimestamp(now - TONIGHT_HOURS * 3600, UTC).strftime("%Y-%m-%d %H:%M:%S")
    return tonight_of(held_changes(group, since), now)


def tonight_of(events: Sequence[Event], now: float) -> tuple[str, ...]:
    """The words of `events` (oldest first) dated in the `TONIGHT_HOURS` before `now`, newest first."""
    since = now - TONIGHT_HOURS * 3600
    out = []
    for event in reversed(events):
        moment = parse_wire_date(event.date)
        if moment is None:
            continue
        stamp = moment.replace(tzinfo=UTC).timestamp()
        if since <= stamp <= now:
            out.append(event.text)
    return tuple(out)


class BoardScreen(RanktermScreen):
    """The scoreboard: standings in big type, the last match and what it did, the last five matches."""

    INFO = "#board-note"

    DEFAULT_CSS = """
    BoardScreen #board-bar {
        height: 1;
        background: $primary;
        color: $text;
        padding: 0 1;
    }
    BoardScreen #board-title { width: 1fr; text-style: bold; }
    BoardScreen #board-note { width: auto; max-width: 60%; }
    BoardScreen #board-note.-error { color: $text-error; text-style: bold; }
    BoardScreen #board-body { height: 1fr; }
    BoardScreen #board-side { width: 1fr; }
    BoardScreen #board-standings { border-right: vkey $primary 50%; }
    """

    BINDINGS = [
        Binding("f5", "reload", "Reload"),
        Binding("space", "flip", "Other view", show=False),
        Binding("t", "next_period", "Period"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.views: dict[str | None, BoardView] = {}
        """The views read last: the main subset (key None) and, while cycling, the last match's game's."""
        self.shown: str | None = None
        """The key of the view on screen."""
        self.cycle_until = 0.0
        """Until when (the client's clock) the board cycles."""
        self._last_number: int | None = None
        self._drawn: tuple | None = None
        self._timer: Timer | None = None
        self._said = False
        self._loading = False
        self._again = False
        self.period: Period | None = None
        """The period shown (None: all time); `rankterm board --season` sets the first (the app's
        `board_period`)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="board-bar"):
            yield Static("Scoreboard · loading the standings…", id="board-title", markup=False)
            yield Static("", id="board-note", markup=False)
        yield Podium(id="board-podium")
        yield EffectStrip(id="board-effect")
        yield TonightLine(id="board-tonight")
        with Horizontal(id="board-body"):
            yield StandingsPanel(id="board-standings")
            with Vertical(id="board-side"):
                yield LastMatchPanel(id="board-last")
                yield RecentPanel(id="board-recent")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.period = getattr(self.app, "board_period", None)

    def on_screen_resume(self) -> None:
        self.reload_data()

    def on_screen_suspend(self) -> None:
        self._stop_timer()

    def on_resize(self, _event: events.Resize) -> None:
        self._draw()

    def say(self, text: str, kind: Kind = "info", *, to: Where = "line") -> None:
        """As every screen says; the board also remembers that its line holds a sentence (the app's "Opening
        the demo group…" included), so that the next good load clears it."""
        super().say(text, kind, to=to)
        if to != "toast":
            self._said = bool(text)

    def reload_data(self) -> None:
        """Read again; while a read is under way, once more when it is done (a read cut short and started
        over would spend its rankings calls twice)."""
        if self._loading:
            self._again = True
            return
        self._loading = True
        self.load()

    def action_reload(self) -> None:
        self.reload_data()

    def action_flip(self) -> None:
        """Show the other view now (the main standings or the last match's game's)."""
        if len(self.views) < 2:
            self.say("Only the main standings now: the last match's game is shown while it is fresh.")
            return
        self.flip()
        self._arm()

    def periods(self) -> list[Period | None]:
        """What `t` steps through: all time, this month, this quarter, this year, the seasons the host names
        (and the period `--season` asked for, when it is none of these)."""
        from rankterm.stats.seasons import containing, named  # at the first `t`: Home shows all time

        zone = shown_zone(self)
        now = seat_now(self.group, zone) if self.has_client else None
        calendar = [containing(now, kind) for kind in ("month", "quarter", "year")] if now else []
        out: list[Period | None] = [None, *calendar, *named(shown_seasons(self))]
        if self.period is not None and self.period not in out:
            out.insert(1, self.period)
        return out

    def action_next_period(self) -> None:
        """Show the next period (`periods`), back to all time after the last."""
        order = self.periods()
        at = order.index(self.period) if self.period in order else 0
        self.period = order[(at + 1) % len(order)]
        self.views, self.shown = {}, None
        self._stop_timer()
        self.say(f"Standings of {self.period.name} alone." if self.period else "Standings of all time.")
        self.reload_data()

    # ------------------------------------------------------------------ loading

    @task(group="board", exclusive=False)
    async def load(self) -> None:
        """Read the views until no change came in meanwhile; draw what changed."""
        try:
            while True:
                self._again = False
                await self._load_once()
                if not self._again:
                    break
        finally:
            self._loading = False

    async def _load_once(self) -> None:
        """Read the main view (and the game's while cycling); draw what changed."""
        if not self.has_client:
            return
        group = self.group
        try:
            subsets = await group.subsets()
        except RanktermError:
            subsets = group.cached_subsets()
        with contextlib.suppress(RanktermError):  # the matches held still make the last five
            await group.sync_matches()
        period = self.period
        now = group.client.clock()
        news = await asyncio.to_thread(held_tonight, group, now)
        views: dict[str | None, BoardView]
        if period is not None:
            main = await asyncio.to_thread(period_view, group, period, shown_zone(self))
            views = {None: dataclasses.replace(main, tonight=news)}
        else:
            try:
                main = await read_view(group, None, "Main")
            except RanktermError as exc:
                self._said = True
                self.say(error_sentence(exc), "error")
                return
            views = {None: dataclasses.replace(main, tonight=news)}
            self._note_arrival(group, main.match)
            game = game_subset(main.match, subsets)
            if game is not None and self.cycling:
                with contextlib.suppress(RanktermError):  # else the main view alone
                    views[game.id] = dataclasses.replace(
                        await read_view(group, game.id, subset_title(game)), tonight=news
                    )
        if period != self.period:
            return  # another period was asked meanwhile: its own read follows
        self.note_freshness()
        if self._said:
            self._said = False
            self.say("")  # the error said before is over
        self.views = views
        if self.shown not in views:
            self.shown = None
        self._draw()
        self._arm()

    def _note_arrival(self, group: Group, match: Match | None) -> None:
        """Start (or not) a cycle: a match this board sees arrive, or one recorded in the last `CYCLE_FOR`."""
        if match is None:
            return
        now = group.client.clock()
        if self._last_number is None:
            stamp = timestamp(match)
            self.cycle_until = min(stamp, now) + CYCLE_FOR if stamp is not None else 0.0
        elif match.number != self._last_number:
            self.cycle_until = now + CYCLE_FOR
        self._last_number = match.number

    @property
    def cycling(self) -> bool:
        """Whether the last match is fresh enough to show its game's standings in turn."""
        return self.has_client and self.client.clock() < self.cycle_until

    # ------------------------------------------------------------------ cycling

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _arm(self) -> None:
        """The next turn of the cycle, when there are two views; none (no timer, no bytes) otherwise."""
        self._stop_timer()
        if len(self.views) > 1:
            self._timer = self.set_timer(MAIN_SECONDS if self.shown is None else GAME_SECONDS, self._turn)

    def _turn(self) -> None:
        self._timer = None
        if not self.cycling:  # the match is no longer fresh: rest on the main standings
            self.views = {None: self.views[None]} if None in self.views else {}
            self.shown = None
            self._draw()
            return
        self.flip()
        self._arm()

    def flip(self) -> None:
        """Show the next view of the cycle."""
        keys = list(self.views)
        if not keys:
            return
        at = keys.index(self.shown) if self.shown in keys else -1
        self.shown = keys[(at + 1) % len(keys)]
        self._draw()

    # ------------------------------------------------------------------ drawing

    @property
    def view(self) -> BoardView | None:
        """The view on screen."""
        return self.views.get(self.shown) or self.views.get(None)

    def _draw(self) -> None:
        view = self.view
        if view is None:
            return
        places = 5 if self.app.size.width >= WIDE else 3
        tall = self.app.size.height >= TALL
        state = (view, tuple(self.views), self.shown, places, tall)
        if state == self._drawn:
            return  # nothing changed: nothing written
        self._drawn = state
        self.query_one("#board-title", Static).update(styled(*self._title(view)))
        self.query_one(Podium).show(view, places)
        self.query_one(EffectStrip).show(view, tall)
        line = self.query_one(TonightLine)
        line.display = bool(view.tonight)
        line.show(view)
        self.query_one(StandingsPanel).show(view, start=places + 1)
        last = self.query_one(LastMatchPanel)
        side = self.query_one("#board-side").size.height
        room = side - 7 if side else LastMatchPanel.wanted(view)  # the last five below it keep their 6+1
        last.styles.height = max(2, min(LastMatchPanel.wanted(view), room))
        last.show(view)
        self.query_one(RecentPanel).show(view)

    def _title(self, view: BoardView) -> list[object]:
        """The bar's parts, for `styled()`: the subset, the match, the view taking turns with it."""
        match = view.match
        wide = self.app.size.width >= WIDE
        if match is None:
            after = " · no match yet"
        else:
            after = f" · after match {match.number}" + (
                f" · {when(match, shown_zone(self), wide=True)}" if wide else ""
            )
        parts: list[object] = [("SCOREBOARD  ", "bold"), (view.title, "bold"), after]
        others = [v.title for key, v in self.views.items() if key != self.shown]
        if others:  # the cycle: which view takes turns with this one
            parts.append(("   in turn with " + ", ".join(others), "italic"))
        return parts
