"""The write side: a new match and its factions, as SERVICE.md defines them and as rankterm sends them.

This module is the one judge of a valid match: `read_match(data)` parses a match and gives every `Problem` as
(field, M-code, sentence). The match form shows the sentences under their fields, the embedded service answers
the codes, the importer skips with them. The validators also accept the other forms public clients send, so
the service parses incoming matches with these same models. Only what needs the store (an unknown game or
player, an external id already taken) is judged by the service itself.

The codes and what each means: docs/standings.md ("What makes a match valid").
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from rankterm.wire.fields import DATE_FORMAT, Weight, wire_date
from rankterm.wire.localtime import MINUTE, read_layouts
from rankterm.wire.text import ascii_digits

BOT_MARKER = "bot"
MAX_RANK = 10_000
MAX_NAME = 200
MAX_FACTIONS = 100
MAX_PARTICIPANTS = 200

SCHEMA = "M002"
NO_GAME = "M004"
PLAYER_TWICE = "M006"
FACTIONS = "M007"
BAD_RANK = "M008"
BOT_FACTION = "M009"
FUTURE_DATE = "M010"

EARLIEST = datetime(1900, 1, 1)
"""No match is dated before this (naive UTC): older dates are typing slips, and some clocks cannot show them."""

FUTURE_LEEWAY = timedelta(minutes=5)
"""How far ahead of the judge's clock a match may be dated: clocks of seats and service differ a little."""

_BOT_WITH_PLAYERS = "bot_with_players"
_BAD_POINTS = "bad_points"
_BAD_DATE = "bad_date"
_OLD_DATE = "old_date"


class Problem(NamedTuple):
    """What makes a match unfit to record: the field it is about, its M-code, one sentence for a person.

    Fields: ``game``, ``weight``, ``name``, ``notes``, ``date``, ``external_id``, ``factions``,
    ``factions.<i>`` and ``factions.<i>.<players|rank|points|name>`` (i counts from 0), or ``match``.
    """

    field: str
    code: str
    sentence: str


def normal_points(text: str) -> str:
    """Points as the service keeps them: stripped, a comma taken as the decimal mark; ValueError if not a
    finite number (empty is fine: no points)."""
    text = text.strip().replace(",", ".")
    if text and not math.isfinite(float(text)):
        raise ValueError(text)
    return text


