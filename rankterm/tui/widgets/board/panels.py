"""The scoreboard's text panels: the standings under the podium, the last match and what it did, the last five
matches, and one line of what changed tonight. Each draws one `BoardView` to its own size (lines cut with "…", a "+ n more" line when rows do not
fit), so nothing that matters is cut at 80x24 and a wider screen shows more per line (`view.WIDE`).

Every name is shown through `styled()` (rankterm/tui/text.py): plain text, never markup.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from rankterm.stats.effect import ARROW, PlayerEffect
from rankterm.tui.text import label_text, styled
from rankterm.tui.widgets.board.view import WIDE, BoardView, arrow, fit, when, whole, winners
from rankterm.tui.zone import shown_zone
from rankterm.wire.shown import signed

UP = "$text-success"
DOWN = "$text-error"
HEAD = "bold $text-accent"
DIM = "$text-muted"


def _change(effect: PlayerEffect | None) -> tuple[str, str]:
    """What a match did to a player's ree, and its colour: ("+50", UP), ("-32" with a U+2212 minus, DOWN), ("new", UP)."""
    if effect is None:
        return "", ""
    if effect.new:
        return "new", UP
    if effect.delta is None:
        return "", ""
    whole_change = round(effect.delta)
    return signed(effect.delta), UP if whole_change > 0 else DOWN if whole_change < 0 else DIM


def _moved(effect: PlayerEffect | None) -> tuple[str, str]:
    if effect is None or effect.climbed == 0:
        return "", ""
    return arrow(effect.climbed), UP if effect.climbed > 0 else DOWN


def _more(count: int) -> Content:
    return styled((f"  + {count} more", DIM))


