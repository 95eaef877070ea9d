"""The figures' types: frozen dataclasses, ids plus the names the matches carry, nothing computed lazily.

The rules that make them (what a win, a draw, a meeting, a streak is) are in `rankterm.stats.figures`.
Rates are fractions in 0..1, None when there is nothing to divide by. Player ids are the service's ids
(strings), game ids its ints; names are the ones the most recent match carrying them gave (plain text from
outside: show them through plain(), never as markup). Dates are the wire's "YYYY-MM-DD HH:MM:SS".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from rankterm.wire.text import fold_name

Result = Literal["W", "D", "L"]
"""A player's result in one match: W alone at the best rank, D best rank shared, L otherwise."""

FORM_LENGTH = 10
"""Results in a form line."""

MIN_MATCHES_BEST_GAME = 3
"""Matches of a game a player needs before it can be their best game."""

MIN_MEETINGS_RIVAL = 3
"""Meetings two players need before one can be the other's nemesis or favourite victim."""

LAST_MEETINGS = 10
"""Meetings listed in a head-to-head (newest first)."""


def rate(part: int, whole: int) -> float | None:
    """part / whole, None when whole is 0."""
    return part / whole if whole else None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A player's results in one game."""

    game_id: int | None
    game_name: str
    played: int
    wins: int
    draws: int
    losses: int

    @property
    def win_rate(self) -> float | None:
        return rate(self.wins, self.played)


def best_first(tally: Tally) -> tuple[int, float, str, str]:
    """The one order of "best player" (a game's top winner, the evening's tallies): most wins, then the
    best win rate (among equal wins, fewest matches), then by name (`fold_name`) and id."""
    return (-tally.wins, -(tally.win_rate or 0.0), fold_name(tally.name), tally.player_id)


@dataclass(frozen=True, slots=True)
class Rival:
    """Another player, as met by the page's player: `ahead` = the page's player finished ahead,
    `behind` = the rival did, `ties` = same rank (team-mates are never a meeting)."""

    player_id: str
    name: str
    meetings: int
    ahead: int
    behind: int
    ties: int


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    """A player's page. `form` is the last `FORM_LENGTH` results, oldest first (the newest at the right).

    `current_streak` / `longest_streak`: consecutive wins (W) in the player's matches in the order they
    were played (date, then number); a draw or a loss ends a streak. `best_game`: the highest win rate
    among games played at least `MIN_MATCHES_BEST_GAME` times. `nemesis`: among players met at least
    `MIN_MEETINGS_RIVAL` times, the one who finished ahead most often (share of meetings, then count);
    `victim` the reverse; None when nobody qualifies (or nobody was ever ahead / behind).
    `match_numbers`: the player's matches in the order played (what a ree chart is drawn over).
    """

    player_id: str
    name: str
    played: int
    wins: int
    draws: int
    losses: int
    per_game: tuple[GameRecord, ...]
    current_streak: int
    longest_streak: int
    best_game: GameRecord | None
    nemesis: Rival | None
    victim: Rival | None
    form: tuple[Result, ...]
    match_numbers: tuple[int, ...]
    first_date: str | None
    last_date: str | None

    @property
    def win_rate(self) -> float | None:
        return rate(self.wins, self.played)

    @property
    def form_line(self) -> str:
        """The form as text: "W W L W D"."""
        return " ".join(self.form)


@dataclass(frozen=True, slots=True)
class Meeting:
    """One meeting of A and B (for "everyone": A and one other player, `other_*`)."""

    match_number: int
    date: str
    game_id: int | None
    game_name: str
    other_id: str
    other_name: str
    a_rank: int
    b_rank: int

    @property
    def outcome(self) -> Literal["a", "b", "tie"]:
        """Who finished ahead: "a", "b" or "tie"."""
        return "a" if self.a_rank < self.b_rank else "b" if self.b_rank < self.a_rank else "tie"


@dataclass(frozen=True, slots=True)
class GameH2H:
    """Head-to-head counts in one game (see `HeadToHead`)."""

    game_id: int | None
    game_name: str
    meetings: int
    a_ahead: int
    b_ahead: int
    ties: int
    together: int
    together_wins: int


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """A against B, or against everyone (`b_id` None, `b_name` "everyone").

    A meeting is a match where both played in different factions; `a_ahead` / `b_ahead` count who had the
    better rank, `ties` the same rank. Team-mates are not a meeting: `together` counts the matches they
    played in one faction, `together_wins` those their faction won (W). Against everyone every figure is
    the sum over the other players: a match against three opponents is three meetings (and a match with two
    team-mates counts twice in `together`). `per_game` most meetings first; `last` newest first.
    """

    a_id: str
    a_name: str
    b_id: str | None
    b_name: str
    meetings: int
    a_ahead: int
    b_ahead: int
    ties: int
    together: int
    together_wins: int
    per_game: tuple[GameH2H, ...]
    last: tuple[Meeting, ...]


@dataclass(frozen=True, slots=True)
class Tally:
    """A player's wins among their matches (in a game, or tonight)."""

    player_id: str
    name: str
    wins: int
    played: int

    @property
    def win_rate(self) -> float | None:
        return rate(self.wins, self.played)


@dataclass(frozen=True, slots=True)
class Streak:
    """A run of consecutive wins by one player, from match `first` to match `last` (numbers)."""

    player_id: str
    name: str
    length: int
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class GameFigures:
    """A game's page (its standings come from the service's rankings of the game's subset).

    `average_factions` counts every faction, bots included. `bot_matches`: matches with a bot faction;
    `bot_wins`: those the bot won (alone at the best rank). `top_winner`: most wins in this game (then the
    better win rate, then fewer matches); `longest_streak`: the longest run of wins by one player counting
    this game's matches only. Both None for a game nobody ever won.
    """

    game_id: int
    name: str
    played: int
    players: int
    average_factions: float | None
    bot_matches: int
    bot_wins: int
    top_winner: Tally | None
    longest_streak: Streak | None
    first_date: str | None
    last_date: str | None

    @property
    def bot_win_rate(self) -> float | None:
        return rate(self.bot_wins, self.bot_matches)


@dataclass(frozen=True, slots=True)
class TonightMatch:
    """One match of the evening: the players of the faction(s) at the best rank (`draw` when shared), or
    `bot_won` when a bot faction was alone at the best rank (then `winners` is empty)."""

    number: int
    date: str
    game_id: int | None
    game_name: str
    winners: tuple[str, ...]
    winner_names: tuple[str, ...]
    draw: bool
    bot_won: bool


@dataclass(frozen=True, slots=True)
class Gain:
    """A player's ree change over the evening: before their first match of it, after their last."""

    player_id: str
    name: str
    before: float
    after: float

    @property
    def gain(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Upset:
    """The winner (W) of the evening with the lowest ree before their winning match."""

    match_number: int
    game_name: str
    player_id: str
    name: str
    ree_before: float


@dataclass(frozen=True, slots=True)
class Tonight:
    """Matches since `since`, in the order played; `tallies` everyone who played, most wins first (then the
    better win rate).

    `biggest_gain` and `biggest_upset` need ree (see `history.ree_around`); None when it was not given or
    not loaded for anyone who qualifies."""

    since: datetime
    matches: tuple[TonightMatch, ...]
    tallies: tuple[Tally, ...]
    biggest_gain: Gain | None
    biggest_upset: Upset | None
