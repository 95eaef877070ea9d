"""Seasons: calendar periods of the group's history, each with standings that start even.

A period is a month, a quarter, a year (in the seat's time zone), or any range [since, until). Its standings
are those of a group that played only the period's matches: the table's model (`rankterm.stats.model`)
replayed from scratch over them, a hard reset, so everyone starts even and the all-time standings never
change. A roll of honour gives each past period's champion (the leader at its end), runner-up, matches and
players. Positions are shared by equal ree, as places are shared by a tie.

A host may also name seasons in the config (`rankterm.config.NamedSeason`: a name and a range): `named`
makes them periods, `find_period` reads a name or a calendar period as the command line and the pickers
take it, and `period_choices` lists what a period picker offers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from rankterm.stats.model import TableModel
from rankterm.wire.localtime import SeatZone
from rankterm.wire.models import Match, Player
from rankterm.wire.standing import shared_positions
from rankterm.wire.text import fold_name


class NamedSeason(Protocol):
    """A season the host names (`rankterm.config.NamedSeason`): a name and a wall-clock range."""

    @property
    def name(self) -> str: ...
    @property
    def start(self) -> datetime: ...
    @property
    def end(self) -> datetime: ...


__all__ = [
    "Period",
    "PeriodChoice",
    "Season",
    "SeasonRow",
    "find_period",
    "named",
    "period_choices",
    "period_matches",
    "period_of",
    "periods_by",
    "roll_of_honour",
    "season_standings",
]

KINDS = ("month", "quarter", "year")


class PeriodError(ValueError):
    """A period that cannot be read (the sentence says what is expected)."""


@dataclass(frozen=True, slots=True)
class Period:
    """[start, end) in the seat's wall-clock time (naive), and its name ("2026", "2026-Q3", "2026-05")."""

    name: str
    start: datetime
    end: datetime

    def holds(self, match: Match, zone: SeatZone) -> bool:
        """Whether `match` was played in the period, by the seat's clock."""
        when = zone.from_wire(match.date)
        return when is not None and self.start <= when.replace(tzinfo=None) < self.end


_SEASON = re.compile(r"(\d{4})(?:-(?:Q([1-4])|(\d{2})))?\Z", re.ASCII | re.IGNORECASE)


def period_of(text: str) -> Period:
    """ "YYYY", "YYYY-Qn" or "YYYY-MM" as a period.

    Raises:
        PeriodError: anything else.
    """
    found = _SEASON.match(text.strip())
    month = int(found.group(3)) if found and found.group(3) else None
    if found is None or (month is not None and not 1 <= month <= 12):
        raise PeriodError(f"{text.strip()[:20]!r} is not a season: write YYYY, YYYY-Qn (n 1-4) or YYYY-MM.")
    year = int(found.group(1))
    if found.group(2):
        quarter = int(found.group(2))
        return _quarter(year, quarter)
    if month is not None:
        return _month(year, month)
    return Period(f"{year}", datetime(year, 1, 1), datetime(year + 1, 1, 1))


