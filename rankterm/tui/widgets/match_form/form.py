"""`MatchForm`: the fields of one new match, its own checks, and the panels around it.

Game (a `GamePicker`), weight, name ("Game name", "A vs B" or a custom text), notes, date, external id, and
the faction rows (`FactionRow`, added and removed by the screen's keys). `collect()` reads the form into a
`NewMatch`, or shows every problem the one judge (`rankterm.wire.new_match.read_match`) finds, each sentence
under its field, the field marked `-invalid`, and gives None. It never sends anything: the screen does.

The date: empty means "now", and "now" is the moment the match is recorded (sent or queued), taken from the
clock the screen passes to `collect`, so a form left open for an hour is not dated when it was opened. A
typed date (YYYY-MM-DD HH:MM[:SS] or YYYY-MM-DD) is the seat's wall time (`shown_zone`, named beside the
field), sent as the wire's UTC; a date in the future is said in the seat's zone too.
The weight follows the game: a game picked sets it to `weight_for` the game (what the group's matches of it
use most, else the game's own, else normal), once per game picked; it stays changeable.
`has_unsent_input()` tells whether the form holds a match that was not sent (or queued) yet.
The answer panel (`MatchFormAnswer`) and the queue line sit inside the same scroll, at its top and bottom.

Ranks follow the rows unless one is typed, and equal points with no rank typed are a tie
(`rankterm.wire.ties`, the importer's rule too); the result line under the rows shows the order that will be
sent, ties included ("Elena = Ben", then Greta, with `PLACE_SEP` between places), before anything is sent.

How the focus moves on as a result is said aloud is `MatchFormFlow`'s (flow.py). Rows left blank are not
factions (`collect` leaves them out while two filled ones remain). Picks made before the group's lists
arrived wait for them (`waiting`); `when_lists_arrive` runs a send asked meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widget import AwaitMount, Widget
from textual.widgets import Input, Label, Select, Static

from rankterm.tui.text import plain
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.match_form.answer import MatchFormAnswer
from rankterm.tui.widgets.match_form.faction_header import FactionRowHeader
from rankterm.tui.widgets.match_form.faction_row import FactionRow
from rankterm.tui.widgets.match_form.flow import MatchFormFlow
from rankterm.tui.widgets.match_form.game_picker import GamePicker, Search
from rankterm.tui.zone import shown_zone
from rankterm.wire.localtime import SeatZone
from rankterm.wire.models import (
    DATE_FORMAT,
    NAME_GAME,
    NAME_VERSUS,
    Game,
    NewFaction,
    NewMatch,
    Player,
    Weight,
)
from rankterm.wire.new_match import FUTURE_DATE, MAX_NAME, SCHEMA, read_match
from rankterm.wire.points_ranks import points_against_ranks
from rankterm.wire.result_line import PLACE_SEP, TIE_SEP
from rankterm.wire.ties import listed_ranks

CUSTOM = "custom"
NAME_CHOICES: list[tuple[str, str]] = [("Game name", NAME_GAME), ("A vs B", NAME_VERSUS), ("Custom…", CUSTOM)]
WEIGHT_CHOICES: list[tuple[str, Weight]] = [(w.label, w) for w in Weight]


class MatchForm(MatchFormFlow, can_focus=False):
    """The match form, in a scroll so that it works at 80x24 with any number of factions."""

    DEFAULT_CSS = """
    MatchForm {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    MatchForm .field {
        height: auto;
        width: 1fr;
    }
    MatchForm .field > Label {
        width: 8;
        color: $text-muted;
    }
    MatchForm .field > .inner-label {
        width: auto;
        margin: 0 1 0 2;
    }
    MatchForm #weight, MatchForm #name-choice {
        width: 14;
    }
    MatchForm #custom-name {
        width: 1fr;
        margin: 0 0 0 1;
        display: none;
    }
    MatchForm.-custom-name #custom-name {
        display: block;
    }
    MatchForm #notes, MatchForm #external-id {
        width: 1fr;
    }
    MatchForm #date {
        width: 20;
    }
    MatchForm #date-zone {
        width: auto;
        margin: 0 0 0 1;
        color: $text-muted;
    }
    MatchForm Input.-invalid {
        background: $error 25%;
    }
    MatchForm Input:focus {
        background-tint: $foreground 8%;
    }
    MatchForm #form-problem {
        color: $text-error;
        height: auto;
        display: none;
    }
    MatchForm #form-problem.-shown {
        display: block;
    }
    MatchForm FactionRowHeader {
        margin: 1 0 0 0;
    }
    MatchForm #factions {
        height: auto;
    }
    MatchForm #result-line {
        height: auto;
        color: $text-muted;
        display: none;
    }
    MatchForm #result-line.-shown {
        display: block;
    }
    MatchForm #odds-line {
        height: auto;
        color: $text-muted;
        display: none;
    }
    MatchForm #odds-line.-shown {
        display: block;
    }
    MatchForm #queue-line {
        height: auto;
        color: $text-warning;
        margin: 1 0 0 0;
        display: none;
    }
    MatchForm #queue-line.-shown {
        display: block;
    }
    """

    def __init__(self, *, search: Search | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._search = search
        self.players: list[Player] = []
        self._sent_key: tuple | None = None
        self._loaded = False
        self._waiters: list[Callable[[], object]] = []
        self.weighed_game: int | None = None
        """The game whose weight the Weight field was last set for (by the pick, or by what was loaded)."""
        self._rows_mounted: AwaitMount | None = None
        """The mount of the first faction rows, once it was started (`_first_rows`)."""

    def compose(self) -> ComposeResult:
        yield MatchFormAnswer(id="answer")
        yield Static("", id="form-problem", markup=False)
        with Horizontal(classes="field"):
            yield Label("Game")
            yield GamePicker(id="game", search=self._search)
        with Horizontal(classes="field"):
            yield Label("Weight")
            yield Select(WEIGHT_CHOICES, value=Weight.NORMAL, allow_blank=False, compact=True, id="weight")
            yield Label("Name", classes="inner-label")
            yield Select(NAME_CHOICES, value=NAME_GAME, allow_blank=False, compact=True, id="name-choice")
            yield FormInput(placeholder="match name", id="custom-name", compact=True, max_length=MAX_NAME)
        with Horizontal(classes="field"):
            yield Label("Notes")
            yield FormInput(placeholder="optional", id="notes", compact=True, max_length=5000)
        with Horizontal(classes="field"):
            yield Label("Date")
            yield FormInput(
                placeholder="now",
                id="date",
                compact=True,
                max_length=19,
                restrict=r"[0-9: -]*",
            )
            yield Label("", id="date-zone")
            yield Label("Ext. id", classes="inner-label")
            yield FormInput(id="external-id", compact=True, max_length=100)
        yield FactionRowHeader()
        yield Vertical(id="factions")  # its first two rows come after the first paint (`_first_rows`)
        yield Static("", id="result-line", markup=False)
        yield Static("", id="odds-line", markup=False)
        yield Static("", id="queue-line", markup=False)

    def on_mount(self) -> None:
        self.show_zone()
        self.call_after_refresh(self._first_rows)

    async def _first_rows(self) -> None:
        """The two faction rows a blank form starts with, mounted once the rest of the form was drawn: the
        form's ~85 widgets styled in one step held the event loop ~130 ms, the rows are a third of them. Keys
        typed meanwhile wait (the key queue waits for this callback and the mount); `clear` waits for them."""
        if self._rows_mounted is not None:
            return
        factions = self.query_one("#factions", Vertical)
        self._rows_mounted = factions.mount_all(
            [FactionRow(n, players=self.players if self._loaded else None) for n in (1, 2)]
        )
        await self._rows_mounted

    async def first_rows(self) -> None:
        """Return once the form's first faction rows are mounted (at once when they are)."""
        if self._rows_mounted is None:
            await self._first_rows()
        else:
            await self._rows_mounted

    def show_zone(self) -> None:
        """Name the seat's zone beside the Date field and in its tooltip (the zone typed dates are read in)."""
        zone = shown_zone(self)
        self.field(
            "date"
        ).tooltip = f"Empty: the moment you send or queue it. Else YYYY-MM-DD HH:MM, {zone.label} time."
        self.query_one("#date-zone", Label).update(plain(zone.label))

    # ------------------------------------------------------------------ parts

    @property
    def answer(self) -> MatchFormAnswer:
        return self.query_one("#answer", MatchFormAnswer)

    def field(self, name: str) -> Input:
        """One of the text fields: "custom-name", "notes", "date", "external-id"."""
        return self.query_one(f"#{name}", Input)

    @property
    def name_value(self) -> str:
        choice = self.query_one("#name-choice", Select).value
        return self.field("custom-name").value.strip() if choice == CUSTOM else str(choice)

    # ------------------------------------------------------------------ filling

    def set_lists(self, games: Sequence[Game], players: Sequence[Player]) -> None:
        """The group's games and players, for the pickers; what was picked before they came is resolved,
        and a send asked meanwhile runs."""
        self.players = list(players)
        self._loaded = True
        self.game_picker.set_games(games)
        for row in self.query_one("#factions", Vertical).query_children(
            FactionRow
        ):  # mounted or being mounted
            row.set_players(self.players)
        if not self.waiting:
            waiters, self._waiters = self._waiters, []
            for callback in waiters:
                callback()

    @property
    def waiting(self) -> bool:
        """True while a game or player picked before the group's lists arrived waits for them."""
        return self.game_picker.waiting or any(row.picker.waiting for row in self.rows)

    def when_lists_arrive(self, callback: Callable[[], object]) -> None:
        """Run `callback` (e.g. the send asked while typed picks wait) once nothing waits for the lists."""
        if self.waiting:
            self._waiters.append(callback)
        else:
            callback()

    async def add_row(self) -> FactionRow:
        """A new faction row at the end (mounted, ready to focus)."""
        row = FactionRow(len(self.rows) + 1, players=self.players if self._loaded else None)
        await self.query_one("#factions", Vertical).mount(row)
        return row

    def remove_row(self, row: FactionRow) -> FactionRow | None:
        """Drop `row`, renumber the others; the row to focus next (None when it was the only one)."""
        rows = self.rows
        if len(rows) <= 1:
            return None
        index = rows.index(row)
        rest = [r for r in rows if r is not row]
        row.remove()
        for position, other in enumerate(rest, start=1):
            other.renumber(position)
        return rest[min(index, len(rest) - 1)]

    @staticmethod
    def weight_for(game: Game, held: Sequence[object]) -> Weight:
        """The weight a match of `game` most likely has: the one most of `held` (the group's matches of it,
        their weights as stored) use, else the game's own, else normal."""
        known = {w.value: w for w in Weight}
        counts: dict[Weight, int] = {}
        for value in held:
            if isinstance(value, str) and value in known:
                counts[known[value]] = counts.get(known[value], 0) + 1
        if counts:
            return max(counts, key=lambda w: counts[w])
        return known.get(game.weight.strip().lower(), Weight.NORMAL)

    def follow_game(self, game: Game, held: Sequence[object]) -> None:
        """The game was picked: the Weight field follows it (not again for the same game, which keeps a
        weight changed by hand)."""
        if game.id == self.weighed_game:
            return
        self.weighed_game = game.id
        self.query_one("#weight", Select).value = self.weight_for(game, held)

    def next_match(self, external_id: str) -> None:
        """Clear what belongs to one match (ranks, points, notes); keep game, players, weight and name."""
        self.clear_problems()
        self.field("notes").value = ""
        self.field("date").value = ""
        self.field("external-id").value = external_id
        for row in self.rows:
            row.reset_result()

    async def clear(self, external_id: str) -> None:
        """A blank form: no game, two empty factions, default weight and name."""
        self.clear_problems()
        self.game_picker.choose(None)
        self.weighed_game = None
        self.query_one("#weight", Select).value = Weight.NORMAL
        self.query_one("#name-choice", Select).value = NAME_GAME
        for name in ("custom-name", "notes", "date"):
            self.field(name).value = ""
        self.field("external-id").value = external_id
        await self.first_rows()
        rows = self.rows
        for extra in rows[2:]:
            await extra.remove()
        for row in rows[:2]:
            row.fill()
        for _ in range(2 - len(rows[:2])):
            await self.add_row()

    async def load(self, match: NewMatch) -> None:
        """Fill the form with `match` (an outbox entry to fix and send again), external id included."""
        await self.clear(match.external_id or "")
        games = {g.id: g for g in self.game_picker.candidates()}
        if match.game is not None:
            self.game_picker.choose(games.get(match.game) or Game(id=match.game, name=f"game {match.game}"))
        self.weighed_game = match.game
        self.query_one("#weight", Select).value = match.weight
        if match.name in (NAME_GAME, NAME_VERSUS, ""):
            self.query_one("#name-choice", Select).value = match.name or NAME_GAME
        else:
            self.query_one("#name-choice", Select).value = CUSTOM
            self.field("custom-name").value = match.name
        self.field("notes").value = match.notes
        # the date it was recorded with (not the fix's), as the seat's wall clock reads it
        self.field("date").value = shown_zone(self).show(match.date, DATE_FORMAT) if match.date else ""
        known = {p.id: p for p in self.players}
        while len(self.rows) < len(match.factions):
            await self.add_row()
        for row, faction in zip(self.rows, match.factions, strict=False):
            chosen = [known.get(pid) or Player(id=pid, display_name=pid) for pid in faction.players]
            row.fill(
                players=chosen, rank=faction.rank, points=faction.points, name=faction.name, bot=faction.bot
            )

    def draft(self) -> dict[str, Any]:
        """Everything typed in the form, as plain JSON values (for `DraftFile`), read back by `restore`."""
        game = self.game_picker.game
        return {
            "game": game.model_dump(mode="json") if game else None,
            "game_text": self.game_picker.text,
            "weight": str(self.query_one("#weight", Select).value),
            "name_choice": str(self.query_one("#name-choice", Select).value),
            **{name: self.field(name).value for name in ("custom-name", "notes", "date", "external-id")},
            "rows": [
                {
                    "players": [p.model_dump(mode="json") for p in row.picker.chosen],
                    "text": row.picker.text,
                    "rank": row.rank_input.value,
                    "points": row.points_input.value,
                    "name": row.name_input.value,
                    "bot": row.is_bot,
                }
                for row in self.rows
            ],
        }

    async def restore(self, draft: dict[str, Any]) -> None:
        """Fill the form with a `draft()` kept from an earlier session (a part that cannot be read stays blank)."""
        await self.clear(str(draft.get("external-id") or ""))
        if isinstance(draft.get("game"), dict):
            with contextlib.suppress(ValueError):
                game = Game.model_validate(draft["game"])
                self.game_picker.choose(game)
                self.weighed_game = game.id
        elif draft.get("game_text"):
            self.game_picker.set_text(str(draft["game_text"]))
        weights = {str(w): w for _, w in WEIGHT_CHOICES}
        self.query_one("#weight", Select).value = weights.get(str(draft.get("weight")), Weight.NORMAL)
        choice = str(draft.get("name_choice"))
        if choice in {value for _, value in NAME_CHOICES}:
            self.query_one("#name-choice", Select).value = choice
        for name in ("custom-name", "notes", "date"):
            self.field(name).value = str(draft.get(name) or "")
        rows = [r for r in draft.get("rows") or () if isinstance(r, dict)]
        while len(self.rows) < len(rows):
            await self.add_row()
        for row, saved in zip(self.rows, rows, strict=False):
            players = []
            for player in saved.get("players") or ():
                with contextlib.suppress(ValueError):
                    players.append(Player.model_validate(player))
            rank = str(saved.get("rank") or "")
            row.fill(
                players=players,
                points=str(saved.get("points") or ""),
                name=str(saved.get("name") or ""),
                bot=saved.get("bot") is True,
            )
            row.rank_input.value = rank
            row.picker.set_text(str(saved.get("text") or ""))

    def show_custom_name(self, shown: bool) -> None:
        self.set_class(shown, "-custom-name")

    # ------------------------------------------------------------------ reading

    def key(self) -> tuple:
        """Everything the form holds, as plain values (to tell whether it changed)."""
        game = self.game_picker.game
        rows = tuple(
            (
                tuple(r.picker.player_ids),
                r.rank_input.value,
                r.points_input.value,
                r.name_input.value,
                r.is_bot,
            )
            for r in self.rows
        )
        return (
            game.id if game else None,
            self.query_one("#weight", Select).value,
            self.query_one("#name-choice", Select).value,
            *(self.field(n).value for n in ("custom-name", "notes", "date", "external-id")),
            rows,
        )

    def collect(self, taken_ids: Collection[str] = (), now: datetime | None = None) -> NewMatch | None:
        """The match in the form, or None after showing why it cannot be sent.

        `taken_ids`: external ids that are already recorded or queued (refused here, before the service).
        `now`: the date an empty date field stands for (the moment of recording), and the clock a typed date
        may not be more than `FUTURE_LEEWAY` ahead of (M010, said at the Date field); None leaves the date to
        the service.
        """
        self.clear_problems()
        self.show_zone()
        zone = shown_zone(self)
        problems: list[tuple[str, str]] = []
        game = self.game_picker.game
        if game is None and self.game_picker.text.strip():
            problems.append(("game", "Pick the game from the list (type, then Enter)."))
        choice = self.query_one("#name-choice", Select).value
        if choice == CUSTOM and not self.name_value:
            problems.append(("name", 'Type the custom name, or choose "Game name".'))
        external_id = self.field("external-id").value.strip()
        if external_id and external_id in taken_ids:
            problems.append(("external_id", "This external id is already used: ctrl+r starts a rematch."))
        date = self.field("date").value.strip()
        rows = self.rows
        used = self._used_rows()
        for row in used:
            problems += [(f"factions.{rows.index(row)}.players", s) for s in self._players_problems(row)]
        raw: dict[str, Any] = {
            "game": game.id if game else None,
            "weight": self.query_one("#weight", Select).value,
            "name": self.name_value,
            "notes": self.field("notes").value.strip(),
            "factions": self._ranked(used),
            "id": external_id or None,
            # typed in the seat's zone, sent in UTC; a date that cannot be read goes as typed, to be said
            "date": (zone.typed_to_wire(date) or date)
            if date
            else (now.strftime(DATE_FORMAT) if now else None),
        }
        match, judged = read_match(raw, now)  # `now` also judges a typed date: not ahead of it (M010)
        has_game = any(field == "game" for field, _ in problems)
        problems += [
            (self._row_field(p.field, used), self._in_zone(p.code, p.sentence, raw["date"], zone, p.field))
            for p in judged
            if not (p.field == "game" and has_game)
        ]
        if problems or match is None:
            self.show_problems(problems or [("match", "The match cannot be read.")])
            return None
        return match

    @staticmethod
    def _in_zone(code: str, sentence: str, wire_date: str | None, zone: SeatZone, field: str = "") -> str:
        """The judge's sentence as the seat reads it (the judge speaks UTC): a date that cannot be read, or
        one in the future, in the seat's zone, where typed dates are read."""
        if field == "date" and code == SCHEMA:
            return (
                f"The date cannot be read: write it as YYYY-MM-DD HH:MM ({zone.label} time), or leave it empty"
                " for now."
            )
        if code != FUTURE_DATE or not wire_date:
            return sentence
        return (
            f"The date {zone.show(wire_date)} ({zone.label}) is in the future: a match is recorded once it"
            " has been played."
        )

    @staticmethod
    def _rank_typed(row: FactionRow) -> bool:
        """True when the row's rank was typed (it is not the row's place; an emptied one is for the judge)."""
        return row.rank_input.value.strip() != str(row.position)

    def _ranked(self, used: list[FactionRow]) -> list[dict[str, Any]]:
        """The factions of `used` as typed; with no rank typed in any, ranked by row with equal points tied."""
        raw = [row.raw() for row in used]
        if not any(self._rank_typed(row) for row in used):
            for faction, rank in zip(raw, listed_ranks([f["points"] for f in raw]), strict=True):
                faction["rank"] = str(rank)
        return raw

    def result_preview(self) -> str:
        """The order the form would send, best place first, a tie as "Elena = Ben", places joined by
        `PLACE_SEP`;
        empty while fewer than two factions are filled."""
        used = [row for row in self.rows if row.is_mounted and (row.is_bot or row.picker.chosen)]
        if len(used) < 2:
            return ""
        places: dict[int, list[str]] = {}
        for row, faction in zip(used, self._ranked(used), strict=True):
            try:
                rank = int(str(faction["rank"]).strip())
            except ValueError:
                rank = row.position
            side = "the game" if row.is_bot else "+".join(p.label for p in row.picker.chosen)
            places.setdefault(rank, []).append(side)
        return PLACE_SEP.join(TIE_SEP.join(sides) for _, sides in sorted(places.items()))

    def show_result(self) -> None:
        """Show `result_preview()` under the rows (hidden when empty); a row on its way in or out waits for
        the next change."""
        try:
            text = self.result_preview()
            line = self.query_one("#result-line", Static)
        except NoMatches:
            return
        line.update(plain(f"Result: {text}") if text else "")
        line.set_class(bool(text), "-shown")

    def sides(self) -> list[tuple[list[Player], bool]]:
        """Each faction with players (or the game's bot) as the odds see it: its players, whether it is the bot."""
        return [
            (list(row.picker.chosen), row.is_bot)
            for row in self.rows
            if row.is_mounted and (row.is_bot or row.picker.chosen)
        ]

    def show_odds(self, text: str) -> None:
        """Show the odds line under the result (hidden when `text` is empty)."""
        try:
            line = self.query_one("#odds-line", Static)
        except NoMatches:
            return
        line.update(plain(text) if text else "")
        line.set_class(bool(text), "-shown")

    def fill_teams(self, teams: Sequence[Sequence[Player]]) -> None:
        """Put `teams` in the first rows, one a faction (rows are added first where `teams` needs more); the
        ranks follow the rows, to be typed once the match is played."""
        for row, team in zip(self.rows, teams, strict=False):
            row.fill(players=team)

    def _used_rows(self) -> list[FactionRow]:
        """The rows that are factions: the blank ones are left out while two filled ones remain."""
        rows = self.rows
        used = [row for row in rows if not row.is_blank()]
        return used if len(used) >= 2 else rows  # too few to leave the blank ones out: each is said

    def contradiction(self, match: NewMatch) -> tuple[str, Input] | None:
        """Two factions of `match` (as `collect` read it) whose points and ranks disagree, the one with more
        points ranked below the other: the question to ask before sending ("Elena has more points than Ada
        but ranks below Ada — send anyway?") and that faction's points field, to go back to. None when the
        points (where both factions have some) follow the ranks."""
        rows = self._used_rows()
        found = points_against_ranks(match.factions[: len(rows)])
        if found is None:
            return None
        higher, lower = match.factions[found.higher], match.factions[found.lower]
        return (
            f"{self._side(higher)} has more points than {self._side(lower)} but ranks below "
            f"{self._side(lower)} — send anyway?",
            rows[found.higher].points_input,
        )

    def _side(self, faction: NewFaction) -> str:
        """A faction as a person names it: its players ("Ben+Chiara"), else its name, else "the game"."""
        names = {p.id: p.label for p in self.players}
        if faction.players and not faction.bot:
            return "+".join(names.get(p, p) for p in faction.players)
        return faction.name or "the game"

    def _players_problems(self, row: FactionRow) -> list[str]:
        """What the players field of `row` holds that is not a player: a text typed and not picked, a text
        picked before the players came that nobody matches, or that still waits for them."""
        if row.is_bot:
            return []
        picker = row.picker
        out = [f'Nobody in the group matches "{text}".' for text in picker.unknown]
        out += [f'"{chip.waiting}" waits for the group\'s players.' for chip in picker.waiting_chips]
        if picker.text.strip():
            out.append(f'"{picker.text.strip()}" is typed but not picked: Enter picks a player.')
        return out

    def _row_field(self, field: str, used: list[FactionRow]) -> str:
        """A judged field "factions.<i>.<name>" about `used[i]`, as the index of that row in the form."""
        parts = field.split(".")
        if parts[0] == "factions" and len(parts) == 3 and parts[1].isdigit() and int(parts[1]) < len(used):
            return f"factions.{self.rows.index(used[int(parts[1])])}.{parts[2]}"
        return field

    def has_unsent_input(self) -> bool:
        """True when the form holds a match (a game, a player, points, a faction name or notes) that has
        not been sent or queued since it was last changed; the screen calls `mark_sent` after a send."""
        filled = (
            self.game_picker.game is not None
            or bool(self.field("notes").value.strip())
            or any(
                row.picker.player_ids or row.points_input.value.strip() or row.name_input.value.strip()
                for row in self.rows
            )
        )
        return filled and self.key() != self._sent_key

    def is_blank(self) -> bool:
        """Nothing of a match in the form: no game (nor a text in its field), every faction row blank."""
        picker = self.game_picker
        return picker.game is None and not picker.text.strip() and all(row.is_blank() for row in self.rows)

    def was_sent(self) -> bool:
        """True when the form holds just what was sent (or queued) last, nothing typed since."""
        return self._sent_key is not None and self.key() == self._sent_key

    def mark_sent(self) -> None:
        """What the form holds now went to the outbox (or the queue): not unsent input any more."""
        self._sent_key = self.key()

    def label(self, match: NewMatch) -> str:
        """One line naming a match: "Catan: Ada, Ben+Chiara, bot (rt-1a2b)", sides in rank order."""
        game = self.game_picker.game
        names = {p.id: p.label for p in self.players}
        sides = [
            "bot" if f.bot else "+".join(names.get(p, p) for p in f.players)
            for f in sorted(match.factions, key=lambda f: f.rank)
        ]
        return f"{game.name if game else 'match'}: {', '.join(sides)} ({match.external_id or 'no id'})"

    # ------------------------------------------------------------------ problems

    def clear_problems(self) -> None:
        box = self.query_one("#form-problem", Static)
        box.update("")
        box.remove_class("-shown")
        self.game_picker.remove_class("-invalid")
        self.query_one(FactionRowHeader).remove_class("-invalid")
        for name in ("custom-name", "date", "external-id"):
            self.field(name).remove_class("-invalid")
        for row in self.rows:
            row.clear_problems()

    def show_problems(self, problems: list[tuple[str, str]]) -> None:
        """Mark each field and say each sentence (under its row for a faction, at the top otherwise);
        focus the first field named, the form's own fields before the rows."""
        top: list[str] = []
        in_rows = 0
        first: Widget | None = None
        first_in_rows: Widget | None = None
        rows = self.rows
        for field, sentence in problems:
            parts = field.split(".")
            if (
                parts[0] == "factions"
                and len(parts) == 3
                and parts[1].isdigit()
                and int(parts[1]) < len(rows)
            ):
                row = rows[int(parts[1])]
                row.show_problem(parts[2], sentence)
                in_rows += 1
                inputs = {
                    "players": row.picker.input,
                    "rank": row.rank_input,
                    "points": row.points_input,
                    "name": row.name_input,
                }
                first_in_rows = first_in_rows or inputs.get(parts[2])
            else:
                if sentence not in top:
                    top.append(sentence)
                first = first or self.mark(field)
        if in_rows:
            top.append(f"{in_rows} problem{'s' if in_rows > 1 else ''} in the faction rows below.")
        box = self.query_one("#form-problem", Static)
        box.update(plain("\n".join(f"✘ {s}" for s in top)))
        box.add_class("-shown")
        self.scroll_home(animate=False)
        target = first or first_in_rows
        if target is not None:
            target.focus()

    def mark(self, field: str) -> Widget | None:
        """Mark a form-wide field ("game", "factions", "name", "date", "external_id") invalid; its input."""
        if field == "game":
            self.game_picker.add_class("-invalid")
            return self.game_picker.input
        if field == "factions":
            self.query_one(FactionRowHeader).add_class("-invalid")
            rows = self.rows
            return rows[-1].picker.input if rows else None
        if field in ("name", "date", "external_id"):
            widget = self.field({"name": "custom-name", "date": "date", "external_id": "external-id"}[field])
            widget.add_class("-invalid")
            return widget
        return None

    def show_queue(self, text: str) -> None:
        line = self.query_one("#queue-line", Static)
        line.update(plain(text))
        line.set_class(bool(text), "-shown")