class NewFaction(BaseModel):
    """A faction of a new match (SERVICE.md). A bot faction carries rank, points and name only."""

    model_config = ConfigDict(extra="ignore", defer_build=True)  # built at the first match, not at import

    players: list[str] = Field(default_factory=list)
    rank: int = Field(ge=1, le=MAX_RANK)
    points: str = ""
    name: str = Field(default="", max_length=MAX_NAME)
    bot: bool = False

    @model_validator(mode="before")
    @classmethod
    def _other_forms(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        data = dict(value)
        if "points" not in data and "score" in data:
            data["points"] = data.pop("score")
        players = data.get("players")
        if players is None:
            data["players"] = []
        elif isinstance(players, str | int) and not isinstance(players, bool):
            data["players"] = [str(players)]
        elif isinstance(players, list):
            data["players"] = [p.get("id") if isinstance(p, dict) else p for p in players]
        if data["players"] == [BOT_MARKER]:
            data["players"] = []
            data["bot"] = True
        points = data.get("points")
        if points is None:
            data["points"] = ""
        elif isinstance(points, int | float) and not isinstance(points, bool):
            data["points"] = f"{points:g}" if isinstance(points, float) else str(points)
        if isinstance(data.get("rank"), str) and ascii_digits(data["rank"].strip()):
            data["rank"] = int(data["rank"])
        if isinstance(data.get("name"), str):
            data["name"] = data["name"].strip()
        return data

    @field_validator("points")
    @classmethod
    def _points(cls, value: str) -> str:
        try:
            return normal_points(value)
        except ValueError:
            raise PydanticCustomError(_BAD_POINTS, "the points must be a number") from None

    @field_validator("players")
    @classmethod
    def _ids(cls, value: list[Any]) -> list[str]:
        out = []
        for pid in value:
            if not isinstance(pid, str | int) or isinstance(pid, bool) or not str(pid).strip():
                raise ValueError("a player is given by its id")
            out.append(str(pid).strip())
        return out

    @model_validator(mode="after")
    def _bot_has_no_players(self) -> NewFaction:
        if self.bot and self.players:
            raise PydanticCustomError(_BOT_WITH_PLAYERS, "a bot faction carries no players")
        return self

    def to_wire(self) -> dict[str, Any]:
        if self.bot:
            return {"rank": self.rank, "points": self.points, "name": self.name, "bot": True}
        return {"players": list(self.players), "rank": self.rank, "points": self.points, "name": self.name}


class NewMatch(BaseModel):
    """A match to record (SERVICE.md "New match"); `external_id` travels as `id`, read back as `externalId`."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)

    game: int | None = None
    weight: Weight
    name: str = Field(default="", max_length=MAX_NAME)
    notes: str = Field(default="", max_length=5000)
    factions: list[NewFaction] = Field(default_factory=list)
    external_id: str | None = Field(default=None, alias="id", max_length=100)
    date: str | None = None

    @field_validator("game", mode="before")
    @classmethod
    def _game_ref(cls, value: Any) -> Any:
        if isinstance(value, dict):
            value = value.get("id")
        if isinstance(value, str) and ascii_digits(value.strip()):
            return int(value)
        return value

    @field_validator("external_id", mode="before")
    @classmethod
    def _ext_id(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("date")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        when = read_layouts(value, (DATE_FORMAT, MINUTE, "%Y-%m-%d"))
        if when is None:
            raise PydanticCustomError(_BAD_DATE, "the date cannot be read")
        if when < EARLIEST:
            raise PydanticCustomError(_OLD_DATE, "the date is before 1900")
        return when.strftime(DATE_FORMAT)

    @property
    def when(self) -> datetime | None:
        """The match's date (UTC, the service's time zone), or None when the service is to stamp it."""
        return wire_date(self.date) if self.date else None

    def problems(self, now: datetime | None = None) -> list[Problem]:
        """What makes this parsed match unfit to record; empty when it is fine (see `read_match`)."""
        factions = self.factions
        if len(factions) > MAX_FACTIONS or sum(len(f.players) for f in factions) > MAX_PARTICIPANTS:
            return [_too_big()]
        out: list[Problem] = []
        if now is not None and (problem := future_date_problem(self.when, now)) is not None:
            out.append(problem)
        if self.game is None:
            out.append(Problem("game", NO_GAME, "Choose a game."))
        if len(factions) < 2:
            out.append(Problem("factions", FACTIONS, "A match needs at least two factions."))
        seen: set[str] = set()
        for i, faction in enumerate(factions):
            if not faction.bot and not faction.players:
                out.append(Problem(f"factions.{i}.players", FACTIONS, f"Faction {i + 1} has no players."))
            for pid in faction.players:
                if pid in seen:
                    out.append(
                        Problem(
                            f"factions.{i}.players", PLAYER_TWICE, f"Faction {i + 1}: a player appears twice."
                        )
                    )
                seen.add(pid)
        if factions and all(f.bot for f in factions):
            out.append(Problem("factions", FACTIONS, "A match needs at least one faction of players."))
        if sum(f.bot for f in factions) > 1:
            out.append(Problem("factions", BOT_FACTION, "A match has at most one bot faction."))
        return out

    def to_wire(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "game": self.game,
            "weight": self.weight.value,
            "name": self.name,
            "notes": self.notes,
            "factions": [f.to_wire() for f in self.factions],
        }
        if self.external_id:
            body["id"] = self.external_id
        if self.date:
            body["date"] = self.date
        return body


def _too_big() -> Problem:
    return Problem(
        "factions", SCHEMA, f"A match has at most {MAX_FACTIONS} factions and {MAX_PARTICIPANTS} players."
    )


def _over_limits(data: Any) -> bool:
    """Whether a match as sent has more factions or players than any match may have, told by counting
    alone (before anything is parsed, so that an oversized body costs its sender, not the judge)."""
    if not isinstance(data, dict):
        return False
    factions = data.get("factions")
    if not isinstance(factions, list):
        return False
    if len(factions) > MAX_FACTIONS:
        return True
    players = 0
    for faction in factions:
        listed = faction.get("players") if isinstance(faction, dict) else None
        players += len(listed) if isinstance(listed, list) else int(listed is not None)
    return players > MAX_PARTICIPANTS


def future_date_problem(when: datetime | None, now: datetime | None) -> Problem | None:
    """M010 when `when` (naive UTC, as `NewMatch.when`) is more than `FUTURE_LEEWAY` after `now` (naive UTC
    or aware); None when either is None or the date is not ahead."""
    if when is None or now is None:
        return None
    if now.tzinfo is not None:
        now = now.astimezone(UTC).replace(tzinfo=None)
    if when - now <= FUTURE_LEEWAY:
        return None
    return Problem(
        "date",
        FUTURE_DATE,
        f"The date {when.strftime('%Y-%m-%d %H:%M')} (UTC) is in the future: a match is recorded once it"
        " has been played.",
    )


def read_match(data: Any, now: datetime | None = None) -> tuple[NewMatch | None, list[Problem]]:
    """Parse one match as sent (a dict in wire form) and judge it: the match (None when it cannot be
    parsed) and every problem found; an empty list means the match is fit to record, as far as can be
    told without the service's store. `now` (UTC) is the judge's clock: a date more than `FUTURE_LEEWAY`
    after it is M010; without it the date is not judged against time.

    The limits on factions and players are judged first, alone: a match past them gets that one problem."""
    if _over_limits(data):
        return None, [_too_big()]
    try:
        match = NewMatch.model_validate(data)
    except ValidationError as exc:
        problems = schema_problems(exc)
        stand_in = _stand_in(data, problems)
        if stand_in is not None:  # the match-wide rules still speak (a player twice, a faction empty)
            known = set(problems)
            problems += [p for p in stand_in.problems(now) if p not in known]
        return None, problems
    return match, match.problems(now)


_NEUTRAL = {"rank": 1, "points": "", "name": ""}


def _stand_in(data: Any, problems: list[Problem]) -> NewMatch | None:
    """`data` with each faction's unreadable rank, points or name (and an unreadable date) made neutral,
    parsed; None when something else is wrong too."""
    if not isinstance(data, dict) or not isinstance(data.get("factions"), list):
        return None
    copy = dict(data)
    factions = [dict(f) if isinstance(f, dict) else f for f in copy["factions"]]
    copy["factions"] = factions
    for problem in problems:
        parts = problem.field.split(".")
        if problem.field == "date":
            copy.pop("date", None)
        elif len(parts) == 3 and parts[0] == "factions" and parts[1].isdigit() and parts[2] in _NEUTRAL:
            i = int(parts[1])
            if i < len(factions) and isinstance(factions[i], dict):
                factions[i][parts[2]] = _NEUTRAL[parts[2]]
    try:
        return NewMatch.model_validate(copy)
    except ValidationError:
        return None


def schema_problems(exc: ValidationError) -> list[Problem]:
    """Pydantic's errors as problems: M008 for a rank, M009 for a bot faction with players, else M002."""
    out = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = tuple(err.get("loc", ()))
        out.append(_problem(loc, err.get("type", ""), str(err.get("msg", "invalid"))))
    return out


