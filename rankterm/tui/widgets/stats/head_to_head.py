"""Head-to-head: two players (or a player and everyone): how often they met, who finished ahead, ties, per game,
and their last meetings. The body of the Stats mode's Head-to-head tab.

The counts are `rankterm.stats.head_to_head` over the first player's matches (every meeting is one of
them: `player_matches`, read from the mirror in a thread, no request), the same figures `rankterm stats h2h`
prints. A bar shows the shares with shapes as well as colours (█ the first player ahead,
▒ ties, ░ the second ahead), so it reads in 16 colours and with NO_COLOR.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label, Select, Static

from rankterm.stats import HeadToHead, head_to_head
from rankterm.stats.compact import player_matches
from rankterm.stats.rules import MatchLike
from rankterm.stats.source import Roster
from rankterm.tui.base import task
from rankterm.tui.text import plain, plain_str, styled
from rankterm.tui.widgets.stats.choices import most_active, most_met, options
from rankterm.tui.widgets.stats.words import bar_parts, plural, short_day
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.tui.zone import shown_zone

if TYPE_CHECKING:
    from rankterm.mirror import Group

WIDE = 100
"""From this many columns up, game names are shown whole in the tables; below, cut to `GAME_WIDTH`."""
GAME_WIDTH = 12

EVERYONE = "*everyone*"
"""The second picker's value for "everyone" (never a player id: ids are letters and digits)."""


def summary(h2h: HeadToHead) -> list[object | tuple[object, str]]:
    """The counts in words, as `styled()` parts: "23 meetings · Ada ahead 14 · Ben ahead 8 · 1 tie"."""
    parts: list[object | tuple[object, str]] = [
        (plural(h2h.meetings, "meeting"), "bold"),
        " · ",
        h2h.a_name,
        f" ahead {h2h.a_ahead} · ",
        h2h.b_name,
        f" ahead {h2h.b_ahead} · ",
        plural(h2h.ties, "tie"),
    ]
    if h2h.together:
        parts.append((f" · together {h2h.together}, won {h2h.together_wins}", "dim"))
    return parts


def cut(name: str, width: int = GAME_WIDTH) -> str:
    """A name cut to `width` terminal cells with an ellipsis when longer ("Ticket to R…"); a wide character
    (2 cells) that would straddle the cut is left out and its cell padded."""
    return name if cell_len(name) <= width else set_cell_size(name, width - 1) + "…"


def _cell(value: int | str, right: bool = True) -> Text:
    return Text(plain_str(value), justify="right" if right else "left")


