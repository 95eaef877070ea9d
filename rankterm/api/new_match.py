"""The write side: a new match and its factions, as SERVICE.md defines them and as rankterm sends them.

The validators also accept the other forms public clients send (`score` for `points`, one id instead of a
list, `"players": ["bot"]` for a bot faction), so the embedded service parses incoming matches with these
same models. `NewMatch.problems()` lists what makes a match unfit to record, for the form and the service.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rankterm.api.text import ascii_digits
from rankterm.api.wire import DATE_FORMAT, Weight

BOT_MARKER = "bot"


class NewFaction(BaseModel):
    """A faction of a new match (SERVICE.md). A bot faction carries rank, points and name only."""

    model_config = ConfigDict(extra="ignore")

    players: list[str] = Field(default_factory=list)
    rank: int = Field(ge=1, le=10_000)
    points: str = ""
    name: str = Field(default="", max_length=200)
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
        return data

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
            raise ValueError("a bot faction carries no players")
        return self

    def to_wire(self) -> dict[str, Any]:
        if self.bot:
            return {"rank": self.rank, "points": self.points, "name": self.name, "bot": True}
        return {"players": list(self.players), "rank": self.rank, "points": self.points, "name": self.name}


class NewMatch(BaseModel):
    """A match to record (SERVICE.md "New match"); `external_id` travels as `id`, read back as `externalId`."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    game: int | None = None
    weight: Weight
    name: str = Field(default="", max_length=200)
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
        for fmt in (DATE_FORMAT, "%Y-%m-%d %H:%M", "%Y-%m-%d"):
            try:
                return datetime.strptime(value.strip(), fmt).strftime(DATE_FORMAT)
            except ValueError:
                continue
        raise ValueError("date must look like YYYY-MM-DD HH:MM:SS")

    def problems(self) -> list[tuple[str, str]]:
        """What makes this match unfit to record, as (field, one sentence); empty when it is fine.

        Fields: ``game``, ``factions``, ``factions.<i>.players``, ``factions.<i>.rank``. Shared by the
        match form (inline errors) and the embedded service (M-codes).
        """
        out: list[tuple[str, str]] = []
        if self.game is None:
            out.append(("game", "Choose a game."))
        if len(self.factions) < 2:
            out.append(("factions", "A match needs at least two factions."))
        seen: set[str] = set()
        for i, faction in enumerate(self.factions):
            if not faction.bot and not faction.players:
                out.append((f"factions.{i}.players", f"Faction {i + 1} has no players."))
            for pid in faction.players:
                if pid in seen:
                    out.append((f"factions.{i}.players", f"Faction {i + 1}: a player appears twice."))
                seen.add(pid)
        if self.factions and all(f.bot for f in self.factions):
            out.append(("factions", "A match needs at least one faction of players."))
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
