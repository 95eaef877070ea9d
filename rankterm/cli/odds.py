"""`rankterm odds` and `rankterm teams`: the minute before a match, for scripts and the table.

    rankterm odds Ada Ben+Chiara Dev --demo           each faction's chance of finishing first
    rankterm teams Ada Ben Chiara Dev Elena Farid --teams 2 --demo    the three fairest splits

A FACTION is player names (or ids) joined by `+`. The chances come from the table's model (rankterm.stats.model,
rankterm.stats.odds): the group's held history replayed with the embedded service's rating rules, "rankterm's
estimate" against another service. See docs/stats.md and docs/before-and-after.md.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rankterm.cli.common import (
    EXIT_OK,
    UsageError,
    add_format_argument,
    add_source_arguments,
    emit_json,
    emit_rows,
    positive_int,
    run_headless,
)
from rankterm.wire.shown import percent, ree

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.stats.model import TableModel
    from rankterm.wire.models import Player

ORDER = 32
ESTIMATE = "rankterm's estimate"
"""What the ratings are called: the embedded service's rules over the held history (equal to that service's
own ree; against another service, an estimate)."""


def register(sub: argparse._SubParsersAction) -> None:
    """`rankterm odds` and `rankterm teams`."""
    odds = sub.add_parser("odds", help="each faction's chance of finishing first, from the group's history")
    add_source_arguments(odds)
    add_format_argument(odds, "table", "json")
    odds.add_argument("--game", metavar="NAME|ID", help="rate from this game's matches only")
    odds.add_argument("factions", nargs="+", metavar="FACTION", help="player names joined by +, e.g. Ada+Ben")
    odds.set_defaults(run=lambda args: run_headless(args, odds_command))

    teams = sub.add_parser("teams", help="the fairest ways to split the players into teams, with their odds")
    add_source_arguments(teams)
    add_format_argument(teams, "table", "json")
    teams.add_argument("--game", metavar="NAME|ID", help="rate from this game's matches only")
    teams.add_argument(
        "--teams", type=positive_int, default=2, metavar="K", help="how many teams (default 2)"
    )
    teams.add_argument("players", nargs="+", metavar="PLAYER")
    teams.set_defaults(run=lambda args: run_headless(args, teams_command))


async def table_model(group: Group, game: str | None) -> tuple[TableModel, int, str]:
    """The table's model over the group's held matches (of `game` only, when named), how many it followed,
    and what its ratings are called where shown."""
    from rankterm.stats.held_model import held_model
    from rankterm.stats.lookup import find_game
    from rankterm.stats.model import TableModel
    from rankterm.stats.source import group_matches, sync_group

    if game is None:
        await sync_group(group, max_age=0, offline_ok=False)
        model = held_model(group)
        return model, model.followed, ESTIMATE
    matches = await group_matches(group, offline_ok=False)
    chosen = find_game(await group.games(), game)
    matches = [m for m in matches if m.game is not None and m.game.id == chosen.id]
    model = TableModel()
    model.follow(matches)
    return model, len(matches), ESTIMATE


def _players(players: list[Player], names: list[str]) -> list[Player]:
    from rankterm.stats.lookup import find_player

    chosen = [find_player(players, name.strip()) for name in names]
    ids = [p.id for p in chosen]
    if len(set(ids)) != len(ids):
        raise UsageError("A player is named twice.")
    return chosen


def _player_document(player: Player, model: TableModel) -> dict[str, Any]:
    skill = model.skill(str(player.id))
    return {
        "id": player.id,
        "name": player.label,
        "mu": skill.mu,
        "sigma": skill.sigma,
        "ree": model.ree(str(player.id)),
    }


def _model_document(kind: str, followed: int) -> dict[str, Any]:
    from rankterm.wire.rating import BETA, RATING_MODEL

    return {"name": RATING_MODEL, "beta": BETA, "ratings": kind, "matches": followed}


async def odds_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.odds import chances_first, side_of

    if len(args.factions) < 2:
        raise UsageError("Give at least two factions (players joined by +).")
    players = await group.players()
    factions = [_players(players, [n for n in faction.split("+") if n.strip()]) for faction in args.factions]
    if any(not f for f in factions):
        raise UsageError("A faction names no player.")
    everyone = [p.id for f in factions for p in f]
    if len(set(everyone)) != len(everyone):
        raise UsageError("A player is in two factions.")
    model, followed, kind = await table_model(group, args.game)
    sides = [side_of(model.skill(str(p.id)) for p in faction) for faction in factions]
    chances = chances_first(sides)
    if args.format == "json":
        emit_json(
            {
                "model": _model_document(kind, followed),
                "factions": [
                    {
                        "players": [_player_document(p, model) for p in faction],
                        "mu": side.mu,
                        "sigma": side.sigma,
                        "chance": chance,
                    }
                    for faction, side, chance in zip(factions, sides, chances, strict=True)
                ],
            }
        )
        return EXIT_OK
    rows = []
    for faction, chance in zip(factions, chances, strict=True):
        names = " + ".join(p.label + ("" if model.played(str(p.id)) else " (new)") for p in faction)
        rows.append([names, percent(chance), " ".join(ree(model.ree(str(p.id))) for p in faction)])
    emit_rows(args.format, ["faction", "chance", "ree"], rows, title=f"{kind}, from {followed:,} matches")
    return EXIT_OK


async def teams_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.source import held_matches
    from rankterm.stats.teams import fairest_splits, last_evening_pairings

    players = _players(await group.players(), args.players)
    if len(players) < args.teams:
        raise UsageError(f"{len(players)} players cannot make {args.teams} teams.")
    if args.teams < 2:
        raise UsageError("Teams need at least two teams.")
    model, followed, kind = await table_model(group, args.game)
    names = {str(p.id): p.label for p in players}
    skills = {str(p.id): model.skill(str(p.id)) for p in players}
    found = fairest_splits(skills, args.teams, pairings=last_evening_pairings(held_matches(group)))
    if args.format == "json":
        emit_json(
            {
                "model": _model_document(kind, followed),
                "splits": [
                    {"teams": [[names[i] for i in team] for team in s.teams], "chances": list(s.chances)}
                    for s in found
                ],
            }
        )
        return EXIT_OK
    rows = [
        [
            place,
            "  vs  ".join(" + ".join(names[i] for i in team) for team in s.teams),
            " · ".join(percent(c) for c in s.chances),
        ]
        for place, s in enumerate(found, start=1)
    ]
    emit_rows(
        args.format, ["#", "teams", "chances"], rows, title=f"fairest splits ({kind}, {followed:,} matches)"
    )
    return EXIT_OK
