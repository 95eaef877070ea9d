"""Tonight: the matches since a chosen time (the last 12 hours unless another is picked): who won what, the
biggest ree gain and the biggest upset (the winner with the lowest ree before the match). The body of the
Stats mode's Tonight tab.

Who won what is `rankterm.stats.tonight` over the evening's matches only (`matches_since`: narrowed by
the mirror, read in a thread; "the last game night" from the newest date of the pickers' roster). The gain and the upset need
ree before and after each of the evening's matches: `history.ree_around` reads the standings after them in
a worker (quota-aware, kept in the mirror) and the highlights follow when they arrive, saying how many of the
evening's matches they cover. Times are read as UTC (the matches carry them so) and shown in the seat's time
zone, named on the summary line ("Since Wed 27 May 20:26 Auckland").
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label, Select, Static

from rankterm.stats import Tonight, tonight
from rankterm.stats.compact import CompactMatch, matches_since
from rankterm.stats.history import ReeAround, ree_around
from rankterm.stats.kept import held_changes
from rankterm.stats.recap import tonight_recap
from rankterm.stats.source import Roster, matches_numbered
from rankterm.tui.base import task
from rankterm.tui.text import NONE, error_sentence, plain, plain_str, styled
from rankterm.tui.widgets.stats.words import parse_date, plural
from rankterm.tui.widgets.text_table import NAME_CELLS, TextTable, fill_table, fit_cell, room_for
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import Match
from rankterm.wire.shown import ree, signed

if TYPE_CHECKING:
    from rankterm.mirror import Group

SINCE_CHOICES: tuple[tuple[str, str], ...] = (
    ("12h", "the last 12 hours"),
    ("24h", "the last 24 hours"),
    ("72h", "the last 3 days"),
    ("168h", "the last 7 days"),
    ("night", "the last game night"),
)
"""The "since" picker: a span back from now, or the 12 hours before the group's newest match."""
DEFAULT_SINCE = "12h"
NIGHT_HOURS = 12
WIDE = 110
"""From this many columns up, each match's whole finishing order is shown."""
MIN_WON = 12
"""The winners' column never gets less than this, whatever the others take."""
GAME_CELLS = 14
"""The most cells a game's name takes below `WIDE` when the winners need the room (cut with "…")."""
MIN_NAME = 6
"""The least cells of a name in the wins table."""
TALLY_COLUMNS = [("player", "Player"), ("won", "Won"), ("played", "of")]


def since_for(choice: str, now: datetime, newest: str | None) -> datetime:
    """The time a choice of the picker means (naive UTC, as the wire's dates); `newest`: the date of the
    group's newest match (for "the last game night")."""
    if choice == "night":
        last = parse_date(newest) if newest else None
        if last is not None:
            return last - timedelta(hours=NIGHT_HOURS)
        choice = DEFAULT_SINCE
    hours = int(choice.rstrip("h")) if choice.rstrip("h").isdigit() else NIGHT_HOURS
    return now - timedelta(hours=hours)


def when_text(since: datetime) -> str:
    """ "Wed 27 May 20:26" (`since` in the zone it is to be read in)."""
    return f"{since:%a} {since.day} {since:%b %H:%M}"


def won_text(names: Sequence[str], draw: bool, room: int) -> str:
    """Who won, in `room` cells: "Ada", "Tia, Tom (draw)"; whole names as many as fit, "+N" for the others,
    and " (draw)" always said: "Tia Montgomery-Smith +1 (draw)", or the first name cut ("Tia Montgo… +1
    (draw)") when even it does not fit."""
    tail = " (draw)" if draw else ""
    whole = ", ".join(names) + tail
    if cell_len(whole) <= room or not names:
        return whole
    for shown in range(len(names) - 1, 0, -1):
        text = f"{', '.join(names[:shown])} +{len(names) - shown}{tail}"
        if cell_len(text) <= room:
            return text
    more = f" +{len(names) - 1}" if len(names) > 1 else ""
    first = Text(names[0])
    first.truncate(max(1, room - cell_len(more + tail)), overflow="ellipsis")
    return first.plain + more + tail


def finishing_order(match: Match) -> str:
    """Every faction by rank, as read: "1 Elena · 2 Chiara, Dev · 3 the bot"."""
    parts = []
    for faction in sorted(match.factions, key=lambda f: f.rank):
        who = "the bot" if faction.bot else ", ".join(p.label for p in faction.players) or faction.name
        parts.append(f"{faction.rank} {who}")
    return " · ".join(parts)


