"""`FactionRow`: one faction of the match form, on one line: players, rank, points, faction name, bot.

The rank starts as the row's place (1, 2, 3 …) and stays editable for ties; the bot toggle hides the players
(a bot faction carries rank, points and name only) and shows a mark when on, so that on and off differ
without colour. `raw()` gives the row as typed, in wire form: the rules of a valid faction live once, in
`rankterm.wire.new_match`, and the form shows each problem under its row with `show_problem`, the field
marked `-invalid`.

Moving on, as a result is said aloud: Enter in the rank, points or faction-name field posts
`FactionRow.Next` (the form moves to the next faction's players, adding one when needed); ctrl+g (F2) posts
`FactionRow.BotKey`: the game itself plays this faction (the bot toggle, then on to the next faction), or
not any more. A row that holds nothing typed (`is_blank`) is not a faction: the form leaves it out when
sending, so the empty row that Enter adds after the last player costs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import DescendantBlur, DescendantFocus
from textual.message import Message
from textual.widgets import Checkbox, Input, Label, Static

from rankterm.tui.text import plain
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.match_form.player_picker import PlayerPicker
from rankterm.wire.models import Player
from rankterm.wire.new_match import MAX_NAME


class BotToggle(Checkbox):
    """The bot toggle: its box shows a mark only when on (a bare box off), so that on and off differ in
    16 colours and with no colour at all, not by colour alone."""

    OFF_MARK = " "
    ON_MARK = "X"

    def __init__(self, label: str = "Bot", value: bool = False, **kwargs: Any) -> None:
        super().__init__(label, value, **kwargs)
        self.BUTTON_INNER = self.ON_MARK if value else self.OFF_MARK

    def watch_value(self) -> None:
        self.BUTTON_INNER = self.ON_MARK if self.value else self.OFF_MARK
        super().watch_value()
        self.refresh()


class FactionRow(Vertical):
    """A faction of the match being entered."""

    @dataclass
    class Next(Message):
        """Enter in the rank, points or faction-name field: on to the next faction."""

        row: FactionRow

    @dataclass
    class BotKey(Message):
        """ctrl+g: the game plays this faction (or no longer does)."""

        row: FactionRow

    DEFAULT_CSS = """
    FactionRow {
        height: auto;
        width: 1fr;
    }
    FactionRow > .line {
        height: auto;
        width: 1fr;
    }
    FactionRow .num {
        width: 3;
        color: $text-muted;
    }
    FactionRow.-current .num {
        color: $accent;
        text-style: bold;
    }
    FactionRow .bot-label {
        width: 1fr;
        color: $text-muted;
        text-style: italic;
        display: none;
    }
    FactionRow.-bot .bot-label {
        display: block;
    }
    FactionRow.-bot PlayerPicker {
        display: none;
    }
    FactionRow Input {
        margin: 0 0 0 1;
    }
    FactionRow #rank {
        width: 6;
    }
    FactionRow #points {
        width: 8;
    }
    FactionRow #faction-name {
        width: 14;
    }
    FactionRow #bot {
        width: auto;
        margin: 0 0 0 1;
    }
    FactionRow Input.-invalid {
        background: $error 25%;
    }
    FactionRow > .problem {
        color: $text-error;
        padding: 0 0 0 3;
        display: none;
    }
    FactionRow.-has-problem > .problem {
        display: block;
    }
    """

    def __init__(
        self, position: int, *, players: Sequence[Player] | None = (), id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.position = position
        self._players = None if players is None else list(players)
        self._problems: list[str] = []

    def compose(self) -> ComposeResult:
        with Horizontal(classes="line"):
            yield Label(plain(f"{self.position}."), classes="num")
            yield PlayerPicker(players=self._players)
            yield Static("bot faction", classes="bot-label")
            yield FormInput(
                str(self.position),
                placeholder="rank",
                id="rank",
                compact=True,
                restrict=r"[0-9]*",
                max_length=5,
                tooltip="Rank (1 = winner; the same rank for a tie)",
            )
            yield FormInput(
                placeholder="points",
                id="points",
                compact=True,
                restrict=r"[-0-9.,]*",
                max_length=12,
            )
            yield FormInput(
                placeholder="faction name",
                id="faction-name",
                compact=True,
                max_length=MAX_NAME,
            )
            yield BotToggle("Bot", id="bot", compact=True)
        yield Static("", classes="problem", markup=False)

    # ------------------------------------------------------------ parts

    @property
    def picker(self) -> PlayerPicker:
        return self.query_one(PlayerPicker)

    @property
    def rank_input(self) -> Input:
        return self.query_one("#rank", Input)

    @property
    def points_input(self) -> Input:
        return self.query_one("#points", Input)

    @property
    def name_input(self) -> Input:
        return self.query_one("#faction-name", Input)

    @property
    def bot_box(self) -> Checkbox:
        return self.query_one("#bot", Checkbox)

    @property
    def is_bot(self) -> bool:
        return self.bot_box.value

    @property
    def first_field(self) -> Input:
        """The first field of the row: the players, or the rank of a bot faction."""
        return self.rank_input if self.is_bot else self.picker.input

    def focus_first(self) -> None:
        """Focus the first field of the row (the players, or the rank of a bot faction)."""
        self.first_field.focus()

    # ------------------------------------------------------------ state

    def renumber(self, position: int) -> None:
        """The row moved to `position`: its label follows, and so does its rank unless it was edited."""
        if self.rank_input.value.strip() in ("", str(self.position)):
            self.rank_input.value = str(position)
        self.position = position
        self.query_one(".num", Label).update(plain(f"{position}."))

    def reset_result(self) -> None:
        """Clear what belongs to one match (rank back to the row's place, points) and keep the rest."""
        self.rank_input.value = str(self.position)
        self.points_input.value = ""
        self.clear_problems()

    def is_blank(self) -> bool:
        """Nothing typed in the row: no player (nor text waiting in the field), not a bot, no points or name,
        the rank its place's."""
        picker = self.picker
        return (
            not self.is_bot
            and not picker.chosen
            and not picker.chips
            and not picker.text.strip()
            and not self.points_input.value.strip()
            and not self.name_input.value.strip()
            and self.rank_input.value.strip() in ("", str(self.position))
        )

    def set_players(self, players: Sequence[Player]) -> None:
        """The group's players, offered by the players field."""
        self._players = list(players)
        for picker in self.query(PlayerPicker):  # composed already, mounted or not yet
            picker.set_players(players)

    def fill(
        self,
        *,
        players: Sequence[Player] = (),
        rank: int | None = None,
        points: str = "",
        name: str = "",
        bot: bool = False,
    ) -> None:
        """Set the whole row from code (rematch, tests); a text typed in the players field goes too."""
        self.bot_box.value = bot
        self.picker.set_text("")
        self.picker.set_chosen(players)
        self.rank_input.value = str(rank if rank is not None else self.position)
        self.points_input.value = points
        self.name_input.value = name

    def raw(self) -> dict[str, Any]:
        """The faction as typed, in wire form (rank and points as text), for `rankterm.wire.new_match` to
        judge: the row itself checks nothing."""
        return {
            "players": [] if self.is_bot else self.picker.player_ids,
            "rank": self.rank_input.value,
            "points": self.points_input.value,
            "name": self.name_input.value,
            "bot": self.is_bot,
        }

    # ------------------------------------------------------------ problems

    def clear_problems(self) -> None:
        self._problems = []
        self.remove_class("-has-problem")
        self.query_one(".problem", Static).update("")
        self.picker.remove_class("-invalid")
        for field in self.query(Input):
            if field.id in ("rank", "points", "faction-name"):
                field.remove_class("-invalid")

    def show_problem(self, field: str, sentence: str) -> None:
        """Mark `field` ("players", "rank", "points") and add `sentence` under the row."""
        target = {
            "players": self.picker,
            "rank": self.rank_input,
            "points": self.points_input,
            "name": self.name_input,
        }.get(field)
        if target is not None:
            target.add_class("-invalid")
        prefix = f"Faction {self.position}: "
        if sentence.startswith(prefix):  # it is said under the row already
            sentence = sentence[len(prefix)].upper() + sentence[len(prefix) + 1 :]
        if sentence not in self._problems:
            self._problems.append(sentence)
        self.query_one(".problem", Static).update(plain(" ".join(self._problems)))
        self.add_class("-has-problem")

    @on(DescendantFocus)
    def _focus_in(self) -> None:
        self.add_class("-current")

    @on(DescendantBlur)
    def _focus_out(self) -> None:
        self.remove_class("-current")

    @on(Checkbox.Changed, "#bot")
    def _bot_changed(self, event: Checkbox.Changed) -> None:
        self.set_class(event.value, "-bot")

    @on(Input.Submitted, "#rank, #points, #faction-name")
    def _enter(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Next(self))

    def action_bot(self) -> None:
        self.post_message(self.BotKey(self))
