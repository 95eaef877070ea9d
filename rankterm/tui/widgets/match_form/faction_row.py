"""`FactionRow`: one faction of the match form, on one line: players, rank, points, faction name, bot.

The rank starts as the row's place (1, 2, 3 …) and stays editable for ties; the bot toggle hides the players
(a bot faction carries rank, points and name only). `read()` gives the `NewFaction` the row stands for, or the
problems that stop it (a rank that is not a whole number from 1, points that are not a number); the form
shows every problem under its row with `show_problem`, the field marked `-invalid`.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import DescendantBlur, DescendantFocus
from textual.widgets import Checkbox, Input, Label, Static

from rankterm.api.models import NewFaction, Player
from rankterm.api.text import ascii_digits
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.match_form.player_picker import PlayerPicker

MAX_RANK = 10_000


def parse_rank(text: str) -> int | None:
    """A rank typed in the form: a whole number from 1 to 10000, else None."""
    text = text.strip()
    if not ascii_digits(text):
        return None
    value = int(text)
    return value if 1 <= value <= MAX_RANK else None


def points_ok(text: str) -> bool:
    """Points may be empty, or a number (a comma as the decimal mark is fine)."""
    text = text.strip().replace(",", ".")
    if not text:
        return True
    try:
        value = float(text)
    except ValueError:
        return False
    return value == value and value not in (float("inf"), float("-inf"))


class FactionRow(Vertical):
    """A faction of the match being entered."""

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
        width: 5;
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

    def __init__(self, position: int, *, players: Sequence[Player] = (), id: str | None = None) -> None:
        super().__init__(id=id)
        self.position = position
        self._players = list(players)
        self._problems: list[str] = []

    def compose(self) -> ComposeResult:
        with Horizontal(classes="line"):
            yield Label(f"{self.position}.", classes="num")
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
            yield FormInput(placeholder="faction name", id="faction-name", compact=True, max_length=200)
            yield Checkbox("Bot", id="bot", compact=True)
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

    def focus_first(self) -> None:
        """Focus the first field of the row (the players, or the rank of a bot faction)."""
        if self.is_bot:
            self.rank_input.focus()
        else:
            self.picker.focus_input()

    # ------------------------------------------------------------ state

    def renumber(self, position: int) -> None:
        """The row moved to `position`: its label follows, and so does its rank unless it was edited."""
        if self.rank_input.value.strip() in ("", str(self.position)):
            self.rank_input.value = str(position)
        self.position = position
        self.query_one(".num", Label).update(f"{position}.")

    def reset_result(self) -> None:
        """Clear what belongs to one match (rank back to the row's place, points) and keep the rest."""
        self.rank_input.value = str(self.position)
        self.points_input.value = ""
        self.clear_problems()

    def set_players(self, players: Sequence[Player]) -> None:
        """The group's players, offered by the players field."""
        self._players = list(players)
        if self.is_mounted:
            self.picker.set_players(players)

    def fill(
        self,
        *,
        players: Sequence[Player] = (),
        rank: int | None = None,
        points: str = "",
        name: str = "",
        bot: bool = False,
    ) -> None:
        """Set the whole row from code (rematch, tests)."""
        self.bot_box.value = bot
        self.picker.set_chosen(players)
        self.rank_input.value = str(rank if rank is not None else self.position)
        self.points_input.value = points
        self.name_input.value = name

    def read(self) -> tuple[NewFaction, list[tuple[str, str]]]:
        """The faction this row stands for, and the problems of its own fields, as (field, sentence).

        With a problem the faction is a stand-in (rank 1, no points) so that the match-wide checks (no
        players, a player twice) can still run; the form sends nothing while any problem remains.
        """
        problems: list[tuple[str, str]] = []
        rank = parse_rank(self.rank_input.value)
        if rank is None:
            problems.append(
                ("rank", f"Faction {self.position}: the rank must be a whole number from 1 to {MAX_RANK}.")
            )
        points = self.points_input.value.strip().replace(",", ".")
        if not points_ok(points):
            problems.append(("points", f"Faction {self.position}: the points must be a number."))
            points = ""
        faction = NewFaction(
            players=[] if self.is_bot else self.picker.player_ids,
            rank=rank or 1,
            points=points,
            name=self.name_input.value.strip()[:200],
            bot=self.is_bot,
        )
        return faction, problems

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
        }.get(field)
        if target is not None:
            target.add_class("-invalid")
        prefix = f"Faction {self.position}: "
        if sentence.startswith(prefix):  # it is said under the row already
            sentence = sentence[len(prefix)].upper() + sentence[len(prefix) + 1 :]
        if sentence not in self._problems:
            self._problems.append(sentence)
        self.query_one(".problem", Static).update(" ".join(self._problems))
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