def highlights(evening: Tonight, around: ReeAround | None) -> list[object | tuple[object, str]]:
    """The biggest gain and the biggest upset in words (`styled()` parts), or why they are not known yet."""
    parts: list[object | tuple[object, str]] = [("Biggest ree gain  ", "dim")]
    gain = evening.biggest_gain
    if gain is not None:
        parts += [
            (gain.name, "bold"),
            f" {signed(gain.gain, 1, exact_sign=True)} ({ree(gain.before)} → {ree(gain.after)})",
        ]
    else:
        parts.append(NONE if around is not None and around.loaded else "reading the standings…")
    parts.append(("\nBiggest upset     ", "dim"))
    upset = evening.biggest_upset
    if upset is not None:
        parts += [
            (upset.name, "bold"),
            f" won match {upset.match_number} (",
            upset.game_name,
            f") from ree {ree(upset.ree_before)}",
        ]
    else:
        parts.append(NONE if around is not None and around.loaded else "reading the standings…")
    if around is not None and around.wanted and around.loaded < around.wanted:
        why = " (quota: the rest later, F5)" if around.stopped == "quota" else ""
        parts.append((f"\nree read for {around.loaded} of {around.wanted} matches{why}", "dim"))
    return parts


class TonightView(Vertical):
    """The "since" picker, a summary, the highlights, the evening's matches and who won how many."""

    DEFAULT_CSS = """
    TonightView { height: 1fr; padding: 0 1; }
    TonightView #tn-pick { height: 1; }
    TonightView #tn-pick Label { width: auto; margin-right: 1; color: $text-muted; }
    TonightView #tn-since { width: 26; }
    TonightView #tn-summary { height: auto; margin-top: 1; }
    TonightView #tn-highlights { height: auto; margin-bottom: 1; }
    TonightView #tn-tables { height: 1fr; }
    TonightView #tn-matches-box { width: 2fr; margin-right: 2; }
    TonightView #tn-tally-box { width: 1fr; min-width: 24; max-width: 40; }
    TonightView .tn-title { height: 1; color: $text-muted; }
    TonightView DataTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.matches: list[CompactMatch] = []
        """The evening's matches (`matches_since`: the stats rows, no match parsed)."""
        self.parsed: list[Match] = []
        """The same matches parsed, for their finishing order (a faction's name is not in the stats rows)."""
        self.roster: Roster | None = None
        self.group: Group | None = None
        self._since = datetime.min
        self.evening: Tonight | None = None
        self.around: ReeAround | None = None
        self._around_for: tuple[int, ...] | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="tn-pick"):
            yield Label("Matches of")
            yield Select(
                [(label, key) for key, label in SINCE_CHOICES],
                value=DEFAULT_SINCE,
                allow_blank=False,
                id="tn-since",
                compact=True,
            )
        yield Static("", id="tn-summary")
        yield Static("", id="tn-highlights")
        with Horizontal(id="tn-tables"):
            with Vertical(id="tn-matches-box"):
                yield Static("Who won what", classes="tn-title")
                yield TextTable(id="tn-matches", cursor_type="row", zebra_stripes=True)
            with Vertical(id="tn-tally-box"):
                yield Static("Wins", classes="tn-title")
                yield TextTable(id="tn-tally", cursor_type="row", zebra_stripes=True)

    @property
    def choice(self) -> str:
        value = self.query_one("#tn-since", Select).value
        return value if isinstance(value, str) else DEFAULT_SINCE

    def choose(self, choice: str) -> None:
        """Pick a "since" choice (a key of SINCE_CHOICES) and draw it."""
        self.query_one("#tn-since", Select).value = choice

    def show(self, roster: Roster, group: Group | None) -> None:
        """Draw the evening from its matches (read from the mirror in a thread); read ree around its matches
        in the background."""
        self.roster, self.group = roster, group
        self._draw()

    @on(Select.Changed, "#tn-since")
    def _since_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self.roster is not None:
            self._draw()
        if event.select.has_focus:  # picked by hand: out of the picker, typed keys are the screen's again
            tally = self.query_one("#tn-tally", DataTable)
            self.screen.set_focus(tally if tally.focusable else None)

    def _now(self) -> datetime:
        clock = self.group.client.clock if self.group is not None else None
        stamp = clock() if clock is not None else datetime.now(UTC).timestamp()
        return datetime.fromtimestamp(stamp, UTC).replace(tzinfo=None)

    def _draw(self) -> None:
        newest = self.roster.newest if self.roster is not None else None
        since = since_for(self.choice, self._now(), newest[0] if newest else None)
        if self.group is not None:
            self.read_evening(self.group, since)

    @task(group="tonight-read")
    async def read_evening(self, group: Group, since: datetime) -> None:
        """The matches since `since` only (`matches_since`), then the evening drawn from them."""
        self.matches = await asyncio.to_thread(matches_since, group, since)
        self.parsed = await asyncio.to_thread(matches_numbered, group, [m.number for m in self.matches])
        self._since = since
        self._show()

    def recap(self, group: Group) -> str:
        """The evening shown as `rankterm stats tonight --format md` writes it (run it in a thread: it walks the
        held history for what changed)."""
        zone = shown_zone(self)
        events = held_changes(group)
        evening = self.evening or tonight([], self._since)
        return tonight_recap(evening, events, zone.local(self._since), zone.label)

    def _show(self) -> None:
        since = self._since
        numbers = tuple(
            m.number for m in self.matches if (when := parse_date(m.date)) is not None and when >= since
        )
        around = self.around if numbers == self._around_for else None
        evening = tonight(
            self.matches,
            since,
            around.before if around else None,
            around.after if around else None,
            around.new if around else frozenset(),
        )
        self.evening = evening
        players = {q for row in evening.tallies for q in [row.player_id]}
        zone = shown_zone(self)
        self.query_one("#tn-summary", Static).update(
            styled(
                ("Since ", "dim"),
                when_text(zone.local(since)),
                (f" {zone.label}", "dim"),  # the zone of every time on the page
                f" · {plural(len(evening.matches), 'match', 'matches')} · {plural(len(players), 'player')}",
            )
        )
        if not evening.matches:
            newest = self.roster.newest if self.roster is not None else None
            note = "No match in this time."
            if newest is not None:
                note += f" The last was played {when_text(zone.local(parse_date(newest[0]) or since))}: pick “the last game night”."
            self.query_one("#tn-highlights", Static).update(plain(note))
        else:
            self.query_one("#tn-highlights", Static).update(styled(*highlights(evening, around)))
        self._fill(evening)
        if numbers and self.group is not None and numbers != self._around_for:
            self._around_for = numbers
            self.around = None
            self.load_ree(self.group, numbers)

    def reload_ree(self) -> None:
        """Ask again for the ree the quota left out (F5)."""
        if self._around_for and self.group is not None:
            self.load_ree(self.group, self._around_for)

    @task(group="tonight-ree")
    async def load_ree(self, group: Group, numbers: tuple[int, ...]) -> None:
        try:
            around = await ree_around(group, numbers)
        except RanktermError as exc:
            self.query_one("#tn-highlights", Static).update(plain(error_sentence(exc)))
            return
        if numbers != self._around_for:
            return
        self.around = around
        self._show()

    def on_resize(self) -> None:
        """Another width: the winners are fitted again to the room they have."""
        if self.evening is not None:
            self._fill(self.evening)

    def _fill(self, evening: Tonight) -> None:
        wide = self.app.size.width >= WIDE
        zone = shown_zone(self)
        table = self.query_one("#tn-matches", DataTable)
        columns = [("no", "No."), ("time", "Time"), ("game", "Game"), ("won", "Won")]
        if wide:
            columns.append(("order", "Order"))
        by_number = {m.number: m for m in self.parsed}
        rows: list[list[Text]] = []
        keys: list[str] = []
        for row in reversed(evening.matches):
            cells = [
                Text(str(row.number), justify="right"),
                Text(plain_str(zone.show(row.date, "%H:%M"))),
                fit_cell(Text(plain_str(row.game_name)), NAME_CELLS),
                Text(""),
            ]
            if wide and row.number in by_number:
                cells.append(Text(plain_str(finishing_order(by_number[row.number]))))
            elif wide:
                cells.append(Text(""))
            rows.append(cells)
            keys.append(str(row.number))
        won = [
            (
                ["the bot"] if row.bot_won else [plain_str(n) for n in row.winner_names],
                row.draw and not row.bot_won,
            )
            for row in reversed(evening.matches)
        ]
        room = 200 if wide else room_for(table, columns, rows, "won", {})
        if not wide and any(cell_len(won_text(names, draw, 200)) > room for names, draw in won):
            for cells in rows:  # the winners come first: the games' names give up some room
                cells[2] = fit_cell(cells[2], GAME_CELLS)
            room = room_for(table, columns, rows, "won", {})
        for cells, (names, draw) in zip(rows, won, strict=True):
            cells[3] = Text(won_text(names, draw, max(MIN_WON, room)) or NONE)
        fill_table(table, columns, rows, keys)
        tallies = [
            [
                Text(plain_str(t.name)),
                Text(str(t.wins), justify="right"),
                Text(str(t.played), justify="right"),
            ]
            for t in evening.tallies
        ]
        tally_table = self.query_one("#tn-tally", DataTable)
        fill_table(  # a long name is cut, never the counts
            tally_table,
            TALLY_COLUMNS,
            tallies,
            [t.player_id for t in evening.tallies],
            caps={"player": max(MIN_NAME, room_for(tally_table, TALLY_COLUMNS, tallies, "player", {}))},
        )
