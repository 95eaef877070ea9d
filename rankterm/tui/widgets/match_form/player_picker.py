"""`PlayerPicker`: the players of one faction, picked by typing, shown as removable chips.

Typing filters the group's players (handed over with `set_players`, from `client.players()`). Enter picks the
highlighted one and is done with the faction (`PlayerPicker.Done`: the form moves on to the next faction);
`+` picks it and stays, for the next player of the same team; Tab on a typed name picks it and goes on to
the rank (for points); Enter on the empty field is done too. Backspace
in the empty field removes the last chip (a click on a chip removes that one). A player may be picked in two
factions: the form's validation says so rather than hiding the player. Every change posts
`PlayerPicker.Changed`.

Typed faster than the lists load: Enter (or `+`) on a text before the group's players are known keeps the
text as a waiting chip ("Ad…") and moves on; `set_players` turns each waiting chip into the best match, or
marks it "?" when nobody matches (`unknown`, which the form refuses to send).

A name nobody in the group has: Enter says so ("No player is called “Zoe”: Enter again makes the ghost *Zoe")
and keeps the text; Enter again on the same text asks the screen to make that ghost (`NewGhost`), which it
picks and moves on from, as a pick would.

The right player first (`order_players`): the one whose name is exactly what was typed, then the ones whose
name (or a word of it, or the username) starts with it, members before ghosts (a ghost's `*` would otherwise
sort it above the member of the same name), then whoever played most recently (`recent`, from the app's one
read of the newest matches), then by name. So a first letter picks the same player whether or not the
newest matches were read yet. Two players with the same name are told apart in the list by the last game each
played, or by their id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message

from rankterm.tui.base import toast
from rankterm.tui.recency import Recent
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.match_form.player_chip import PlayerChip
from rankterm.tui.widgets.suggestion_list import SuggestionList
from rankterm.tui.widgets.typeahead import TypeAhead
from rankterm.tui.zone import shown_zone
from rankterm.wire.models import Player

if TYPE_CHECKING:
    from rankterm.tui.session import Session


def _fold(text: str) -> str:
    return text.strip().lstrip("*").casefold()


def _starts(q: str, player: Player) -> bool:
    name = _fold(player.label)
    return (
        name.startswith(q)
        or any(word.startswith(q) for word in name.split())
        or player.username.casefold().startswith(q)
    )


def order_players(query: str, players: Sequence[Player], recent: Mapping[str, Recent]) -> list[Player]:
    """The players whose name (or username) holds `query`, best first: exact name, then name (or a word of
    it, or the username) starting with the query, members before ghosts, latest to play, then by name."""
    q = _fold(query)
    found = [
        p for p in players if not q or q in _fold(p.label) or (p.username and q in p.username.casefold())
    ]
    found.sort(key=lambda p: (_fold(p.label), p.id))
    found.sort(key=lambda p: recent[p.id].date if p.id in recent else "", reverse=True)
    found.sort(key=lambda p: (_fold(p.label) != q and p.username.casefold() != q, not _starts(q, p), p.ghost))
    return found


MIN_TYPING = 10
"""Cells the players field keeps for typing, however many chips it holds."""
TEAM_KEY = "+"
"""Picks the highlighted player into this faction and stays (Enter picks and moves on)."""


def _cap(widths: list[int], room: int) -> int:
    """The widest a chip may be so that the chips fit in `room` cells, the short ones whole (at least 5)."""
    left, count = room, len(widths)
    for width in sorted(widths):
        if width * count > left:
            return max(5, left // count)
        left -= width
        count -= 1
    return max(widths)


class _PlayerInput(FormInput):
    """The text field of a picker: Backspace when empty removes the last chip; `+` picks and stays; Tab on a
    typed name picks it and goes on to the rank."""

    @dataclass
    class BackspaceEmpty(Message):
        field: _PlayerInput

    @dataclass
    class PickKey(Message):
        """`+`, or Tab on a typed name: pick, then stay (`+`) or go on to the next field (Tab)."""

        field: _PlayerInput
        key: str

    async def _on_key(self, event: events.Key) -> None:
        if event.character == TEAM_KEY or (event.key == "tab" and self.value.strip()):
            event.stop()
            event.prevent_default()  # not typed, nor Tab's plain focus move: the picker picks first
            self.post_message(self.PickKey(self, event.key))

    def action_delete_left(self) -> None:
        if not self.value:
            self.post_message(self.BackspaceEmpty(self))
            return
        super().action_delete_left()


class PlayerPicker(TypeAhead):
    """The players field of a faction row."""

    DEFAULT_CSS = """
    PlayerPicker {
        width: 1fr;
    }
    PlayerPicker > #chips {
        height: 1;
        width: 1fr;
    }
    PlayerPicker > #chips > Input {
        width: 1fr;
        min-width: 10;
    }
    PlayerPicker.-invalid > #chips {
        background: $error 25%;
    }
    """

    @dataclass
    class Changed(Message):
        """The chosen players changed."""

        picker: PlayerPicker

        @property
        def control(self) -> PlayerPicker:
            return self.picker

    @dataclass
    class Done(Message):
        """Enter: this faction is done (a player was just picked, or Enter on the empty field)."""

        picker: PlayerPicker
        empty: bool
        """True for Enter on the empty field (nothing picked by it)."""

        @property
        def control(self) -> PlayerPicker:
            return self.picker

    @dataclass
    class NewGhost(Message):
        """Enter a second time on a name nobody in the group has: make the ghost `name` here."""

        picker: PlayerPicker
        name: str

        @property
        def control(self) -> PlayerPicker:
            return self.picker

    def __init__(
        self,
        *,
        players: Sequence[Player] | None = (),
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__("player…", id=id, classes=classes)
        self.loaded = players is not None
        """False until the group's players are known (`players=None`, then `set_players`)."""
        self.players: list[Player] = list(players or ())
        self.chosen: list[Player] = []
        self.recent: dict[str, Recent] = {}
        """Each player's last match among the newest ones (player id -> date and game)."""
        self.ghost_offered: str | None = None
        """The name Enter found nobody for, while it stays typed: Enter again on it makes that ghost."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="chips"):
            yield _PlayerInput(placeholder=self._placeholder, compact=True)
        yield SuggestionList()

    # ------------------------------------------------------------ TypeAhead hooks

    def candidates(self) -> Sequence[Any]:
        return self.players

    def label(self, item: Any) -> str:
        return item.label

    def item_key(self, item: Any) -> Any:
        return item.id

    def excluded(self, item: Any) -> bool:
        return any(p.id == item.id for p in self.chosen)

    def rank(self, text: str, items: Sequence[Any]) -> list[Any]:
        return order_players(text, items, self.recent)

    def suggestion_prompt(self, item: Any) -> str:
        text = f"{item.label}  · ghost" if item.ghost else item.label
        namesakes = [p for p in self.players if p.id != item.id and _fold(p.label) == _fold(item.label)]
        if namesakes:
            last = self.recent.get(item.id)
            text += (
                f"  · last played {last.game or 'a match'} {shown_zone(self).show(last.date, '%Y-%m-%d')}"
                if last
                else f"  · id {item.id}"
            )
        return text

    def on_mount(self) -> None:
        self.load_recent()

    @work(exclusive=True, group="player-recency", exit_on_error=False)
    async def load_recent(self) -> None:
        """Who played last (the app reads the newest matches once and shares them with every picker)."""
        if hasattr(self.app, "session"):  # rankterm's app (`tui.face`), not a bare Textual one
            session: Session | None = getattr(self.app, "session", None)
            self.recent = await session.player_recency() if session is not None else {}
            if self.is_open:
                self.refresh_suggestions()

    # ------------------------------------------------------------ chips

    def set_players(self, players: Sequence[Player]) -> None:
        """The group's players (the candidates); an open list of suggestions follows them, and the texts
        that waited for them become players (or are marked unknown)."""
        self.players = list(players)
        self.loaded = True
        if not self.is_mounted:
            return
        for chip in self.waiting_chips:
            found = [
                p for p in order_players(chip.waiting, self.players, self.recent) if not self.excluded(p)
            ]
            if found:
                self.chosen.append(found[0])
                self.query_one("#chips", Horizontal).mount(PlayerChip(found[0]), before=chip)
                chip.drop()
            else:
                chip.mark_unknown()
        self._chips_changed()
        if self.is_open or self.typing:
            self.refresh_suggestions()

    @property
    def player_ids(self) -> list[str]:
        return [p.id for p in self.chosen]

    @property
    def chips(self) -> list[PlayerChip]:
        """The chips shown (not those on their way out)."""
        return [c for c in self.query(PlayerChip) if c.state != "gone"]

    @property
    def waiting_chips(self) -> list[PlayerChip]:
        """Chips of texts picked before the players were known, still waiting for them."""
        return [c for c in self.query(PlayerChip) if c.state == "waiting"]

    @property
    def unknown(self) -> list[str]:
        """Texts picked before the players were known that no player matches."""
        return [c.waiting for c in self.query(PlayerChip) if c.state == "unknown"]

    @property
    def waiting(self) -> bool:
        """True while a text picked before the players were known waits for them."""
        return bool(self.waiting_chips)

    def add_player(self, player: Player) -> None:
        if self.excluded(player):
            return
        self.chosen.append(player)
        self.query_one("#chips", Horizontal).mount(PlayerChip(player), before=self.input)
        self._chips_changed()

    def remove_player(self, player_id: str) -> None:
        for chip in self.query(PlayerChip):
            if chip.player is not None and chip.player.id == player_id:
                chip.drop()
        self.chosen = [p for p in self.chosen if p.id != player_id]
        self._chips_changed()

    def set_chosen(self, players: Sequence[Player]) -> None:
        """Replace the chosen players (e.g. for a rematch)."""
        for chip in self.query(PlayerChip):
            chip.drop()
        self.chosen = []
        for player in players:
            self.add_player(player)
        self._chips_changed()

    def _take(self, text: str) -> bool:
        """Pick the best player for `text`, or keep the text while the players are not known yet; False when
        nobody matches (the text stays)."""
        item = self.best(text)
        if item is None and not self.loaded:
            self.set_text("")
            self.query_one("#chips", Horizontal).mount(PlayerChip(waiting=text.strip()), before=self.input)
            self._chips_changed()
        elif item is not None:
            self.set_text("")
            self.add_player(item)
        else:
            return False
        return True

    def enter(self, text: str) -> None:
        """Enter: pick and be done with the faction (on the empty field: done); nobody matches: say so, stay."""
        name = text.strip()
        if not name:
            self.post_message(self.Done(self, empty=True))
        elif self._take(text):
            self.post_message(self.Done(self, empty=False))
        elif self.ghost_offered == name:
            self.post_message(self.NewGhost(self, name))
        else:
            self.ghost_offered = name
            ghost = name if name.startswith("*") else f"*{name}"
            toast(
                self,
                f"No player is called “{name}”: Enter again makes the ghost {ghost}, or mend the name.",
                "warning",
            )

    def take_ghost(self, player: Player) -> None:
        """The ghost made for the typed name: picked, the text cleared, and done with the faction."""
        self.ghost_offered = None
        if all(p.id != player.id for p in self.players):
            self.players.append(player)
        self.set_text("")
        self.add_player(player)
        self.post_message(self.Done(self, empty=False))

    def _chips_changed(self) -> None:
        self.post_message(self.Changed(self))
        self.call_after_refresh(self._fit_chips)

    def _fit_chips(self) -> None:
        """Narrow the chips when they would leave less than `MIN_TYPING` cells to type in."""
        chips = self.chips
        if not chips or not self.size.width:
            return
        room = self.size.width - MIN_TYPING
        if sum(c.natural_width for c in chips) <= room:
            for chip in chips:
                chip.styles.max_width = None
            return
        cap = _cap([c.natural_width for c in chips], room)
        for chip in chips:
            chip.styles.max_width = cap - 1 if chip.natural_width > cap else None  # the margin stays

    def on_resize(self) -> None:
        self._fit_chips()

    @on(TypeAhead.Picked)
    def _picked(self, event: TypeAhead.Picked) -> None:
        if event.typeahead is not self:
            return
        event.stop()
        self.set_text("")
        self.add_player(event.item)

    @on(TypeAhead.Query)
    def _query(self, event: TypeAhead.Query) -> None:
        if event.typeahead is self:
            event.stop()
            if event.text.strip() != self.ghost_offered:
                self.ghost_offered = None  # typed on: the offer was for another name

    @on(_PlayerInput.PickKey)
    def _pick_key(self, event: _PlayerInput.PickKey) -> None:
        event.stop()
        if self.text.strip():
            self._take(self.text)
        if event.key == "tab":
            self.screen.focus_next()

    @on(PlayerChip.Remove)
    def _chip_clicked(self, event: PlayerChip.Remove) -> None:
        event.stop()
        self._remove_chip(event.chip)

    def _remove_chip(self, chip: PlayerChip) -> None:
        if chip.player is not None:
            self.remove_player(chip.player.id)
        else:
            chip.drop()
            self._chips_changed()

    @on(_PlayerInput.BackspaceEmpty)
    def _backspace(self, event: _PlayerInput.BackspaceEmpty) -> None:
        event.stop()
        chips = self.chips
        if chips:
            self._remove_chip(chips[-1])
