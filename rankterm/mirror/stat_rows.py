"""The stats rows read back as typed records: a page's rows by player, game or date (`StatRow`), one game's
counts and seats (`GameRows`), and who and what the held matches name (`StatRoster`); read through the
indexes, no match's JSON parsed. stats/ reads their fields by name. See docs/design/mirror.md.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rankterm.mirror.file import MirrorFile


class StatRow(NamedTuple):
    """One seat of a held match (a player of a faction, or a faction without players: a bot's)."""

    number: int
    id: str
    external_id: str
    date: str
    game_id: int | None
    game_name: str
    faction: int
    seat: int
    """The player's place in the faction; -1 for a faction without players."""
    rank: int | None
    bot: int
    player: str | None
    display_name: str | None
    username: str | None


_stat_row = StatRow._make


class GameCounts(NamedTuple):
    """One game's held matches whose every faction could be read."""

    played: int
    factions: int
    """Factions over all of them."""
    bot_matches: int
    bot_wins: int
    """Matches a bot faction won alone at the best rank."""
    name: str | None
    """The game's name in the newest by number."""
    first_date: str | None
    last_date: str | None


class GameSeat(NamedTuple):
    """A player's seat in one of a game's matches, in the order played."""

    player: str
    display_name: str | None
    username: str | None
    number: int
    won: int
    """1 when their faction is alone at the best rank."""


class GameRows(NamedTuple):
    counts: GameCounts
    seats: list[GameSeat]


class RosterPlayer(NamedTuple):
    """A player as their newest held match names them, and how many held matches they play in."""

    player: str
    display_name: str | None
    username: str | None
    played: int


class RosterGame(NamedTuple):
    game_id: int
    name: str | None
    played: int


class StatRoster(NamedTuple):
    """Who and what the held matches name: players and games newest first, and the newest (date, number)."""

    players: list[RosterPlayer]
    games: list[RosterGame]
    newest: tuple[str, int] | None


class StatRows:
    """The stats rows of the mirror file, read for the stats pages."""

    def __init__(self, file: MirrorFile) -> None:
        self._file = file

    def stat_rows(
        self,
        *,
        player: str | None = None,
        game_id: int | None = None,
        since: str | None = None,
        after: int | None = None,
    ) -> list[StatRow]:
        """The stats rows of the held matches, by number, faction and seat: every match (one
        row per player of each faction, or one for a faction without players, a bot's), narrowed to those
        `player` plays in a faction that is not a bot's, of one game, dated at or after `since`
        ("YYYY-MM-DD HH:MM:SS"), or numbered above `after`. Read through indexes; no JSON parsed."""
        sql = (
            "SELECT m.number, m.id, m.external_id, m.date, m.game_id, m.game_name, s.faction, s.seat, s.rank, s.bot, s.player,"
            " s.display_name, s.username FROM stat_matches AS m JOIN stat_seats AS s ON s.number = m.number"
            " WHERE m.readable"
        )
        args: list[Any] = []
        if player is not None:
            sql, args = (
                sql + " AND m.number IN (SELECT number FROM stat_seats WHERE player = ?)",
                [*args, player],
            )
        if game_id is not None:
            sql, args = sql + " AND m.game_id = ?", [*args, game_id]
        if since is not None:
            sql, args = sql + " AND m.date >= ?", [*args, since]
        if after is not None:
            sql, args = sql + " AND m.number > ?", [*args, after]
        sql += " ORDER BY m.number, s.faction, s.seat"
        return self._file.guard(lambda: list(map(_stat_row, self._file.db.execute(sql, args))), [])

    def stat_game(self, game_id: int) -> GameRows:
        """One game's held matches whose every faction could be read, from the stats rows: (how many, their
        factions, how many with a bot faction, how many a bot faction won alone at the best rank, the game's
        name in the newest by number, the first and the last date in the order played), and the seats of every
        player of a faction that is not a bot's: (player id, display name, username, match number, 1 when
        their faction is alone at the best rank), in the order played (date, number), then faction and seat."""
        where = "FROM stat_matches WHERE game_id = ? AND readable"

        def read() -> GameRows:
            counts = self._file.db.execute(
                "SELECT count(*), coalesce(sum(factions), 0), coalesce(sum(bots > 0), 0),"
                f" coalesce(sum(at_best = 1 AND bot_at_best = 1), 0) {where}",
                (game_id,),
            ).fetchone()
            ends = [
                self._file.db.execute(sql, (game_id,)).fetchone()
                for sql in (
                    f"SELECT game_name {where} ORDER BY number DESC LIMIT 1",
                    f"SELECT date {where} ORDER BY date, number LIMIT 1",
                    f"SELECT date {where} ORDER BY date DESC, number DESC LIMIT 1",
                )
            ]
            seats = self._file.db.execute(
                "SELECT s.player, s.display_name, s.username, m.number, s.rank = m.best AND m.at_best = 1"
                " FROM stat_matches AS m JOIN stat_seats AS s ON s.number = m.number"
                " WHERE m.game_id = ? AND m.readable AND s.player IS NOT NULL"
                " ORDER BY m.date, m.number, s.faction, s.seat",
                (game_id,),
            ).fetchall()
            totals = GameCounts(*counts, *(end[0] if end else None for end in ends))
            return GameRows(totals, [GameSeat(*seat) for seat in seats])

        nothing = GameRows(GameCounts(0, 0, 0, 0, None, None, None), [])
        return self._file.guard(read, nothing)

    def stat_roster(self) -> StatRoster:
        """Who and what the held matches name, from the stats rows (every held match, read or not): each
        player of a faction that is not a bot's (player id, display name, username as their newest match by
        number has them, first faction and seat there; how many held matches they play in), newest first by
        that match; each game (game id, name in its newest match, how many held matches), newest first; and
        the (date, number) of the newest match by date, then number (None when none is held). Read through
        the indexes; no JSON parsed."""

        def read() -> StatRoster:
            players = self._file.db.execute(
                "WITH last AS (SELECT player, max(number) AS n, count(DISTINCT number) AS played"
                " FROM stat_seats WHERE player IS NOT NULL AND player != '' GROUP BY player)"
                " SELECT l.player, s.display_name, s.username, l.played"
                " FROM last AS l JOIN stat_seats AS s ON s.number = l.n AND s.player = l.player"
                " ORDER BY l.n DESC, s.faction, s.seat"
            ).fetchall()
            games = self._file.db.execute(
                "SELECT game_id, game_name, count(*), max(number) FROM stat_matches"
                " WHERE game_id IS NOT NULL GROUP BY game_id ORDER BY max(number) DESC"
            ).fetchall()
            newest = self._file.db.execute(
                "SELECT date, number FROM stat_matches ORDER BY date DESC, number DESC LIMIT 1"
            ).fetchone()
            return StatRoster(
                [RosterPlayer(*row) for row in players],
                [RosterGame(*g[:3]) for g in games],
                (newest[0], newest[1]) if newest else None,
            )

        nothing = StatRoster([], [], None)
        return self._file.guard(read, nothing)
