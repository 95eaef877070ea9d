"""A deterministic demo group for the embedded ranking service: its plan, drawn from one ``random.Random(seed)``.

Pure: no I/O, no SQL, no clock, no global random state; a seed always gives the same plan (players with
hidden strengths, games of every kind, a season of game nights ending on ``last_day``). `seed` feeds the
plan into a store. See docs/design/server.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import pairwise

__all__ = ["DemoFaction", "DemoGame", "DemoMatch", "DemoPlan", "DemoPlayer", "demo_plan"]

DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
WEIGHTS = ("ultralight", "light", "midlight", "normal", "heavy", "massive")


@dataclass(frozen=True)
class DemoPlayer:
    """A member of the demo group."""

    key: str  # stable short key, e.g. "ada"
    name: str  # display name, e.g. "Ada"; no "*" for ghosts, the service adds it
    ghost: bool
    skill: float  # hidden true strength, used only to generate results


@dataclass(frozen=True)
class DemoGame:
    """A game of the demo group: a ``catalogue.json`` name with its kind and default weight."""

    name: str
    kind: str  # "ffa" | "teams" | "coop" | "duel"
    weight: str


@dataclass(frozen=True)
class DemoFaction:
    """One side of a match: one player, a team, or a bot (no players)."""

    players: tuple[str, ...]  # DemoPlayer keys; empty for a bot faction
    rank: int
    points: str  # e.g. "87"; "" when the game has no score
    name: str = ""
    bot: bool = False


@dataclass(frozen=True)
class DemoMatch:
    """A played match, ready to be sent as a new match."""

    game: str  # a DemoGame name
    date: str  # "YYYY-MM-DD HH:MM:SS"
    weight: str
    factions: tuple[DemoFaction, ...]
    external_id: str  # "demo-0001", ...
    notes: str = ""
    name: str = ""  # "", "default_1" or "default_2"


@dataclass(frozen=True)
class DemoPlan:
    """The whole demo group: who plays, what, and a chronological season of matches."""

    group_name: str
    players: tuple[DemoPlayer, ...]
    games: tuple[DemoGame, ...]
    matches: tuple[DemoMatch, ...]


# --- the cast -------------------------------------------------------------------------------------------

GROUP_NAME = "Friday Night Meeples"

PLAYERS: tuple[DemoPlayer, ...] = (
    DemoPlayer("ada", "Ada", False, 7.5),
    DemoPlayer("chiara", "Chiara", False, 6.9),
    DemoPlayer("ben", "Ben", False, 6.5),
    DemoPlayer("elena", "Elena", False, 6.1),
    DemoPlayer("dev", "Dev", False, 5.8),
    DemoPlayer("farid", "Farid", False, 5.2),
    DemoPlayer("greta", "Greta", False, 4.8),
    DemoPlayer("hugo", "Hugo", True, 5.5),
    DemoPlayer("ines", "Ines", True, 4.4),
    DemoPlayer("jonas", "Jonas", True, 3.8),
)

# Chance of coming to the main night and to the extra evening.
_ATTENDANCE: dict[str, tuple[float, float]] = {
    "ada": (0.9, 0.5),
    "chiara": (0.8, 0.35),
    "ben": (0.9, 0.45),
    "elena": (0.75, 0.4),
    "dev": (0.8, 0.3),
    "farid": (0.7, 0.35),
    "greta": (0.75, 0.3),
    "hugo": (0.35, 0.1),
    "ines": (0.3, 0.1),
    "jonas": (0.3, 0.05),
}


@dataclass(frozen=True)
class _Spec:
    """How the demo group plays one game."""

    game: DemoGame
    seats: tuple[int, int]  # table sizes the group uses (within the catalogue's range)
    minutes: int  # typical duration
    luck: float  # standard deviation of the performance noise
    popularity: float
    tie_rate: float = 0.0  # chance that two neighbouring places tie (free-for-all only)
    top: tuple[int, int] = (0, 0)  # winner's points, inclusive range
    per_gap: float = 0.0  # points lost per unit of performance behind the place above
    floor: int = 0  # lowest score normally seen
    step: int = 1  # scores are multiples of this


SPECS: tuple[_Spec, ...] = (
    _Spec(DemoGame("Catan", "ffa", "normal"), (3, 4), 80, 2.8, 1.0, 0.0, (10, 11), 1.1, 2),
    _Spec(DemoGame("Ticket to Ride", "ffa", "normal"), (2, 5), 60, 2.3, 1.0, 0.05, (95, 145), 11.0, 25),
    _Spec(DemoGame("Wingspan", "ffa", "normal"), (2, 5), 70, 2.1, 1.1, 0.05, (75, 110), 6.0, 35),
    _Spec(DemoGame("Brass: Birmingham", "ffa", "heavy"), (3, 4), 150, 1.5, 1.4, 0.03, (140, 195), 13.0, 60),
    _Spec(DemoGame("Tichu", "teams", "normal"), (4, 4), 60, 2.0, 0.9, 0.0, (1000, 1150), 110.0, 150, 5),
    _Spec(DemoGame("Pandemic", "coop", "normal"), (2, 4), 50, 1.6, 0.7),
    _Spec(DemoGame("Patchwork", "duel", "midlight"), (2, 2), 25, 1.8, 0.8, 0.0, (12, 32), 4.0, -8),
    _Spec(DemoGame("7 Wonders Duel", "duel", "normal"), (2, 2), 30, 2.0, 0.8, 0.0, (55, 82), 5.0, 25),
)

_BOT_NAME = {"Pandemic": "The Virus"}
_PANDEMIC_LEVELS = (("Introductory", 4, 4.6, 2), ("Standard", 5, 5.7, 6), ("Heroic", 6, 6.6, 2))

_MINUTE = timedelta(minutes=1)


# --- the plan -------------------------------------------------------------------------------------------


def demo_plan(
    seed: int = 7, matches: int = 300, start: str = "2026-03-06 19:30:00", last_day: date | None = None
) -> DemoPlan:
    """Plan the demo group: ``matches`` matches over a season of game nights from ``start``.

    With ``last_day``, every date is moved by the same whole number of days so that the last match is
    played on ``last_day`` (at its planned time of day); ``start`` then only sets the weekday pattern.
    Deterministic: the same arguments always give the same plan. Raises ValueError on a negative count or a
    ``start`` not in ``YYYY-MM-DD HH:MM:SS`` form.
    """
    if matches < 0:
        raise ValueError(f"matches must be >= 0, not {matches}")
    first = datetime.strptime(start, DATE_FORMAT)
    season = _Season(random.Random(seed))
    week = 0
    while len(season.played) < matches:
        night = first + timedelta(weeks=week)
        if week == 0 or season.rng.random() > 0.06:  # a few Fridays are skipped (holidays)
            season.night(night, main=True)
        if season.rng.random() < 0.35:
            extra = (night + timedelta(days=4)).replace(hour=20, minute=0, second=0)
            season.night(extra, main=False)
        week += 1
    planned = season.played[:matches]
    if last_day is not None and planned:
        shift = timedelta(days=(last_day - datetime.strptime(planned[-1].date, DATE_FORMAT).date()).days)
        planned = [
            _with_date(m, (datetime.strptime(m.date, DATE_FORMAT) + shift).strftime(DATE_FORMAT))
            for m in planned
        ]
    out = tuple(
        DemoMatch(
            game=m.game,
            date=m.date,
            weight=m.weight,
            factions=m.factions,
            external_id=f"demo-{i:04d}",
            notes=m.notes,
            name=m.name,
        )
        for i, m in enumerate(planned, start=1)
    )
    return DemoPlan(GROUP_NAME, PLAYERS, tuple(s.game for s in SPECS), out)


class _Season:
    """The mutable state of one generation run: the random source and the matches so far."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.played: list[DemoMatch] = []
        self.first_play: set[str] = set()
        # Each player likes some games more than others: a small, fixed bonus per (player, game).
        self.liking = {(p.key, s.game.name): rng.gauss(0.0, 0.45) for p in PLAYERS for s in SPECS}
        self.skill = {p.key: p.skill for p in PLAYERS}
        self.names = {p.key: p.name for p in PLAYERS}

    # -- nights and tables ------------------------------------------------------------------------------

    def night(self, start: datetime, *, main: bool) -> None:
        rng = self.rng
        column = 0 if main else 1
        present = [p.key for p in PLAYERS if rng.random() < _ATTENDANCE[p.key][column]]
        minimum = 4 if main else 2
        regulars = [p.key for p in PLAYERS if not p.ghost and p.key not in present]
        rng.shuffle(regulars)
        while len(present) < minimum:
            present.append(regulars.pop())
        end = start + timedelta(minutes=255 if main else 150)
        tonight: dict[str, int] = {}
        night: list[DemoMatch] = []
        clock = start
        round_no = 0
        while clock + timedelta(minutes=30) <= end:
            seating = list(present)
            rng.shuffle(seating)
            tables = self._seat(seating, heavy_ok=main and round_no == 0, tonight=tonight)
            if not tables:
                break
            runs = [round(spec.minutes * rng.uniform(0.85, 1.2)) for spec, _ in tables]
            round_end = clock + timedelta(minutes=max(runs))
            for i, ((spec, seats), run) in enumerate(zip(tables, runs, strict=True)):
                when = clock + i * 3 * _MINUTE
                while True:
                    night.append(self._play(spec, seats, when))
                    tonight[spec.game.name] = tonight.get(spec.game.name, 0) + 1
                    when += timedelta(minutes=run + 5)
                    following = self._again(spec, len(seats), round_end - when)
                    if following is None:
                        break
                    spec = following
                    run = round(spec.minutes * rng.uniform(0.85, 1.2))
                    if rng.random() < 0.5:
                        seats = tuple(rng.sample(seats, len(seats)))
            clock = round_end + timedelta(minutes=rng.randint(10, 20))
            round_no += 1
        night.sort(key=lambda m: m.date)
        previous = self.played[-1].date if self.played else ""
        for m in night:
            if m.date <= previous:  # two tables started in the same minute: nudge the later one
                bumped = datetime.strptime(previous, DATE_FORMAT) + _MINUTE
                m = _with_date(m, bumped.strftime(DATE_FORMAT))
            self.played.append(m)
            previous = m.date

    def _seat(
        self, people: list[str], *, heavy_ok: bool, tonight: dict[str, int]
    ) -> list[tuple[_Spec, tuple[str, ...]]]:
        """Split the people present into tables of one game each; at most one person watches."""
        rng = self.rng
        rest = list(people)
        tables: list[tuple[_Spec, tuple[str, ...]]] = []
        used: set[str] = set()
        while len(rest) >= 2:
            n = len(rest)
            options: list[_Spec] = []
            weights: list[float] = []
            for spec in SPECS:
                lo, hi = spec.seats
                if spec.game.name in used or lo > n or (spec.game.weight == "heavy" and not heavy_ok):
                    continue
                w = spec.popularity * 0.5 ** tonight.get(spec.game.name, 0)
                if n - min(n, hi) == 1 and min(n, hi) - 1 < lo:
                    w *= 0.3  # someone would have to watch
                if spec.game.kind == "duel" and not tables and n >= 5:
                    w *= 0.15  # a big group rarely starts with a duel
                options.append(spec)
                weights.append(w)
            if not options:
                break
            spec = rng.choices(options, weights)[0]
            lo, hi = spec.seats
            size = min(n, hi)
            if n - size == 1 and size - 1 >= lo:
                size -= 1  # leave two for a duel rather than one watching
            tables.append((spec, tuple(rest[:size])))
            rest = rest[size:]
            used.add(spec.game.name)
        return tables

    def _again(self, spec: _Spec, seats: int, left: timedelta) -> _Spec | None:
        """What a table that finished early plays next, or None."""
        rng = self.rng
        if rng.random() < 0.2:
            return None  # they chat and watch the other table
        options: list[_Spec] = []
        weights: list[float] = []
        for other in SPECS:
            lo, hi = other.seats
            if other.game.weight == "heavy" or not lo <= seats <= hi:
                continue
            if timedelta(minutes=other.minutes) > left:
                continue
            options.append(other)
            weights.append(other.popularity * (3.0 if other is spec and spec.game.kind == "duel" else 1.0))
        return rng.choices(options, weights)[0] if options else None

    # -- results ----------------------------------------------------------------------------------------

    def _perf(self, key: str, spec: _Spec) -> float:
        return self.skill[key] + self.liking[(key, spec.game.name)] + self.rng.gauss(0.0, spec.luck)

    def _play(self, spec: _Spec, seats: tuple[str, ...], when: datetime) -> DemoMatch:
        kind = spec.game.kind
        if kind == "coop":
            factions, notes = self._coop(spec, seats)
        elif kind == "teams":
            factions, notes = self._teams(spec, seats)
        else:
            factions, notes = self._ffa(spec, seats)
        weight = spec.game.weight
        if spec.game.name not in self.first_play:
            self.first_play.add(spec.game.name)
            if WEIGHTS.index(weight) >= WEIGHTS.index("heavy"):
                weight = WEIGHTS[WEIGHTS.index(weight) - 1]
                notes = "Teaching game" + (f"; {notes}" if notes else "")
        roll = self.rng.random()
        name = ""
        if len(factions) == 2 and roll < 0.2:
            name = "default_2"
        elif roll > 0.9:
            name = "default_1"
        return DemoMatch(
            game=spec.game.name,
            date=when.strftime(DATE_FORMAT),
            weight=weight,
            factions=factions,
            external_id="",
            notes=notes,
            name=name,
        )

    def _ffa(self, spec: _Spec, seats: tuple[str, ...]) -> tuple[tuple[DemoFaction, ...], str]:
        """Free-for-all and duels: one faction per player."""
        rng = self.rng
        order = sorted(((self._perf(k, spec), k) for k in seats), reverse=True)
        groups: list[list[tuple[float, str]]] = [[order[0]]]
        for entry in order[1:]:
            if rng.random() < spec.tie_rate:
                groups[-1].append(entry)
            else:
                groups.append([entry])
        notes = ""
        if spec.game.name == "7 Wonders Duel" and rng.random() < 0.12:
            scores = [""] * len(groups)  # a supremacy victory ends the game without a count
            notes = rng.choice(("Military supremacy", "Scientific supremacy"))
        else:
            scores = [str(s) for s in self._scores(spec, [g[0][0] for g in groups])]
        if spec.game.name == "Catan" and rng.random() < 0.3:
            notes = f"Longest road: {self.names[rng.choice(seats)]}"
        factions: list[DemoFaction] = []
        rank = 1
        for group, points in zip(groups, scores, strict=True):
            for _, key in group:
                factions.append(DemoFaction((key,), rank, points))
            rank += len(group)
        return tuple(factions), notes

    def _teams(self, spec: _Spec, seats: tuple[str, ...]) -> tuple[tuple[DemoFaction, ...], str]:
        """Two teams of two (seats 0+2 against 1+3, as partners sit across the table)."""
        rng = self.rng
        teams = [(seats[0], seats[2]), (seats[1], seats[3])]
        perf = [sum(self._perf(k, spec) for k in team) / 2 for team in teams]
        order = sorted(range(2), key=lambda i: perf[i], reverse=True)
        scores = self._scores(spec, [perf[i] for i in order])
        factions = tuple(
            DemoFaction(teams[i], place, str(points), name="North/South" if i == 0 else "East/West")
            for place, (i, points) in enumerate(zip(order, scores, strict=True), start=1)
        )
        notes = ""
        if rng.random() < 0.15:
            notes = f"Grand Tichu called by {self.names[rng.choice(seats)]}"
        return factions, notes

    def _coop(self, spec: _Spec, seats: tuple[str, ...]) -> tuple[tuple[DemoFaction, ...], str]:
        """The players together against the game, which plays as a bot faction."""
        rng = self.rng
        level, epidemics, threshold, _ = rng.choices(_PANDEMIC_LEVELS, [lv[3] for lv in _PANDEMIC_LEVELS])[0]
        strength = sum(self.skill[k] + self.liking[(k, spec.game.name)] for k in seats) / len(seats)
        won = strength + rng.gauss(0.0, spec.luck) >= threshold
        bot_name = _BOT_NAME.get(spec.game.name, spec.game.name)
        team = DemoFaction(tuple(seats), 1 if won else 2, "")
        bot = DemoFaction((), 2 if won else 1, "", name=bot_name, bot=True)
        if won:
            notes = f"{level}, {epidemics} epidemics: all four cures found"
        else:
            cause = rng.choice(("too many outbreaks", "the player deck ran out", "a disease spread too far"))
            cures = rng.randint(0, 3)
            notes = f"{level}, {epidemics} epidemics: lost ({cause}), {cures} cure{'s' * (cures != 1)} found"
        return (team, bot), notes

    def _scores(self, spec: _Spec, perfs: list[float]) -> list[int]:
        """Points for places in order: strictly decreasing, gaps that follow the performance gaps."""
        rng = self.rng
        step = spec.step
        top = rng.randint(spec.top[0] // step, spec.top[1] // step) * step
        scores = [top]
        for above, below in pairwise(perfs):
            drop = (above - below) * spec.per_gap + rng.uniform(0.0, spec.per_gap * 0.4)
            drop = max(step, round(drop / step) * step)
            prev = scores[-1]
            scores.append(max(prev - drop, min(spec.floor, prev - step)))
        return scores


def _with_date(m: DemoMatch, date: str) -> DemoMatch:
    return DemoMatch(m.game, date, m.weight, m.factions, m.external_id, m.notes, m.name)
