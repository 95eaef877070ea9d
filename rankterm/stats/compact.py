"""The stats pages' matches from the mirror's compact rows: no JSON parsed, no pydantic model per match.

The mirror keeps, beside each held match, what the figures read of it (`Mirror.stat_rows`: number, date,
game, and per faction its rank, bot flag and players), indexed by player, game and date. Here those rows
become small immutable records (`CompactMatch`, `CompactFaction`, `CompactPlayer`, `CompactGame`) with the
attributes the rules read (`rules.MatchLike`), under the client's display rules as the parsed models would
have them (names and dates made display-safe, a player's label their display name, else username, else id).
The figures are then the same pure functions (`figures.player_figures`, ...): every rule stays written once.

A page reads a player's matches (`player_matches`), a game's (`game_matches`) or an evening's
(`matches_since`); a game's figures are counted in SQL with no match built (`held_game_figures`: the same
rules, over each seat's result kept with the rows). Each read is remembered while the mirror holds the same
matches (`Mirror.matches_key`). A held match whose factions could not all be read (no rank) is left out, as
parsing leaves it out.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from rankterm.stats.results import GameFigures, Streak, Tally
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


_games: weakref.WeakKeyDictionary[RankingClient, dict[tuple[Any, ...], GameFigures]] = (
    weakref.WeakKeyDictionary()
)
"""Per client: the last few games' figures, under the mirror's state and the game."""


def held_game_figures(client: RankingClient, game_id: int) -> GameFigures:
    """`figures.game_figures` over the held matches of one game, computed from the stats rows: the counts in
    SQL, each player's wins and streaks from their seats in the order played (no match built); no request."""
    key = (*client.mirror.matches_key(), client.display_safe, game_id)
    memo = _games.setdefault(client, {})
    if key not in memo:
        if len(memo) >= _KEPT:
            memo.pop(next(iter(memo)))
        memo[key] = game_figures_of(*client.mirror.stat_game(game_id), game_id, safe=client.display_safe)
    return memo[key]


def game_figures_of(
    counts: tuple[Any, ...], seats: Iterable[tuple[Any, ...]], game_id: int, *, safe: bool = False
) -> GameFigures:
    """A game's figures from `Mirror.stat_game`'s counts and seats (the rules of `figures.game_figures`)."""
    played, factions, bot_matches, bot_wins, name, first_date, last_date = counts
    shown = display_safe if safe else str
    labels: dict[tuple[str, str, str], str] = {}
    names: dict[str, str] = {}
    wins: dict[str, int] = {}
    counted: dict[str, int] = {}  # player -> their matches so far
    last: dict[str, int] = {}  # player -> number of their latest match so far
    run: dict[str, tuple[int, int]] = {}  # player -> (wins in a row up to now, first match of the run)
    best: dict[str, tuple[int, int, int, int]] = {}  # player -> (length, first, last, position of last)
    position, number = -1, None
    for pid, dn, un, n, won in seats:
        if n != number:
            position, number = position + 1, n
        who = (pid, dn or "", un or "")
        label = labels.get(who)
        if label is None:
            label = labels[who] = (
                (shown(who[1]) if who[1] else "") or (shown(who[2]) if who[2] else "") or pid
            )
        names[pid] = label
        if last.get(pid) == n:
            continue  # one player in two factions: counted once
        last[pid] = n
        counted[pid] = counted.get(pid, 0) + 1
        if won:
            wins[pid] = wins.get(pid, 0) + 1
            length, start = run.get(pid, (0, n))
            length, start = length + 1, start if length else n
            run[pid] = (length, start)
            if length > best.get(pid, (0,))[0]:
                best[pid] = (length, start, n, position)
        else:
            run[pid] = (0, n)
    tallies = [Tally(q, names[q], wins.get(q, 0), counted[q]) for q in counted]
    top = min(
        (t for t in tallies if t.wins > 0),
        key=lambda t: (-t.wins, -(t.win_rate or 0.0), t.played, t.name.casefold(), t.player_id),
        default=None,
    )
    streak = min(
        ((Streak(q, names[q], b[0], b[1], b[2]), b[3]) for q, b in best.items()),
        key=lambda s: (-s[0].length, s[1], s[0].player_id),
        default=None,
    )
    return GameFigures(
        game_id=game_id,
        name=shown(name) if name else "",
        played=played,
        players=len(counted),
        average_factions=factions / played if played else None,
        bot_matches=bot_matches,
        bot_wins=bot_wins,
        top_winner=top,
        longest_streak=streak[0] if streak is not None else None,
        first_date=shown(first_date) if first_date is not None else None,
        last_date=shown(last_date) if last_date is not None else None,
    )


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
