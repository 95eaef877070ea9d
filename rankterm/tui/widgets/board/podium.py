"""`Podium`: the top of the standings in big type, one box a player: place and name on the border, the ree
in `Digits` (three rows tall), and what the last match did to that player under it. `EffectStrip`: on a
tall screen, what the last match did, in the same big type (the change of ree of each player).

The boxes are made once and updated in place; a box whose player played the last match is marked (its border
in the success colour when the player gained ree, the error colour when they lost).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Digits

from rankterm.stats.effect import ARROW, PlayerEffect
from rankterm.tui.text import plain, plain_str
from rankterm.tui.widgets.board.view import BoardView, arrow, whole
from rankterm.wire.models import RankingRow
from rankterm.wire.shown import signed

EFFECT_BOXES = 6
"""At most this many players of the last match get a box of their own (the panel lists them all)."""


class PodiumBox(Vertical):
    """One place of the podium."""

    DEFAULT_CSS = """
    PodiumBox {
        width: 1fr;
        height: 5;
        border: round $primary;
        border-title-color: $text;
        border-title-style: bold;
        border-subtitle-style: bold;
        padding: 0 1;
        align-horizontal: center;
    }
    PodiumBox.-first { border: heavy $accent; }
    PodiumBox.-played { border: heavy $primary; }
    PodiumBox.-up { border: heavy $success; border-subtitle-color: $text-success; }
    PodiumBox.-down { border: heavy $error; border-subtitle-color: $text-error; }
    PodiumBox > Digits { width: auto; text-style: bold; }
    """

    def compose(self) -> ComposeResult:
        yield Digits("")

    def show(self, row: RankingRow, view: BoardView) -> None:
        position = view.position_of(row)
        self.border_title = plain(f"{position}  {row.player.label}")
        self.query_one(Digits).update(plain_str(whole(row.ree)))
        effect = view.effect_of(row.player.id)
        change = ""
        if effect is not None:
            parts = ["new" if effect.new else (signed(effect.delta) if effect.delta is not None else "")]
            parts.append(arrow(effect.climbed))
            change = " ".join(p for p in parts if p)
        self.border_subtitle = plain(change) if change else None
        whole_change = round(effect.delta) if effect is not None and effect.delta is not None else 0
        self.set_class(position == 1 and effect is None, "-first")
        self.set_class(effect is not None, "-played")
        self.set_class(effect is not None and (effect.new or whole_change > 0), "-up")
        self.set_class(whole_change < 0, "-down")


class Podium(Horizontal):
    """The first `places` of a view's standings in big type."""

    DEFAULT_CSS = """
    Podium {
        height: 5;
        width: 1fr;
    }
    Podium.-empty { display: none; }
    """

    def __init__(self, places: int = 5, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.places = places
        """The most places it can show (boxes made once)."""

    def compose(self) -> ComposeResult:
        self.add_class("-empty")  # until the first standings come
        for _ in range(self.places):
            yield PodiumBox()

    def show(self, view: BoardView, places: int) -> None:
        """Show the first `places` rows of `view` (fewer when the standings are shorter)."""
        boxes = list(self.query(PodiumBox))
        rows = view.rows[: min(places, len(boxes))]
        for i, box in enumerate(boxes):
            box.display = i < len(rows)
            if i < len(rows):
                box.show(rows[i], view)
        self.set_class(not rows, "-empty")


class EffectBox(Vertical):
    """One player of the last match in big type: name and result on the border, the change of ree in
    `Digits` (a newcomer: the ree they entered with), the change of position under it."""

    DEFAULT_CSS = """
    EffectBox {
        width: 1fr;
        height: 5;
        border: round $success;
        border-title-style: bold;
        border-title-color: $text;
        border-subtitle-color: $text-muted;
        padding: 0 1;
        align-horizontal: center;
    }
    EffectBox.-down { border: round $error; }
    EffectBox > Digits { width: auto; text-style: bold; }
    """

    def compose(self) -> ComposeResult:
        yield Digits("")

    def show(self, effect: PlayerEffect) -> None:
        self.border_title = plain(f"{effect.rank}. {effect.name}")
        if effect.new:  # no change to show: the ree they entered with
            big = whole(effect.ree_after) if effect.ree_after is not None else ""
            place = f"new, {ARROW}{effect.position_after}"
        else:
            # Digits draws "-" as its own minus glyph (U+2212 and the ± of "±0" are not in its set)
            big = signed(effect.delta, minus="-", zero="0") if effect.delta is not None else ""
            place = f"{effect.position_before}{ARROW}{effect.position_after}" if effect.moved else ""
        self.query_one(Digits).update(plain_str(big))
        self.border_subtitle = plain(place) if place else None
        self.set_class(effect.delta is not None and round(effect.delta) < 0, "-down")


class EffectStrip(Horizontal):
    """What the last match did, one box a player (the first `EFFECT_BOXES`), for a tall screen."""

    DEFAULT_CSS = """
    EffectStrip {
        height: 5;
        width: 1fr;
    }
    EffectStrip.-empty { display: none; }
    """

    def compose(self) -> ComposeResult:
        self.add_class("-empty")  # until a last match is shown
        for _ in range(EFFECT_BOXES):
            yield EffectBox()

    def show(self, view: BoardView, shown: bool) -> None:
        players = view.effect.players if view.effect is not None and shown else ()
        for i, box in enumerate(self.query(EffectBox)):
            box.display = i < len(players)
            if i < len(players):
                box.show(players[i])
        self.set_class(not players, "-empty")
