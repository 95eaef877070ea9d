"""Who and what a file's names are in the group: its people mapped to the group's players, its games to the
group's games (or the catalogue's, or new ones), and the ``--map`` file that settles what names cannot.

People go by the map file, then the exact name, then the name ignoring case and accents, then the BGG
username, else a new ghost; games by BGG id, then name, in the group, then in the catalogue, else a new game.
Two players that fit one name equally are a question for the map file, not a guess. The order in full and the
map file's shape: docs/importing.md ("Who and what a file's names are", "The map file").
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rankterm.importing.plays import Seat, SourceGame, fold
from rankterm.outbox.ghosts import GHOST_MARK, check_name
from rankterm.wire.errors import BadRequest, ConfigError, NotFound
from rankterm.wire.models import Game, Player

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient

MAX_GAME_NAME = 100


@dataclass(frozen=True)
class MapFile:
    """The ``--map`` file: source names to the group's players, and what games the file does not tell."""

    players: dict[str, str] = field(default_factory=dict)
    cooperative: frozenset[str] = frozenset()
    lowest_wins: frozenset[str] = frozenset()

    def target(self, *names: str) -> str | None:
        """The map's answer for the first of `names` it holds (exact, then folded)."""
        for name in names:
            if name and name in self.players:
                return self.players[name]
        folded = {fold(k): v for k, v in self.players.items()}
        for name in names:
            if name and fold(name) in folded:
                return folded[fold(name)]
        return None

    def game(self, game: SourceGame) -> SourceGame:
        """`game` with what the map says of it (co-operative, lowest wins)."""
        name = fold(game.name)
        return SourceGame(
            game.name,
            game.bgg_id,
            cooperative=game.cooperative or name in self.cooperative,
            lowest_wins=game.lowest_wins or name in self.lowest_wins,
        )


