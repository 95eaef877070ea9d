"""Pydantic models of the ranking service's resources, in wire form (WIRE.md).

Read side: lenient. Numbers may come as strings, booleans as 0/1, unknown keys are kept (``extra``),
optional objects may be null. ``to_wire()`` gives back exactly the documented keys, booleans as 0/1,
which is what the embedded service sends.

Write side (`NewMatch`, `NewFaction`): validated as SERVICE.md says, and ``to_wire()`` gives the body
rankterm sends. The validators also accept the other forms public clients send (`score`, one id instead
of a list, ``"players": ["bot"]``), so the embedded service parses incoming matches with the same models.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from rankterm.wire.fields import (
    DATE_FORMAT,
    NAME_GAME,
    NAME_VERSUS,
    WEIGHTS,
    Flag,
    Id,
    Number,
    Text,
    Weight,
    WireModel,
    parse_percent,
    parse_wire_date,
)
from rankterm.wire.new_match import BOT_MARKER, NewFaction, NewMatch

__all__ = [
    "BOT_MARKER",
    "DATE_FORMAT",
    "NAME_GAME",
    "NAME_VERSUS",
    "WEIGHTS",
    "NewFaction",
    "NewMatch",
    "Weight",
    "WireModel",
    "parse_percent",
]


class Game(WireModel):
    """A game of the group or of the catalogue. Only `id` is needed to refer to it in a new match."""

    id: int
    name: Text = ""
    weight: Text = ""
    weight_label: Text = ""
    thumbnail: Text = ""
    medium_image: Text = ""
    bgg_id_game: int | None = None

    @field_validator("bgg_id_game", mode="before")
    @classmethod
    def _empty_bgg(cls, value: Any) -> Any:
        return None if value in ("", 0, "0") else value


class Player(WireModel):
    """A member of the group; a ghost player has no account and a display name starting with `*`."""

    id: Id
    ghost: Flag = False
    username: Text = ""
    display_name: Text = ""
    icon: Text = ""

    @property
    def label(self) -> str:
        return self.display_name or self.username or self.id


class Faction(WireModel):
    """A faction of a recorded match, as read."""

    rank: int
    name: Text = ""
    points: Number = None
    players: list[Player] = Field(default_factory=list)
    count_players: int = 0
    winner: Flag = False
    bot: Flag = False

    @field_validator("players", mode="before")
    @classmethod
    def _players_list(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, dict) else value


class Match(WireModel):
    """A recorded match. `number` counts the group's matches in the order they were played (a match dated
    earlier moves the later ones up a number; its `id` stays)."""

    id: Id = ""
    external_id: Text = ""
    date: Text = ""
    registration_date: Text = ""
    number: int = 0
    summary: Text = ""
    type: Text = ""
    draw: Flag = False
    weight: Text = ""
    weight_label: Text = ""
    game: Game | None = None
    notes: Text = ""
    factions: list[Faction] = Field(default_factory=list)

    @property
    def when(self) -> datetime | None:
        """The match's date (naive UTC), or None when it is not a date of the wire."""
        return parse_wire_date(self.date)

    @property
    def winners(self) -> list[Faction]:
        return [f for f in self.factions if f.winner]


class RankingRow(WireModel):
    """One line of the standings after a match."""

    player: Player
    ree: Number = None
    delta_ree: Number = None
    position: int = 0
    delta_position: int = 0
    belt: Text = ""
    belt_label: Text = ""
    title: Text = ""
    title_label: Text = ""
    status: Text = ""
    status_label: Text = ""


