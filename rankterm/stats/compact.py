"""The stats pages' matches from the mirror's compact rows: no JSON parsed, no pydantic model per match.

The mirror keeps, beside each held match, what the figures read of it (`Mirror.stat_rows`: number, date,
game, and per faction its rank, bot flag and players), indexed by player, game and date. Here those rows
become small immutable records (`CompactMatch`, `CompactFaction`, `CompactPlayer`, `CompactGame`) with the
attributes the rules read (`rules.MatchLike`), under the client's display rules as the parsed models would
have them (names and dates made display-safe, a player's label their display name, else username, else id).
The figures are then the same pure functions (`figures.player_figures`, ...): every rule stays written once.

A page reads a player's matches (`player_matches`), a game's (`game_matches`) or an evening's
(`matches_since`); each read is remembered while the mirror holds the same matches (`Mirror.matches_key`).
A held match the mirror could not read a rank from is left out, as the parsed models would leave it out.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from rankterm.stats.rules import faction_of
from rankterm.wire.localtime import parse_wire_date
from rankterm.wire.models import DATE_FORMAT
from rankterm.wire.text import display_safe

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient


class CompactPlayer(NamedTuple):
    """A player of a faction: the id as sent, and the label the parsed `Player.label` would give."""

    id: str
    label: str


class CompactGame(NamedTuple):
    id: int
    name: str


class CompactFaction(NamedTuple):
    rank: int
    bot: bool
    players: tuple[CompactPlayer, ...]


class CompactMatch(NamedTuple):
    """A held match as the figures read it (`rules.MatchLike`)."""

    number: int
    id: str
    external_id: str
    date: str
    game: CompactGame | None
    factions: tuple[CompactFaction, ...]

    @property
    def when(self) -> datetime | None:
        return parse_wire_date(self.date)


_KEPT = 16
_memo: weakref.WeakKeyDictionary[RankingClient, dict[tuple[Any, ...], list[CompactMatch]]] = (
    weakref.WeakKeyDictionary()
)
"""Per client: the last few reads (a player's, a game's matches), under the mirror's state and what."""


def _read(
    client: RankingClient, what: tuple[Any, ...], rows: Callable[[], list[tuple[Any, ...]]]
) -> list[CompactMatch]:
    key = (*client.mirror.matches_key(), client.display_safe, *what)
    memo = _memo.setdefault(client, {})
    if key not in memo:
        if len(memo) >= _KEPT:
            memo.pop(next(iter(memo)))
        memo[key] = compact_matches(rows(), safe=client.display_safe)
    return list(memo[key])


def player_matches(client: RankingClient, player_id: str) -> list[CompactMatch]:
    """The held matches `player_id` plays in (in a faction that is not a bot's), by number; no request.
    Enough for `player_figures(.., player_id)`, `head_to_head(.., player_id, ...)` and the player's history."""
    matches = _read(client, ("player", player_id), lambda: client.mirror.stat_rows(player=player_id))
    return [m for m in matches if faction_of(m, player_id) is not None]


def game_matches(client: RankingClient, game_id: int) -> list[CompactMatch]:
    """The held matches of one game, by number; no request. Enough for `game_figures(.., game_id)`."""
    return _read(client, ("game", game_id), lambda: client.mirror.stat_rows(game_id=game_id))


def matches_since(client: RankingClient, since: datetime) -> list[CompactMatch]:
    """The held matches dated at or after `since` (UTC when naive, as `figures.tonight` reads it), by number;
    no request. Enough for `tonight(.., since)`."""
    utc = since.astimezone(UTC).replace(tzinfo=None) if since.tzinfo is not None else since
    start = utc.strftime(DATE_FORMAT)
    matches = _read(client, ("since", start), lambda: client.mirror.stat_rows(since=start))
    return [m for m in matches if m.date >= start]


def compact_matches(rows: Iterable[tuple[Any, ...]], *, safe: bool = False) -> list[CompactMatch]:
    """Matches from the mirror's stats rows (`Mirror.stat_rows`, ordered by number, faction, seat); with
    `safe`, names and dates display-safe as `DISPLAY_SAFE` parsing makes them."""
    shown: dict[str, str] = {}
    labels: dict[tuple[str, str, str], CompactPlayer] = {}
    games: dict[tuple[int, str], CompactGame] = {}

    def text(value: str) -> str:
        if not safe or not value:
            return value
        out = shown.get(value)
        if out is None:
            out = shown[value] = display_safe(value)
        return out

    out: list[CompactMatch] = []
    number: int | None = None
    match_id = external_id = date = ""
    game: CompactGame | None = None
    factions: list[CompactFaction] = []
    players: list[CompactPlayer] = []
    faction = rank = -1
    bot = readable = False

    def close_faction() -> None:
        if faction >= 0:
            factions.append(CompactFaction(rank, bot, tuple(players)))

    for row in rows:
        n, mid, external, row_date, gid, gname, f, seat, row_rank, row_bot, pid, dn, un = row
        if n != number:
            close_faction()
            if number is not None and readable:
                out.append(CompactMatch(number, match_id, external_id, date, game, tuple(factions)))
            number, date, readable = n, text(row_date or ""), True
            match_id, external_id = mid or "", text(external or "")
            if gid is None:
                game = None
            else:
                name = text(gname or "")
                game = games.get((gid, name))
                if game is None:
                    game = games[(gid, name)] = CompactGame(gid, name)
            factions, faction = [], -1
        if f != faction:
            if faction >= 0:
                factions.append(CompactFaction(rank, bot, tuple(players)))
            faction, rank, bot, players = f, row_rank, bool(row_bot), []
            if row_rank is None:
                readable = False  # the parsed model would refuse it: a faction's rank is needed
        if seat >= 0 and pid is not None:
            who = (pid, dn or "", un or "")
            player = labels.get(who)
            if player is None:
                player = labels[who] = CompactPlayer(pid, text(who[1]) or text(who[2]) or pid)
            players.append(player)
    close_faction()
    if number is not None and readable:
        out.append(CompactMatch(number, match_id, external_id, date, game, tuple(factions)))
    return out