def load_map(path: Path | str) -> MapFile:
    """Read a map file; `ConfigError` naming the file (and the line) when it cannot be used."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(path, f"cannot be read ({exc.strerror or exc}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, f"{exc}.") from None
    players = data.get("players", {})
    games = data.get("games", {})
    if not isinstance(players, dict) or not all(isinstance(v, str) for v in players.values()):
        raise ConfigError(path, '[players] maps names to names or ids: "Bobby" = "Bob".')
    if not isinstance(games, dict):
        raise ConfigError(path, "[games] holds cooperative = [...] and lowest_wins = [...].")

    def names(key: str) -> frozenset[str]:
        value = games.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(path, f'[games] {key} is a list of game names: {key} = ["Golf"].')
        return frozenset(fold(v) for v in value)

    return MapFile(
        {str(k): v.strip() for k, v in players.items()}, names("cooperative"), names("lowest_wins")
    )


@dataclass
class PlayerChoice:
    """Who a source name is in the group: `how` says why (a line of the dry run's players table)."""

    source: str
    how: str
    """"same name", "same name (case, accents)", "BGG username", "map file", "map file: new", "new ghost"."""
    player_id: str
    name: str
    """The group player's name (its display name), or the new ghost's name."""
    new: bool = False
    plays: int = 0


class Unresolved(Exception):
    """A seat no player can be given to; the message says why, for the skipped table."""


def _bare(display_name: str) -> str:
    return display_name[1:] if display_name.startswith(GHOST_MARK) else display_name


class PlayerMapping:
    """Seats to the group's players (see the module docstring); `new_id()` names a proposed ghost."""

    def __init__(self, group: list[Player], map_file: MapFile, new_id: Callable[[], str]) -> None:
        self.map_file = map_file
        self.new_id = new_id
        self.by_id = {p.id: p for p in group}
        self.exact: dict[str, list[Player]] = {}
        self.folded: dict[str, list[Player]] = {}
        self.usernames: dict[str, list[Player]] = {}
        for p in group:
            for name in {p.display_name.strip(), _bare(p.display_name).strip()}:
                self.exact.setdefault(name, []).append(p)
            self.folded.setdefault(fold(_bare(p.display_name)), []).append(p)
            if p.username:
                self.usernames.setdefault(p.username.casefold(), []).append(p)
        self.chosen: dict[str, PlayerChoice] = {}
        """By seat key: one choice per person of the file."""
        self.new: dict[str, PlayerChoice] = {}
        """Proposed ghosts, by folded name."""

    def resolve(self, seat: Seat) -> PlayerChoice:
        """The group player (or proposed ghost) of `seat`; raises `Unresolved` with the reason."""
        known = self.chosen.get(seat.key)
        if known is not None:
            return known
        choice = self._resolve(seat)
        self.chosen[seat.key] = choice
        return choice

    def _resolve(self, seat: Seat) -> PlayerChoice:
        label = seat.name or seat.username
        target = self.map_file.target(seat.name, seat.username)
        if target is not None:
            if target in self.by_id:
                return self._found(label, self.by_id[target], "map file")
            found = self._by_name(target)
            return (
                self._found(label, found, "map file")
                if found
                else self._propose(label, target, "map file: new")
            )
        if seat.anonymous:
            raise Unresolved(f"an anonymous player ({label or 'no name'}): say who in the map file")
        if not label:
            raise Unresolved("a player with no name: give the play's people names, or map them")
        for how, candidates in (
            ("same name", self.exact.get(seat.name, [])),
            ("same name (case, accents)", self.folded.get(fold(seat.name), [])),
            ("BGG username", self.usernames.get(seat.username.casefold(), []) if seat.username else []),
        ):
            if len(candidates) == 1:
                return self._found(label, candidates[0], how)
            if len(candidates) > 1:
                names = ", ".join(p.display_name for p in candidates[:3])
                raise Unresolved(f"{label!r} could be any of {names}: say which in the map file")
        return self._propose(label, label, "new ghost")

    def _by_name(self, name: str) -> Player | None:
        for candidates in (self.exact.get(name.strip(), []), self.folded.get(fold(_bare(name)), [])):
            if len(candidates) == 1:
                return candidates[0]
        return None

    @staticmethod
    def _found(source: str, player: Player, how: str) -> PlayerChoice:
        return PlayerChoice(source, how, player.id, player.display_name)

    def _propose(self, source: str, name: str, how: str) -> PlayerChoice:
        try:
            name = check_name(_bare(name))
        except ValueError as exc:
            raise Unresolved(
                f"{source!r}: {str(exc).rstrip('.').lower()}; map it to a shorter name"
            ) from None
        held = self.new.get(fold(name))
        if held is None:
            held = self.new[fold(name)] = PlayerChoice(source, how, self.new_id(), name, new=True)
        return held


@dataclass
class GameChoice:
    """What a source game is in the group: `how` says why (a line of the dry run's games table)."""

    source: str
    bgg_id: int | None
    how: str
    """"group (BGG id)", "group (name)", "catalogue (BGG id)", "catalogue (name)", "new"."""
    game_id: int
    """The service's id; a negative stand-in for a game to make (`new`)."""
    name: str
    new: bool = False
    plays: int = 0


class GameMapping:
    """Source games to the service's (see the module docstring); one search a game name, at most."""

    def __init__(self, client: RankingClient, group: list[Game]) -> None:
        self.client = client
        self.group = group
        self.chosen: dict[tuple[int | None, str], GameChoice | str] = {}

    async def resolve(self, game: SourceGame) -> GameChoice:
        """The service's game for `game`, or a proposed one; raises `Unresolved` with the reason."""
        key = (game.bgg_id, fold(game.name))
        held = self.chosen.get(key)
        if held is None:
            try:
                held = await self._resolve(game)
            except Unresolved as exc:
                held = str(exc)
            self.chosen[key] = held
        if isinstance(held, str):
            raise Unresolved(held)
        return held

    async def _resolve(self, game: SourceGame) -> GameChoice:
        name = game.name.strip()
        if not name and game.bgg_id is None:
            raise Unresolved("no game")
        if len(name) > MAX_GAME_NAME:
            raise Unresolved(f"the game's name is longer than {MAX_GAME_NAME} characters")
        found = self._pick(self.group, game)
        if found is not None:
            return GameChoice(name, game.bgg_id, f"group ({found[1]})", found[0].id, found[0].name)
        if len(fold(name)) >= 2:
            try:
                catalogue = await self.client.search_games(name)
            except (BadRequest, NotFound):  # a name the search refuses: no catalogue game, then
                catalogue = []
            found = self._pick(catalogue, game)
            if found is not None:
                return GameChoice(name, game.bgg_id, f"catalogue ({found[1]})", found[0].id, found[0].name)
        if not name:
            raise Unresolved(f"BGG id {game.bgg_id} is not in the catalogue and the file gives no name")
        stand_in = -(len([c for c in self.chosen.values() if isinstance(c, GameChoice) and c.new]) + 1)
        return GameChoice(name, game.bgg_id, "new", stand_in, name, new=True)

    @staticmethod
    def _pick(games: list[Game], game: SourceGame) -> tuple[Game, str] | None:
        if game.bgg_id is not None:
            for g in games:
                if g.bgg_id_game == game.bgg_id:
                    return g, "BGG id"
        wanted = fold(game.name)
        for g in games:
            if wanted and fold(g.name) == wanted:
                return g, "name"
        return None