class Subset(WireModel):
    """A named part of the group: the main subset (every match) or one per game, or custom.

    `first_match` and `last_match` are whole Matches, as the matches pages give them (WIRE.md "Subset"),
    or None while the subset has no match. Read leniently: a brief ``{id, number, date}`` there reads as a
    Match holding just those (the rest at its defaults: no game, no factions); an end that cannot be read as
    a Match at all is None rather than a failed subset.
    """

    id: Id
    name: Text = ""
    type: Text = ""
    creation_date: Text = ""
    is_main: Flag = False
    is_custom: Flag = False
    icon: Text = ""
    game: Game | None = None
    count_matches: int = 0
    first_match: Match | None = None
    last_match: Match | None = None

    @field_validator("first_match", "last_match", mode="wrap")
    @classmethod
    def _unreadable_end_is_none(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            return None

    @property
    def first_number(self) -> int | None:
        """The number of the subset's first match; None while it has none."""
        return self.first_match.number if self.first_match is not None else None

    @property
    def last_number(self) -> int | None:
        """The number of the subset's last match; None while it has none."""
        return self.last_match.number if self.last_match is not None else None


QUOTA_FIELDS: tuple[str, ...] = (
    "callsPerYear",
    "callsPerHour",
    "matchesPerYear",
    "matchesPerDay",
    "matchesPerHour",
    "rankingCallsPerYear",
    "rankingCallsPerDay",
    "rankingCallsPerHour",
    "apiCreatedGames",
)


class Quota(WireModel):
    """Quota usage of the current client, each field a percentage string such as "12%"."""

    calls_per_year: Text = "0%"
    calls_per_hour: Text = "0%"
    matches_per_year: Text = "0%"
    matches_per_day: Text = "0%"
    matches_per_hour: Text = "0%"
    ranking_calls_per_year: Text = "0%"
    ranking_calls_per_day: Text = "0%"
    ranking_calls_per_hour: Text = "0%"
    api_created_games: Text = "0%"

    def usage(self) -> dict[str, float | None]:
        """Each quota field (wire name, in wire order, then any extra key) as a percentage number."""
        wire = self.to_wire()
        wire.update(self.model_extra or {})
        return {key: parse_percent(value) for key, value in wire.items()}


class MatchStatus(WireModel):
    """Counts of the matches recorded through the interface, by stage."""

    queued: int = 0
    waiting: int = 0
    added: int = 0
    processed: int = 0
    total: int = 0


class ServiceStatus(WireModel):
    """The service's status: whatever keys come back are kept; a screen shows them all."""

    def items(self) -> list[tuple[str, Any]]:
        return list((self.model_extra or {}).items())


class Page(WireModel):
    """One page of a paginated list; each kind of page names the type of its rows (`data`).

    Not a generic model: pydantic builds the whole validator of a generic model's origin when it is first
    parametrized (`Page[Player]`), at import, which a deferred build of each page kind does not."""

    page: int = 1
    total_pages: int = 1
    rows_for_page: int = 0
    data: list[Any] = Field(default_factory=list)

    @field_validator("data", mode="before")
    @classmethod
    def _null_data(cls, value: Any) -> Any:
        return [] if value is None else value

    @property
    def total(self) -> int:
        return 0


class PlayersPage(Page):
    data: list[Player] = Field(default_factory=list)
    total_players: int = 0

    @property
    def total(self) -> int:
        return self.total_players


class MatchesPage(Page):
    data: list[Match] = Field(default_factory=list)
    total_matches: int = 0

    @property
    def total(self) -> int:
        return self.total_matches


class RankingsPage(Page):
    """Standings after `match` in `subset`. `totalMatches` counts the subset's matches up to it."""

    data: list[RankingRow] = Field(default_factory=list)
    total_matches: int = 0
    subset: Subset | None = None
    match: Match | None = None

    @property
    def total(self) -> int:
        return self.total_matches


class MatchError(WireModel):
    code: Text = ""
    message: Text = ""


class MatchOutcome(WireModel):
    """One match of a batch, as the service judged it."""

    index: int = 0
    id: Text = ""
    name: Text = ""
    errors: list[MatchError] = Field(default_factory=list)


class NewMatchAnswer(WireModel):
    """The answer to `POST matches/match`: match by match, accepted or rejected."""

    total: int = 0
    accepted_count: int = 0
    rejected_count: int = 0
    accepted: list[MatchOutcome] = Field(default_factory=list)
    rejected: list[MatchOutcome] = Field(default_factory=list)
    dryrun: Flag = False

    @classmethod
    def combine(cls, answers: Iterable[NewMatchAnswer], sizes: Iterable[int]) -> NewMatchAnswer:
        """Join the answers to consecutive batches into one, with indexes counted across the whole."""
        out = cls()
        offset = 0
        for answer, size in zip(answers, sizes, strict=True):
            out.dryrun = out.dryrun or answer.dryrun
            out.accepted += [o.model_copy(update={"index": o.index + offset}) for o in answer.accepted]
            out.rejected += [o.model_copy(update={"index": o.index + offset}) for o in answer.rejected]
            offset += size
        out.total = offset
        out.accepted_count = len(out.accepted)
        out.rejected_count = len(out.rejected)
        return out


class ExistsAnswer(BaseModel):
    """`matches/match/exists`: `{"exists": true}`, a bare boolean, or 0/1 (WIRE.md)."""

    model_config = ConfigDict(defer_build=True)

    exists: bool

    @model_validator(mode="before")
    @classmethod
    def _shapes(cls, value: Any) -> Any:
        if isinstance(value, bool | int) or value in ("0", "1", "true", "false"):
            return {"exists": value}
        if isinstance(value, dict) and "exists" not in value:
            for key in ("exist", "result", "value"):
                if key in value:
                    return {"exists": value[key]}
        return value