class BoardPanel(Widget):
    """A panel that draws the board's current view to its size; `show()` gives it a new view."""

    DEFAULT_CSS = """
    BoardPanel {
        width: 1fr;
        padding: 0 1;
        overflow: hidden;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: BoardView | None = None
        self.start = 1
        """The standings panel begins after the podium: at this position."""

    def show(self, view: BoardView, start: int = 1) -> None:
        if view == self.view and start == self.start:
            return
        self.view, self.start = view, start
        self.refresh(layout=True)

    @property
    def wide(self) -> bool:
        return self.app.size.width >= WIDE

    def render(self) -> Content:
        if self.view is None:
            return Content("")
        return Content("\n").join(self.lines(self.view, max(1, self.size.width), self.size.height or 99))

    def lines(self, view: BoardView, width: int, height: int) -> list[Content]:
        raise NotImplementedError


class StandingsPanel(BoardPanel):
    """The standings from `start` on: place, arrow, name, ree, and what the last match did (its players);
    wide, the belt and the activity status too."""

    DEFAULT_CSS = """
    StandingsPanel { height: 1fr; }
    """

    def lines(self, view: BoardView, width: int, height: int) -> list[Content]:
        rows = [r for r in view.rows if r.position >= self.start]  # the service's order: the podium's rest
        if not view.rows:
            return [styled(("No standings yet: they come with the first match.", DIM))]
        extra = 24 if self.wide and width >= 50 else 0
        name_width = max(6, width - 19 - extra)
        out = [styled((fit("  #", 7) + fit("Player", name_width) + "   Ree  Last", DIM))]
        if extra:
            out[0] = out[0] + styled((fit("  Belt", 12) + fit("Status", 12), DIM))
        room = max(1, height - 1)
        shown = rows if len(rows) <= room else rows[: room - 1]
        for row in shown:
            effect = view.effect_of(row.player.id)
            moved, moved_style = _moved(effect)
            change, change_style = _change(effect)
            name_style = "bold" if effect is not None else ""
            line = styled(
                f"{view.position_of(row):>3} ",
                (fit(moved, 3), moved_style),
                (fit(row.player.label, name_width), name_style),
                f"{whole(row.ree):>6} ",
                (f"{change:>5}", change_style),
            )
            if extra:
                line = line + styled(
                    "  ",
                    (fit(label_text(row.belt_label, row.belt), 8), DIM),
                    "  ",
                    (fit(label_text(row.status_label, row.status), 14), DIM),
                )
            out.append(line)
        if len(shown) < len(rows):
            beyond = f" (to #{view.position_of(rows[-1])}, and beyond)" if view.more_pages else ""
            out.append(styled((f"  + {len(rows) - len(shown)} more{beyond}", DIM)))
        return out


class LastMatchPanel(BoardPanel):
    """The subset's last match: its number, game and date, then each player in the order of the result with
    the change of ree and of position (or, when that cannot be read, the result and why)."""

    DEFAULT_CSS = """
    LastMatchPanel { height: 1fr; margin-bottom: 1; }
    """

    @staticmethod
    def wanted(view: BoardView) -> int:
        """The lines it would take with room enough: the head, then a line a player (or a faction, and why
        the effect is not shown)."""
        if view.match is None:
            return 2
        if view.effect is None or not view.effect.players:
            return 2 + len(view.match.factions)
        return 1 + len(view.effect.players)

    def lines(self, view: BoardView, width: int, height: int) -> list[Content]:
        match = view.match
        if match is None:
            return [styled(("LAST MATCH", HEAD)), styled(("No match yet.", DIM))]
        game = match.game.name if match.game is not None else ""
        head = styled(("LAST MATCH ", HEAD), (f"#{match.number} {game}", "bold"))
        dated = head + styled((f" · {when(match, shown_zone(self))}", DIM))
        out = [(dated if dated.cell_length <= width else head).truncate(width, ellipsis=True)]
        room = max(1, height - 1)
        if view.effect is None or not view.effect.players:
            body = [
                styled(
                    f"{f.rank}. ", fit(", ".join(p.label for p in f.players) or f.name or "bot", width - 4)
                )
                for f in sorted(match.factions, key=lambda f: f.rank)
            ]
            note = styled((view.effect_note or "What it did shows when the service answers.", DIM))
            return [*out, *body[: max(0, room - 1)], note.truncate(width, ellipsis=True)]
        players = list(view.effect.players)
        shown = players if len(players) <= room else players[: room - 1]
        wide = self.wide and width >= 44
        name_width = max(6, width - 19 - (7 if wide else 0))
        for p in shown:
            change, change_style = _change(p)
            if p.new:
                place = f"{ARROW}{p.position_after}"
            elif p.moved:
                place = f"{p.position_before}{ARROW}{p.position_after}"
            else:
                place = ""
            line = styled(
                f"{p.rank:>2}. ",
                (fit(p.name, name_width), "bold"),
                (f"{change:>5}", change_style),
                (f" {place:<7}", DIM if not p.moved else change_style),
            )
            if wide:
                line = line + styled((f"{whole(p.ree_after):>6}", DIM))
            out.append(line)
        if len(shown) < len(players):
            out.append(_more(len(players) - len(shown)))
        return out


class RecentPanel(BoardPanel):
    """The subset's last five matches, newest first: number, game, who won (and the date when wide)."""

    DEFAULT_CSS = """
    RecentPanel { height: 6; }
    """

    def lines(self, view: BoardView, width: int, height: int) -> list[Content]:
        out = [styled(("LAST FIVE", HEAD))]
        if not view.recent:
            return [*out, styled(("No match yet.", DIM))]
        wide = self.wide and width >= 50
        zone = shown_zone(self)
        date_width = 17 if wide else 0
        game_width = max(6, (width - 6 - date_width) // 2)
        won_width = max(4, width - 6 - date_width - game_width - 1)
        for match in view.recent[:5]:
            game = match.game.name if match.game is not None else ""
            line = styled(
                (f"#{match.number:<4} ", DIM),
                fit(game, game_width),
                " ",
                (fit(winners(match), won_width), "bold"),
            )
            if wide:
                line = line + styled((f" {when(match, zone, wide=True):>16}", DIM))
            out.append(line)
        return out


class TonightLine(BoardPanel):
    """One line: what changed tonight (a new leader, a champion, a streak, a milestone…), newest first, as
    many as fit, then how many more; the board hides it when nothing did."""

    DEFAULT_CSS = """
    TonightLine { height: 1; }
    """

    def lines(self, view: BoardView, width: int, height: int) -> list[Content]:
        if not view.tonight:
            return [Content("")]
        head = styled(("TONIGHT ", HEAD))
        line = head
        for n, text in enumerate(view.tonight):
            piece = styled((" · " if n else "", DIM), (text, "bold"))
            rest = len(view.tonight) - n - 1
            tail = f"  + {rest} more" if rest else ""
            if (line + piece).cell_length + len(tail) > width and n:
                return [line + _more(len(view.tonight) - n).truncate(width - line.cell_length)]
            line = line + piece
        return [line.truncate(width, ellipsis=True)]
