"""`rankterm seasons`: the roll of honour, each past month, quarter or year's champion and runner-up.

    rankterm seasons --demo                       each past month: champion, runner-up, matches, players
    rankterm seasons --by quarter --format json   by quarter, for a script

The seasons the host names in the config (`[[profiles.NAME.seasons]]`, or top-level `[[seasons]]`) are
listed beside the calendar ones once they are over.

A period's standings are those of a group that played only its matches (rankterm.stats.seasons): everyone
starts even, and the all-time standings never change. Periods follow the seat's clock (the `timezone`
setting, else this machine's); the one still under way is left out, as it has no champion yet.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rankterm.cli.common import (
    EXIT_OK,
    add_format_argument,
    add_source_arguments,
    emit_json,
    emit_rows,
    profile_name,
    run_headless,
    shown_zone,
)
from rankterm.wire.shown import ree

if TYPE_CHECKING:
    from rankterm.config import NamedSeason
    from rankterm.mirror import Group
    from rankterm.stats.seasons import Season, SeasonRow

ORDER = 34


def register(sub: argparse._SubParsersAction) -> None:
    """`rankterm seasons`."""
    seasons = sub.add_parser("seasons", help="the roll of honour: each past period's champion and runner-up")
    add_source_arguments(seasons)
    add_format_argument(seasons, "table", "json")
    seasons.add_argument("--by", choices=("month", "quarter", "year"), default="month", help="default month")
    seasons.set_defaults(run=lambda args: run_headless(args, seasons_command))


def _row(row: SeasonRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"id": row.player_id, "name": row.name, "ree": row.ree, "matches": row.played}


def named_seasons(args: argparse.Namespace) -> tuple[NamedSeason, ...]:
    """The seasons named in the config for the profile used (the top-level ones for --demo)."""
    from rankterm.config import load_config

    config = load_config()
    for problem in config.problems:  # a bad season is left out: said, as the app says it when it starts
        print(f"rankterm: warning: {problem}", file=sys.stderr)
    name = None
    if not getattr(args, "demo", False) and (profile := config.profile(profile_name(args))) is not None:
        name = profile.name
    return config.named_seasons(name)


async def seasons_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.seasons import named, roll_of_honour, season_standings
    from rankterm.stats.source import group_matches

    zone = shown_zone(args)
    matches = await group_matches(group, offline_ok=False)
    now = zone.local(datetime.fromtimestamp(group.client.clock(), UTC)).replace(tzinfo=None)
    roll: list[Season] = roll_of_honour(matches, args.by, zone, now)
    names = {p.name for p in named(named_seasons(args)) if p.end <= now}
    roll += [season_standings(matches, p, zone) for p in named(named_seasons(args)) if p.name in names]
    roll.sort(key=lambda season: (season.period.end, season.period.end - season.period.start))
    if args.format == "json":
        emit_json(
            [
                {
                    "period": season.period.name,
                    "matches": season.matches,
                    "players": len(season.rows),
                    "champion": _row(season.champion),
                    "runner_up": _row(season.runner_up),
                }
                for season in roll
            ]
        )
        return EXIT_OK

    def who(row: SeasonRow | None) -> str:
        return "" if row is None else f"{row.name} ({ree(row.ree)})"

    emit_rows(
        args.format,
        ["period", "champion", "runner-up", "matches", "players"],
        [[s.period.name, who(s.champion), who(s.runner_up), s.matches, len(s.rows)] for s in reversed(roll)],
        title=f"roll of honour by {args.by} ({zone.label} time)",
    )
    return EXIT_OK