class HeadToHeadView(Vertical):
    """Two pickers, the counts, a bar, the counts per game and the last meetings."""

    DEFAULT_CSS = """
    HeadToHeadView { height: 1fr; padding: 0 1; }
    HeadToHeadView #h2h-pick { height: 1; }
    HeadToHeadView #h2h-pick Select { width: 24; }
    HeadToHeadView #h2h-pick Label { width: auto; margin: 0 1; color: $text-muted; }
    HeadToHeadView #h2h-summary { height: auto; margin-top: 1; }
    HeadToHeadView #h2h-bar { height: 1; }
    HeadToHeadView #h2h-tables { height: 1fr; margin-top: 1; }
    HeadToHeadView #h2h-tables > Vertical { width: 1fr; }
    HeadToHeadView #h2h-games-box { margin-right: 2; }
    HeadToHeadView .h2h-title { height: 1; color: $text-muted; }
    HeadToHeadView DataTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.matches: Sequence[MatchLike] = []
        """A's matches (the pair's meetings are among them)."""
        self.group: Group | None = None
        self.figures: HeadToHead | None = None
        self._players: dict[str, str] = {}
        self._filling = False
        self._picked: tuple[object, object] = (None, None)
        """The (A, B) values last drawn or being read: a Select.Changed that brings them is no new pick."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="h2h-pick"):
            yield Select([], prompt="Player", allow_blank=True, id="h2h-a", compact=True, type_to_search=True)
            yield Label("against")
            yield Select([], prompt="Player", allow_blank=True, id="h2h-b", compact=True, type_to_search=True)
        yield Static("", id="h2h-summary")
        yield Static("", id="h2h-bar")
        with Horizontal(id="h2h-tables"):
            with Vertical(id="h2h-games-box"):
                yield Static("Per game", classes="h2h-title")
                yield TextTable(id="h2h-games", cursor_type="row", zebra_stripes=True)
            with Vertical(id="h2h-last-box"):
                yield Static("Last meetings, newest first", classes="h2h-title")
                yield TextTable(id="h2h-last", cursor_type="row", zebra_stripes=True)

    @property
    def a_select(self) -> Select[str]:
        return self.query_one("#h2h-a", Select)

    @property
    def b_select(self) -> Select[str]:
        return self.query_one("#h2h-b", Select)

    def show(self, roster: Roster, group: Group) -> None:
        """Offer the players of the held matches and draw the pair picked (first time: the most active player
        and the one they met most)."""
        self.group = group
        players = roster.players
        a, b = self.a_select.value, self.b_select.value
        if players != self._players:
            self._players = players
            self._filling = True
            self.a_select.set_options(options(players))
            self.b_select.set_options([(Text("everyone"), EVERYONE), *options(players)])
            self._filling = False
        if not isinstance(a, str) or a not in players:
            a = most_active(roster) or ""
        if not isinstance(b, str) or (b != EVERYONE and b not in players):
            b = ""  # the one A met most, once A's matches are read
        self.pick(a, b or None, first=not b)

    def pick(self, a_id: str, b_id: str | None, *, first: bool = False) -> None:
        """Show A against B (None or EVERYONE: against everyone; with `first`, the one A met most)."""
        b_value = EVERYONE if b_id is None else b_id
        self._filling = True
        if a_id in self._players:
            self.a_select.value = a_id
        if b_value == EVERYONE or b_value in self._players:
            self.b_select.value = b_value
        self._filling = False
        self._draw(most_met_first=first)

    @on(Select.Changed)
    def _changed(self, event: Select.Changed) -> None:
        """A pick by hand (a change the view made itself arrives later as the pair already drawn)."""
        event.stop()
        if not self._filling and (self.a_select.value, self.b_select.value) != self._picked:
            self._draw()
            if event.select.has_focus:  # picked by hand: out of the picker, typed keys are the screen's again
                games = self.query_one("#h2h-games", DataTable)
                self.screen.set_focus(games if games.focusable else None)

    def _draw(self, *, most_met_first: bool = False) -> None:
        a, b = self.a_select.value, self.b_select.value
        if not isinstance(a, str) or not a:
            self.query_one("#h2h-summary", Static).update("Pick a player.")
            return
        self._picked = (a, b)
        b_id = None if not isinstance(b, str) or b == EVERYONE else b
        if b_id == a:  # nothing of the pair drawn before stays under this sentence
            self.query_one("#h2h-summary", Static).update("Pick two different players (or everyone).")
            self.query_one("#h2h-bar", Static).update("")
            for table in self.query("#h2h-games, #h2h-last").results(DataTable):
                table.clear()
            self.figures = None
            return
        if self.group is not None:
            self.read_pair(self.group, a, b_id, most_met_first)

    @task(group="h2h-read")
    async def read_pair(self, group: Group, a: str, b_id: str | None, most_met_first: bool) -> None:
        """A's matches only (`player_matches`: every meeting of A is one of them), read and counted in a
        thread: a player of a big group plays thousands."""

        def read() -> tuple[Sequence[MatchLike], str | None]:
            mine = player_matches(group, a)
            return mine, most_met(mine, a) if most_met_first else b_id

        mine, met = await asyncio.to_thread(read)
        if most_met_first:
            b_id = met
            if b_id is not None and b_id in self._players:
                self._picked = (a, b_id)
                self._filling = True
                self.b_select.value = b_id
                self._filling = False
            else:
                b_id = None
        self.matches = mine
        h2h = await asyncio.to_thread(head_to_head, mine, a, b_id, dict(self._players))
        self.figures = h2h
        self.query_one("#h2h-summary", Static).update(styled(*summary(h2h)))
        self._draw_bar(h2h)
        self._fill_games(h2h)
        self._fill_last(h2h)

    def _draw_bar(self, h2h: HeadToHead) -> None:
        """The shares as a bar as wide as the view allows (drawn again when the view is resized)."""
        width = max(10, self.size.width - 4 - cell_len(h2h.a_name[:20]) - cell_len(h2h.b_name[:20]))
        bar = bar_parts(h2h.a_ahead, h2h.b_ahead, h2h.ties, min(width, 60))
        self.query_one("#h2h-bar", Static).update(
            styled(h2h.a_name[:20], " ", *bar, " ", h2h.b_name[:20]) if h2h.meetings else plain("")
        )

    def on_resize(self) -> None:
        if self.figures is not None:
            self._draw_bar(self.figures)

    def _fill_games(self, h2h: HeadToHead) -> None:
        narrow = self.app.size.width < WIDE
        columns: list[tuple[str, str | Text]] = [("game", "Game")]
        columns += [
            (key, Text(plain_str(title)))
            for key, title in (("met", "Met"), ("a", h2h.a_name[:8]), ("b", h2h.b_name[:8]))
        ]
        if h2h.ties:
            columns.append(("tie", "Tie"))
        rows: list[list[Text]] = []
        keys: list[str] = []
        for g in h2h.per_game:
            if not g.meetings:
                continue
            cells = [_game_cell(g.game_name, narrow), _cell(g.meetings), _cell(g.a_ahead), _cell(g.b_ahead)]
            if h2h.ties:
                cells.append(_cell(g.ties))
            rows.append(cells)
            keys.append(str(g.game_id))
        fill_table(self.query_one("#h2h-games", DataTable), columns, rows, keys, widths=_game_width(narrow))

    def _fill_last(self, h2h: HeadToHead) -> None:
        everyone = h2h.b_id is None
        narrow = self.app.size.width < WIDE
        zone = shown_zone(self)
        columns = [("no", "No."), ("date", "Date"), ("game", "Game")]
        if everyone:
            columns.append(("other", "Against"))
        if not narrow:
            columns.append(("ranks", "Ranks"))
        columns.append(("ahead", "Ahead"))
        rows: list[list[Text]] = []
        for meeting in h2h.last:
            ahead = {"a": h2h.a_name, "b": meeting.other_name, "tie": "tie"}[meeting.outcome]
            cells = [
                _cell(meeting.match_number),
                _cell(short_day(meeting.date, zone)),
                _game_cell(meeting.game_name, narrow),
            ]
            if everyone:
                cells.append(_cell(meeting.other_name, False))
            if not narrow:
                cells.append(_cell(f"{meeting.a_rank} v {meeting.b_rank}"))
            cells.append(_cell(ahead, False))
            rows.append(cells)
        # no row keys: against everyone, one match can be several meetings
        fill_table(self.query_one("#h2h-last", DataTable), columns, rows, widths=_game_width(narrow))


def _game_cell(name: str, narrow: bool) -> Text:
    """A game's name, cut to `GAME_WIDTH` cells on a narrow screen."""
    return _cell(cut(plain_str(name)) if narrow else name, right=False)


def _game_width(narrow: bool) -> dict[str, int]:
    """The game column's own width on a narrow screen (its names are cut to it); else measured."""
    return {"game": GAME_WIDTH} if narrow else {}
