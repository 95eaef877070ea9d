"""`PlayerPicker`: the players of one faction, picked by typing, shown as removable chips.

Typing filters the group's players (handed over with `set_players`, from `client.players()`); Enter picks the
highlighted one and adds a chip; Backspace in the empty field removes the last chip (a click on a chip removes
that one). Several players make a team. A player may be picked in two factions: the form's validation says so
rather than hiding the player. Every change posts `PlayerPicker.Changed`.

The right player first (`order_players`): the one whose name is exactly what was typed, then members before
ghosts (a ghost's `*` would otherwise sort it above the member of the same name), then whoever played most
recently (`recent`, from the app's one read of the newest matches), then by name. Two players with the same
name are told apart in the list by the last game each played, or by their id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message

from rankterm.api.models import Player
from rankterm.tui.recency import Recent
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.match_form.player_chip import PlayerChip
from rankterm.tui.widgets.suggestion_list import SuggestionList
from rankterm.tui.widgets.typeahead import TypeAhead


def _fold(text: str) -> str:
    return text.strip().lstrip("*").casefold()


def order_players(query: str, players: Sequence[Player], recent: Mapping[str, Recent]) -> list[Player]:
    """The players whose name (or username) holds `query`, best first: exact name, members before ghosts,
    latest to play, name starting with the query, then by name."""
    q = _fold(query)
    found = [
        p for p in players if not q or q in _fold(p.label) or (p.username and q in p.username.casefold())
    ]
    found.sort(key=lambda p: (not _fold(p.label).startswith(q), _fold(p.label), p.id))
    found.sort(key=lambda p: recent[p.id].date if p.id in recent else "", reverse=True)
    found.sort(key=lambda p: (_fold(p.label) != q and p.username.casefold() != q, p.ghost))
    return found


class _PlayerInput(FormInput):
    """The text field of a picker: Backspace when empty removes the last chip."""

    @dataclass
    class BackspaceEmpty(Message):
        field: _PlayerInput

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
        min-width: 8;
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

    def __init__(
        self, *, players: Sequence[Player] = (), id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__("player…", id=id, classes=classes)
        self.players: list[Player] = list(players)
        self.chosen: list[Player] = []
        self.recent: dict[str, Recent] = {}
        """Each player's last match among the newest ones (player id -> date and game)."""

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
                f"  · last played {last.game or 'a match'} {last.date[:10]}" if last else f"  · id {item.id}"
            )
        return text

    def on_mount(self) -> None:
        self.load_recent()

    @work(exclusive=True, group="player-recency", exit_on_error=False)
    async def load_recent(self) -> None:
        """Who played last (the app reads the newest matches once and shares them with every picker)."""
        from rankterm.tui.app import RanktermApp

        if isinstance(self.app, RanktermApp):
            self.recent = await self.app.player_recency()
            if self.is_open:
                self.refresh_suggestions()

    # ------------------------------------------------------------ chips

    def set_players(self, players: Sequence[Player]) -> None:
        """The group's players (the candidates); an open list of suggestions follows them."""
        self.players = list(players)
        if self.is_mounted and self.is_open:
            self.refresh_suggestions()

    @property
    def player_ids(self) -> list[str]:
        return [p.id for p in self.chosen]

    def add_player(self, player: Player) -> None:
        if self.excluded(player):
            return
        self.chosen.append(player)
        chip = PlayerChip(player)
        self.query_one("#chips", Horizontal).mount(chip, before=self.input)
        self.post_message(self.Changed(self))

    def remove_player(self, player_id: str) -> None:
        for chip in self.query(PlayerChip):
            if chip.player.id == player_id:
                chip.remove()
        self.chosen = [p for p in self.chosen if p.id != player_id]
        self.post_message(self.Changed(self))

    def set_chosen(self, players: Sequence[Player]) -> None:
        """Replace the chosen players (e.g. for a rematch)."""
        self.query(PlayerChip).remove()
        self.chosen = []
        for player in players:
            self.add_player(player)
        self.post_message(self.Changed(self))

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

    @on(PlayerChip.Remove)
    def _chip_clicked(self, event: PlayerChip.Remove) -> None:
        event.stop()
        self.remove_player(event.chip.player.id)

    @on(_PlayerInput.BackspaceEmpty)
    def _backspace(self, event: _PlayerInput.BackspaceEmpty) -> None:
        event.stop()
        if self.chosen:
            self.remove_player(self.chosen[-1].id)