def _problem(loc: tuple, kind: str, msg: str) -> Problem:
    if not loc:
        return Problem("match", SCHEMA, "A match is a JSON object with a game, a weight and factions.")
    field = ".".join(str(p) for p in loc)
    head = loc[0]
    if head == "factions" and len(loc) >= 2 and isinstance(loc[1], int):
        n = loc[1] + 1
        part = str(loc[2]) if len(loc) >= 3 else ""
        if kind == _BOT_WITH_PLAYERS:
            return Problem(field, BOT_FACTION, f"Faction {n}: a bot faction carries no players.")
        if part == "rank":
            return Problem(
                field, BAD_RANK, f"Faction {n}: the rank must be a whole number from 1 to {MAX_RANK}."
            )
        if part == "points":
            return Problem(field, SCHEMA, f"Faction {n}: the points must be a number.")
        if part == "name":
            return Problem(
                field, SCHEMA, f"Faction {n}: the faction name is longer than {MAX_NAME} characters."
            )
        return Problem(field, SCHEMA, f"Faction {n}: {field}: {msg}.")
    if head == "date" and kind == _OLD_DATE:
        return Problem(
            "date", SCHEMA, f"The date is before {EARLIEST:%Y-%m-%d}: no match is dated that early."
        )
    if head == "date":
        return Problem(
            "date",
            SCHEMA,
            "The date cannot be read: write it as YYYY-MM-DD HH:MM (UTC), or leave it empty for now.",
        )
    if head == "weight":
        return Problem("weight", SCHEMA, f"The weight is one of {', '.join(w.value for w in Weight)}.")
    if head == "id":
        return Problem("external_id", SCHEMA, f"The external id: {msg}.")
    if head in ("name", "notes"):
        return Problem(head, SCHEMA, f"The {head}: {msg}.")
    return Problem(field, SCHEMA, f"{field}: {msg}.")
