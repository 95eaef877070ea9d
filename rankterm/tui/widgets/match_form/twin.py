"""The same match twice: a match about to be sent that looks like one the group recorded a moment ago.

Two seats at one table may both record the game just played. Before sending, the match form compares each
match with the group's matches recorded in the last `WINDOW` (the mirror's, brought up to date by the
screen): the same game, the same players in the same factions (a bot faction by its rank), the same ranks,
and the same points where both matches have points for a faction (points typed on one seat only do not make
two matches different). Faction names and notes are not compared: they are typed differently for the same
match. When one looks the same, the form asks once ("Match 313, recorded 40 s ago from another seat, looks
the same — send anyway?").

    twin = find_twin(match, recorded, now)    # the newest recorded match that looks the same, or None
    twin_question(twin, now, where)           # the question, naming where it was recorded from (as far as
                                              # this seat can tell: this seat, this computer, another seat)

A match still waiting in the outbox (recorded while the service was gone, by this seat or another of the
profile's) is compared too (`looks_like_kept`), since the group's matches do not have it yet; so are the
matches of one batch with each other (a queued match typed again in the form: `batch_question`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from rankterm.wire.localtime import parse_wire_date
from rankterm.wire.models import Faction, Match, NewFaction, NewMatch

WINDOW = timedelta(minutes=30)
"""A recorded match this recent (by when it was recorded) that looks the same is asked about."""

_Side = tuple[tuple[str, ...], bool, int]


def _points(value: object) -> float | None:
    """Points as a number; None when there are none (or they cannot be read)."""
    if value is None or value == "":
        return None
    try:
        return float(str(value))
    except ValueError:
        return None


def _new_sides(factions: Iterable[NewFaction]) -> list[tuple[_Side, float | None]]:
    return sorted(
        (((() if f.bot else tuple(sorted(f.players))), f.bot, f.rank), _points(f.points)) for f in factions
    )


def _recorded_sides(factions: Iterable[Faction]) -> list[tuple[_Side, float | None]]:
    return sorted(
        (((() if f.bot else tuple(sorted(str(p.id) for p in f.players))), f.bot, f.rank), _points(f.points))
        for f in factions
    )


def looks_the_same(match: NewMatch, recorded: Match) -> bool:
    """True when `recorded` has `match`'s game, sides and ranks, and its points where both have them."""
    if match.game is None or recorded.game is None or str(recorded.game.id) != str(match.game):
        return False
    return _same_sides(_new_sides(match.factions), _recorded_sides(recorded.factions))


def looks_like_kept(match: NewMatch, kept: NewMatch) -> bool:
    """True when `kept` (a match waiting in the outbox, not recorded yet) has `match`'s game, sides and ranks,
    and its points where both have them."""
    if match.game is None or kept.game is None or str(kept.game) != str(match.game):
        return False
    return _same_sides(_new_sides(match.factions), _new_sides(kept.factions))


def _same_sides(ours: list[tuple[_Side, float | None]], theirs: list[tuple[_Side, float | None]]) -> bool:
    if len(ours) != len(theirs):
        return False
    for (side, points), (other_side, other_points) in zip(ours, theirs, strict=True):
        if side != other_side:
            return False
        if points is not None and other_points is not None and points != other_points:
            return False
    return True


def recorded_at(match: Match) -> datetime | None:
    """When `match` was recorded (UTC, aware): its registration date, else its date."""
    when = parse_wire_date(match.registration_date) or parse_wire_date(match.date)
    return None if when is None else when.replace(tzinfo=UTC)


def find_twin(match: NewMatch, recorded: Iterable[Match], now: datetime) -> Match | None:
    """The most recently recorded of `recorded` that was recorded within `WINDOW` before `now` (aware) and
    looks the same as `match`; None when none does."""
    twins = [
        (at, m)
        for m in recorded
        if (at := recorded_at(m)) is not None and now - at <= WINDOW and looks_the_same(match, m)
    ]
    return max(twins, key=lambda pair: (pair[0], pair[1].number))[1] if twins else None


def _ago(seconds: float) -> str:
    if seconds < 1:
        return "just now"
    if seconds < 120:
        return f"{int(seconds)} s ago"
    return f"{int(seconds // 60)} min ago"


THIS_SEAT = "this seat"
"""The twin went out from this seat (this form sent it in this session)."""
THIS_COMPUTER = "another seat of this computer"
"""The twin is in the outbox this seat shares with the other seats of its profile on this computer."""
ELSEWHERE = "another seat"
"""Neither: the service's match says nothing of where it came from, so nothing more is claimed."""


def kept_question(age: float, where: str, label: str = "") -> str:
    """ "A match waiting in the outbox, recorded 40 s ago from this seat, looks the same — send anyway?": a
    twin not recorded by the service yet (`looks_like_kept`), put in the outbox `age` seconds ago."""
    about = f"{label}: " if label else ""
    return f"{about}A match waiting in the outbox, recorded {_ago(age)} from {where}, looks the same — send anyway?"


def batch_question(label: str) -> str:
    """ "Two matches of this batch look the same, Catan: Ada, Ben (rt-…) — send both?": a queued match and
    another queued one, or the form's, with the same game, sides, ranks and points (`looks_like_kept`)."""
    return f"Two matches of this batch look the same, {label} — send both?"


def twin_question(twin: Match, now: datetime, where: str, label: str = "") -> str:
    """ "Match 313, recorded 40 s ago from another seat, looks the same — send anyway?"; `where` is
    `THIS_SEAT`, `THIS_COMPUTER` or `ELSEWHERE`; `label` names the match asked about when it is one of a
    batch."""
    at = recorded_at(twin)
    ago = _ago((now - at).total_seconds()) if at is not None else "lately"
    about = f"{label}: " if label else ""
    return f"{about}Match {twin.number}, recorded {ago} from {where}, looks the same — send anyway?"
