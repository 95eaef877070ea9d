"""The wire's key sets, taken from the read models, and the checks that hold an answer to them.

WIRE.md ("Resources as they are read", "Pages"): the embedded service answers with exactly the documented
keys, nested objects included; a public client (rankade-py) builds its objects from them with keyword
arguments, so one key too many or too few breaks it. The key sets here are the models' wire aliases
(`rankterm.wire.models`, as ``to_wire()`` names them), never typed again. A rankings page's are the service's
own cut (`rankterm.server.wire.RANKINGS_PAGE_KEYS`): its model also reads a count key, which a rankings page
never carries.

The nesting is WIRE.md's: a Match holds a Game and its Factions, a Faction its Players; a Subset holds its
Game and, each a whole Match, its first and last match (null while it has none); a rankings page holds its
Subset, the Match it is after (or null) and its Ranking rows. Booleans go out as 0/1.
"""

from __future__ import annotations

from typing import Any

from rankterm.server.wire import RANKINGS_PAGE_KEYS as SERVED_RANKINGS_PAGE_KEYS
from rankterm.wire.models import (
    Faction,
    Game,
    Match,
    MatchError,
    MatchesPage,
    MatchOutcome,
    MatchStatus,
    NewMatchAnswer,
    Page,
    Player,
    PlayersPage,
    Quota,
    RankingRow,
    RankingsPage,
    Subset,
    WireModel,
)


def wire_keys(model: type[WireModel]) -> frozenset[str]:
    """A model's keys on the wire: each field by its alias, as ``to_wire()`` names it."""
    return frozenset(info.alias or name for name, info in model.model_fields.items())


GAME_KEYS = wire_keys(Game)
PLAYER_KEYS = wire_keys(Player)
MATCH_KEYS = wire_keys(Match)
FACTION_KEYS = wire_keys(Faction)
ROW_KEYS = wire_keys(RankingRow)
SUBSET_KEYS = wire_keys(Subset)
QUOTA_KEYS = wire_keys(Quota)
STATUS_KEYS = wire_keys(MatchStatus)
OUTCOME_KEYS = wire_keys(MatchOutcome)
ERROR_KEYS = wire_keys(MatchError)
ANSWER_KEYS = wire_keys(NewMatchAnswer) - {"dryrun"}
"""The new-match answer; ``"dryrun": 1`` joins it on a dry run only."""
PAGE_KEYS = wire_keys(Page)
MATCHES_PAGE_KEYS = wire_keys(MatchesPage)
PLAYERS_PAGE_KEYS = wire_keys(PlayersPage)
RANKINGS_PAGE_KEYS = frozenset(SERVED_RANKINGS_PAGE_KEYS)
MODEL_RANKINGS_PAGE_KEYS = wire_keys(RankingsPage)
SERVICE_STATUS_KEYS = STATUS_KEYS | {"status", "version", "serverTime"}
"""`status`: the match counters and the embedded service's own three (WIRE.md, [ours])."""


def check_keys(obj: Any, expected: frozenset[str] | set[str], what: str) -> None:
    assert isinstance(obj, dict), (what, obj)
    assert set(obj) == expected, (what, "extra:", set(obj) - expected, "missing:", expected - set(obj))


def check_flag(value: Any, what: str) -> None:
    assert type(value) is int and value in (0, 1), (what, value)


def check_game(game: Any, what: str = "game") -> None:
    check_keys(game, GAME_KEYS, what)
    assert type(game["id"]) is int, (what, game["id"])
    assert game["bggIdGame"] is None or type(game["bggIdGame"]) is int, (what, game["bggIdGame"])


def check_player(player: Any, what: str = "player") -> None:
    check_keys(player, PLAYER_KEYS, what)
    check_flag(player["ghost"], f"{what}.ghost")


def check_faction(faction: Any, what: str = "faction") -> None:
    check_keys(faction, FACTION_KEYS, what)
    check_flag(faction["winner"], f"{what}.winner")
    check_flag(faction["bot"], f"{what}.bot")
    assert faction["countPlayers"] == len(faction["players"]), what
    for i, player in enumerate(faction["players"]):
        check_player(player, f"{what}.players[{i}]")


def check_match(match: Any, what: str = "match") -> None:
    check_keys(match, MATCH_KEYS, what)
    check_flag(match["draw"], f"{what}.draw")
    check_game(match["game"], f"{what}.game")
    assert match["factions"], what
    for i, faction in enumerate(match["factions"]):
        check_faction(faction, f"{what}.factions[{i}]")


def check_subset(subset: Any, what: str = "subset") -> None:
    """A Subset, its game and its first and last match, each whole (null only while it has no match)."""
    check_keys(subset, SUBSET_KEYS, what)
    check_flag(subset["isMain"], f"{what}.isMain")
    check_flag(subset["isCustom"], f"{what}.isCustom")
    if subset["game"] is not None:
        check_game(subset["game"], f"{what}.game")
    ends = ("firstMatch", "lastMatch")
    if subset["countMatches"] == 0:
        assert [subset[end] for end in ends] == [None, None], what
        return
    for end in ends:
        check_match(subset[end], f"{what}.{end}")


def check_row(row: Any, what: str = "ranking row") -> None:
    check_keys(row, ROW_KEYS, what)
    check_player(row["player"], f"{what}.player")


def check_rankings_page(page: Any, what: str = "rankings page") -> None:
    check_keys(page, RANKINGS_PAGE_KEYS, what)
    check_subset(page["subset"], f"{what}.subset")
    if page["match"] is not None:
        check_match(page["match"], f"{what}.match")
    for i, row in enumerate(page["data"]):
        check_row(row, f"{what}.data[{i}]")


def check_matches_page(page: Any, what: str = "matches page") -> None:
    check_keys(page, MATCHES_PAGE_KEYS, what)
    for i, match in enumerate(page["data"]):
        check_match(match, f"{what}.data[{i}]")


def check_outcome(outcome: Any, what: str = "match outcome") -> None:
    check_keys(outcome, OUTCOME_KEYS, what)
    for i, error in enumerate(outcome["errors"]):
        check_keys(error, ERROR_KEYS, f"{what}.errors[{i}]")
