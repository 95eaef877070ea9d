"""The stats pages' matches from the mirror's compact rows: no JSON parsed, no pydantic model per match.

The mirror keeps, beside each held match, what the figures read of it (`Mirror.stat_rows`: number, date,
game, and per faction its rank, bot flag and players), indexed by player, game and date. Here those rows
become small immutable records (`CompactMatch`, `CompactFaction`, `CompactPlayer`, `CompactGame`) with the
attributes the rules read (`rules.MatchLike`), under the group's display rules as the parsed models would
have them (names and dates made display-safe, a player's label their display name, else username, else id).
The figures are then the same pure functions (`figures.player_figures`, ...): every rule stays written once.

A page reads a player's matches (`player_matches`), a game's (`game_matches`) or an evening's
(`matches_since`); a game's figures are counted in SQL with no match built (`held_game_figures`: the same
rules, over each seat's result kept with the rows). Each read is remembered while the mirror holds the same
matches (`Mirror.matches_key`). A held match whose factions could not all be read (no rank) is left out, as
parsing leaves it out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from rankterm.stats.rules import faction_of
from rankterm.stats.source import kept_out_of_collections
from rankterm.wire.localtime import parse_wire_date
from rankterm.wire.models import DATE_FORMAT
from rankterm.wire.text import display_safe

if TYPE_CHECKING:
    from rankterm.mirror import GameRows, Group, StatRow
    from rankterm.stats.results import GameFigures

T = TypeVar("T")


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
"""Reads remembered per group (a player's, a game's matches; a game's figures), the oldest dropped first."""


def _remembered(group: Group, slot: str, key: tuple[Any, ...], make: Callable[[], T]) -> T:
    """`make()`, remembered in the group's memo under `key` (the mirror's state, first the count of held
    matches, and what), the last `_KEPT`. In a big group it is made with the cyclic collector paused and
    left frozen (`source.kept_out_of_collections`): a game's 20,000 matches read set off full collections,
    each walking the whole process with the GIL held, 0.3-0.9 s of a frozen event loop at 100,000 matches."""
    memo: dict[tuple[Any, ...], Any] = group.memo.slot(slot, dict)
    if key not in memo:
        if len(memo) >= _KEPT:
            memo.pop(next(iter(memo)))
        with kept_out_of_collections(key[0] if key and isinstance(key[0], int) else 0):
            memo[key] = make()
    return memo[key]


def _read(group: Group, what: tuple[Any, ...], rows: Callable[[], Iterable[StatRow]]) -> list[CompactMatch]:
    key = (*group.mirror.held.matches_key(), group.display_safe, *what)
    return list(
        _remembered(group, "stats.compact", key, lambda: compact_matches(rows(), safe=group.display_safe))
    )


def player_matches(group: Group, player_id: str) -> list[CompactMatch]:
    """The held matches `player_id` plays in (in a faction that is not a bot's), by number; no request.
    Enough for `player_figures(.., player_id)`, `head_to_head(.., player_id, ...)` and the player's history."""
    matches = _read(group, ("player", player_id), lambda: group.mirror.stats.stat_rows(player=player_id))
    return [m for m in matches if faction_of(m, player_id) is not None]


def game_matches(group: Group, game_id: int) -> list[CompactMatch]:
    """The held matches of one game, by number; no request. Enough for `game_figures(.., game_id)`."""
    return _read(group, ("game", game_id), lambda: group.mirror.stats.stat_rows(game_id=game_id))


def matches_since(group: Group, since: datetime) -> list[CompactMatch]:
    """The held matches dated at or after `since` (UTC when naive, as `figures.tonight` reads it), by number;
    no request. Enough for `tonight(.., since)`."""
    utc = since.astimezone(UTC).replace(tzinfo=None) if since.tzinfo is not None else since
    start = utc.strftime(DATE_FORMAT)
    matches = _read(group, ("since", start), lambda: group.mirror.stats.stat_rows(since=start))
    return [m for m in matches if m.date >= start]


def held_game_figures(group: Group, game_id: int) -> GameFigures:
    """`figures.game_figures` over the held matches of one game, computed from the stats rows: the counts in
    SQL, each player's wins and streaks from their seats in the order played (no match built); no request."""
    key = (*group.mirror.held.matches_key(), group.display_safe, game_id)
    return _remembered(
        group,
        "stats.game-figures",
        key,
        lambda: game_figures_of(group.mirror.stats.stat_game(game_id), game_id, safe=group.display_safe),
    )


def game_figures_of(rows: GameRows, game_id: int, *, safe: bool = False) -> GameFigures:
    """A game's figures from the stats rows' counts and seats (`StatRows.stat_game`; the rules of
    `figures.game_figures`)."""
    from rankterm.stats.results import GameFigures, Streak, Tally, best_first  # the figures' types: on use

    counts = rows.counts
    played, factions, name = counts.played, counts.factions, counts.name
    first_date, last_date = counts.first_date, counts.last_date
    shown = display_safe if safe else str
    labels: dict[tuple[str, str, str], str] = {}
    names: dict[str, str] = {}
    wins: dict[str, int] = {}
    counted: dict[str, int] = {}  # player -> their matches so far
    last: dict[str, int] = {}  # player -> number of their latest match so far
    run: dict[str, tuple[int, int]] = {}  # player -> (wins in a row up to now, first match of the run)
    best: dict[str, tuple[int, int, int, int]] = {}  # player -> (length, first, last, position of last)
    position, number = -1, None
    for seat in rows.seats:
        pid, dn, un, n, won = seat.player, seat.display_name, seat.username, seat.number, seat.won
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
        key=best_first,
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
        bot_matches=counts.bot_matches,
        bot_wins=counts.bot_wins,
        top_winner=top,
        longest_streak=streak[0] if streak is not None else None,
        first_date=shown(first_date) if first_date is not None else None,
        last_date=shown(last_date) if last_date is not None else None,
    )


def compact_matches(rows: Iterable[StatRow], *, safe: bool = False) -> list[CompactMatch]:
    """Matches from the mirror's stats rows (`StatRows.stat_rows`, ordered by number, faction, seat); with
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
        n, f, seat, pid = row.number, row.faction, row.seat, row.player
        if n != number:
            close_faction()
            if number is not None and readable:
                out.append(CompactMatch(number, match_id, external_id, date, game, tuple(factions)))
            number, date, readable = n, text(row.date or ""), True
            match_id, external_id = row.id or "", text(row.external_id or "")
            gid = row.game_id
            if gid is None:
                game = None
            else:
                name = text(row.game_name or "")
                game = games.get((gid, name))
                if game is None:
                    game = games[(gid, name)] = CompactGame(gid, name)
            factions, faction = [], -1
        if f != faction:
            if faction >= 0:
                factions.append(CompactFaction(rank, bot, tuple(players)))
            faction, rank, bot, players = f, -1 if row.rank is None else row.rank, bool(row.bot), []
            if row.rank is None:
                readable = False  # the parsed model would refuse it: a faction's rank is needed
        if seat >= 0 and pid is not None:
            who = (pid, row.display_name or "", row.username or "")
            player = labels.get(who)
            if player is None:
                player = labels[who] = CompactPlayer(pid, text(who[1]) or text(who[2]) or pid)
            players.append(player)
    close_faction()
    if number is not None and readable:
        out.append(CompactMatch(number, match_id, external_id, date, game, tuple(factions)))
    return out