def _month(year: int, month: int) -> Period:
    end = datetime(year + month // 12, month % 12 + 1, 1)
    return Period(f"{year}-{month:02d}", datetime(year, month, 1), end)


def _quarter(year: int, quarter: int) -> Period:
    first = 3 * (quarter - 1) + 1
    end = datetime(year + 1, 1, 1) if quarter == 4 else datetime(year, first + 3, 1)
    return Period(f"{year}-Q{quarter}", datetime(year, first, 1), end)


def containing(moment: datetime, kind: str) -> Period:
    """The month, quarter or year (`kind`) that holds `moment` (wall-clock, naive)."""
    if kind == "month":
        return _month(moment.year, moment.month)
    if kind == "quarter":
        return _quarter(moment.year, (moment.month - 1) // 3 + 1)
    if kind == "year":
        return Period(f"{moment.year}", datetime(moment.year, 1, 1), datetime(moment.year + 1, 1, 1))
    raise PeriodError(f"{kind!r} is not a kind of period: month, quarter or year.")


def between(since: datetime, until: datetime) -> Period:
    """The range [since, until) as a period named by its ends."""
    if until <= since:
        raise PeriodError("The end of a range must come after its start.")
    tail = until - timedelta(seconds=1) if until.time() == datetime.min.time() else until
    return Period(f"{since:%Y-%m-%d} to {tail:%Y-%m-%d}", since, until)


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """One line of a period's standings."""

    position: int
    player_id: str
    name: str
    ree: float
    played: int
    player: Player | None = None
    """The player as the period's last match of theirs names them."""


@dataclass(frozen=True, slots=True)
class Season:
    """A period, how many matches were played in it, and its standings (best first)."""

    period: Period
    matches: int
    rows: tuple[SeasonRow, ...]

    @property
    def champion(self) -> SeasonRow | None:
        return self.rows[0] if self.rows else None

    @property
    def runner_up(self) -> SeasonRow | None:
        return self.rows[1] if len(self.rows) > 1 else None


def period_matches(matches: Sequence[Match], period: Period, zone: SeatZone) -> list[Match]:
    """The matches of `matches` (held, oldest first) played in `period`, by the seat's clock."""
    # Wire dates are UTC "YYYY-MM-DD HH:MM:SS", ordered as text: a window a day wider than the period's on
    # each side leaves only its neighbours to be parsed and placed by the seat's clock.
    low, high = zone.to_wire(period.start - timedelta(days=1)), zone.to_wire(period.end + timedelta(days=1))
    return [m for m in matches if low <= m.date < high and period.holds(m, zone)]


def season_standings(matches: Sequence[Match], period: Period, zone: SeatZone) -> Season:
    """The standings of a group that played only `period`'s `matches` (held, oldest first)."""
    return season_of_parts([matches], period, zone)


def season_of_parts(parts: Iterable[Sequence[Match]], period: Period, zone: SeatZone) -> Season:
    """`season_standings` of matches given a part at a time, oldest first (a long window is never parsed
    whole: `stats.source.held_in_parts`)."""
    model = TableModel(replayable=False)
    names: dict[str, str] = {}
    people: dict[str, Player] = {}
    played = 0
    for part in parts:
        for match in period_matches(part, period, zone):
            model.add(match)  # a fresh model follows by adding, oldest first
            played += 1
            for faction in match.factions:
                if not faction.bot:
                    for player in faction.players:
                        names[str(player.id)] = player.label
                        people[str(player.id)] = player
    ranked = sorted(names, key=lambda pid: (-model.ree(pid), fold_name(names[pid]), pid))
    shown = shared_positions([(i, model.ree(pid)) for i, pid in enumerate(ranked, start=1)])
    rows = tuple(
        SeasonRow(position, pid, names[pid], model.ree(pid), model.played(pid), people[pid])
        for position, pid in zip(shown, ranked, strict=True)
    )
    return Season(period, played, rows)


def periods_by(matches: Iterable[Match], kind: str, zone: SeatZone) -> list[Period]:
    """Every `kind` period (month, quarter, year) that holds at least one of `matches`, oldest first."""
    seen: dict[str, Period] = {}
    days: dict[str, Period | None] = {}
    for match in matches:
        day = match.date[:10]
        if day not in days:
            days[day] = _whole_day(day, kind, zone)
        period = days[day]
        if period is None:  # a UTC day that the seat's clock splits between two periods
            when = zone.from_wire(match.date)
            if when is None:
                continue
            period = containing(when.replace(tzinfo=None), kind)
        seen.setdefault(period.name, period)
    return sorted(seen.values(), key=lambda p: p.start)


def _whole_day(day: str, kind: str, zone: SeatZone) -> Period | None:
    """The period a whole UTC day falls in by the seat's clock, when its first and last second fall in the
    same one (nearly every day); None when they do not, or when `day` is no date."""
    first, last = zone.from_wire(f"{day} 00:00:00"), zone.from_wire(f"{day} 23:59:59")
    if first is None or last is None:
        return None
    period = containing(first.replace(tzinfo=None), kind)
    return period if containing(last.replace(tzinfo=None), kind) == period else None


def roll_of_honour(matches: Sequence[Match], kind: str, zone: SeatZone, now: datetime) -> list[Season]:
    """Each past `kind` period with matches (the one holding `now`, wall-clock, left out: not over yet),
    oldest first, with its standings at its end."""
    return [
        season_standings(matches, period, zone)
        for period in periods_by(matches, kind, zone)
        if period.end <= now
    ]


def named(seasons: Iterable[NamedSeason]) -> list[Period]:
    """The seasons a host names (`Config.named_seasons`), as periods named by their names."""
    return [Period(season.name, season.start, season.end) for season in seasons]


def find_period(text: str, seasons: Iterable[NamedSeason] = ()) -> Period:
    """A season the host named (its name, ignoring case and accents), else `period_of(text)`.

    Raises:
        PeriodError: neither; the sentence names the seasons there are.
    """
    wanted = fold_name(text.strip())
    given = named(seasons)
    for period in given:
        if fold_name(period.name) == wanted:
            return period
    try:
        return period_of(text)
    except PeriodError:
        if not given:
            raise
        names = ", ".join(repr(p.name) for p in given)
        raise PeriodError(
            f"{text.strip()[:40]!r} is not a season: write YYYY, YYYY-Qn (n 1-4), YYYY-MM or one of {names}."
        ) from None


@dataclass(frozen=True, slots=True)
class PeriodChoice:
    """One entry of a period picker: its key (the period's name, "" for all time), its label, its period
    (None for all time)."""

    key: str
    label: str
    period: Period | None


ALL_TIME = PeriodChoice("", "All time", None)


def period_choices(
    span: tuple[datetime, datetime] | None, now: datetime, seasons: Iterable[NamedSeason] = ()
) -> list[PeriodChoice]:
    """What a period picker offers: all time; this month, this quarter, this year (`now`, wall-clock); the
    seasons the host names; then every earlier year, quarter and month from the group's first match to its
    last (`span`, wall-clock; None: no match yet), newest first. No match is read: the span comes from the
    main subset's first and last match."""
    choices = [ALL_TIME]
    current = [containing(now, kind) for kind in KINDS]
    for kind, period in zip(("This month", "This quarter", "This year"), current, strict=True):
        choices.append(PeriodChoice(period.name, f"{kind} ({period.name})", period))
    for period in named(seasons):
        choices.append(PeriodChoice(period.name, period.name, period))
    taken = {choice.key for choice in choices}
    if span is None:
        return choices
    first, last = span
    for kind in ("year", "quarter", "month"):
        period = containing(min(last, now), kind)
        while period.end > first:
            if period.name not in taken:
                choices.append(PeriodChoice(period.name, period.name, period))
                taken.add(period.name)
            period = containing(period.start - timedelta(seconds=1), kind)
    return choices
