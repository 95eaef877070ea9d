"""`BoardView`: what the scoreboard shows of one subset, and the text helpers its panels share.

A view is read by the board screen (standings, the last match's effect, the last five matches) and drawn by
the podium and the panels; two views that compare equal draw the same, so an unchanged view is not drawn
again (no bytes written).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC
from functools import cached_property

from rich.cells import cell_len, set_cell_size

from rankterm.stats.effect import MatchEffect, PlayerEffect
from rankterm.wire.localtime import UTC_ZONE, SeatZone, parse_wire_date
from rankterm.wire.models import Faction, Match, RankingRow
from rankterm.wire.result_line import TIE_SEP, places
from rankterm.wire.standing import shown_positions

WIDE = 110
"""From this many columns the board shows five places in big type, and more per line (title and status,
dates, ree after)."""
TALL = 34
"""From this many rows the board also shows what the last match did in big type."""
TONIGHT_HOURS = 12
"""What changed in this many hours before now is the board's "tonight"."""


@dataclass(frozen=True)
class BoardView:
    """One subset as the board shows it."""

    subset_id: str | None
    """None: the main subset."""
    title: str
    rows: tuple[RankingRow, ...] = ()
    """The top of the latest standings (page 1)."""
    match: Match | None = None
    """The subset's last match (the one the standings are after)."""
    effect: MatchEffect | None = None
    effect_note: str = ""
    """Why the effect is not shown, when it is not."""
    recent: tuple[Match, ...] = ()
    """The subset's last matches, newest first (five at most)."""
    more_pages: bool = False
    """True when the standings go on past `rows` (only their first page is read)."""
    tonight: tuple[str, ...] = ()
    """What changed tonight (`stats.changes`, the last `TONIGHT_HOURS`), newest first, as sentences."""

    def effect_of(self, player_id: str) -> PlayerEffect | None:
        return self.effect.of(player_id) if self.effect is not None else None

    @cached_property
    def positions(self) -> dict[str, int]:
        """Each listed player's position as shown: equal ree, equal place (`wire.standing`)."""
        return shown_positions(self.rows)

    def position_of(self, row: RankingRow) -> int:
        return self.positions.get(row.player.id, row.position)


def fit(text: str, width: int) -> str:
    """`text` cut (with "…") or padded to exactly `width` cells."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def whole(value: object) -> str:
    """A ree as a whole number ("2934"), a dash when unknown."""
    try:
        return str(round(float(value)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "\u2013"


def arrow(climbed: int) -> str:
    """Places gained or lost: "▲2", "▼1", "" for none."""
    if climbed > 0:
        return f"▲{climbed}"
    if climbed < 0:
        return f"▼{-climbed}"
    return ""


def when(match: Match, zone: SeatZone = UTC_ZONE, *, wide: bool = False) -> str:
    """A match's date as read on the board, in `zone` (the room's clock): "27 May 22:27" ("Wed 27 May 22:27"
    wide); its text if odd."""
    return zone.show(match.date, "%a %d %b %H:%M" if wide else "%d %b %H:%M")


def winner_label(faction: Faction) -> str:
    """A side as the board names it: its players (a bot: its faction's name, or "bot"), else its name."""
    if faction.bot:
        return faction.name or "bot"
    return ", ".join(p.label for p in faction.players) or faction.name


def winners(match: Match) -> str:
    """Who won a match: the sides ranked first, a tie joined by " = " ("Ada = Ben"; a team is "Ada, Ben")."""
    best = places(match, winner_label)[:1]
    return TIE_SEP.join(side for side in best[0] if side) if best else ""


def timestamp(match: Match) -> float | None:
    """When a match was recorded (or played), as seconds since the epoch (the service's dates are UTC)."""
    for text in (match.registration_date, match.date):
        if (moment := parse_wire_date(text)) is not None:
            return moment.replace(tzinfo=UTC).timestamp()
    return None
