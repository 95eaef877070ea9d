"""The periods a seat offers: the seasons the open profile names (or the config's; a guest's come from its
host, as its time zone does), the seat's wall-clock now, and a period's standings read from the held matches.

The picker's choices come from the main subset's first and last match (no request, no match parsed); a
period's standings (`period_standings`, called in a worker) parse the held matches and replay the model in a
thread, never on the event loop; the whole group's are kept while the period's matches stay the same.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rankterm.stats.kept import held_in_period, kept_season
from rankterm.tui.zone import shown_zone
from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.config import NamedSeason
    from rankterm.mirror import Group
    from rankterm.stats.seasons import Period, PeriodChoice, Season
    from rankterm.wire.localtime import SeatZone
    from rankterm.wire.models import Subset


def shown_seasons(node: Any) -> tuple[NamedSeason, ...]:
    """The seasons named for the open profile of `node`'s app (the config's top-level ones for the demo)."""
    try:
        app = node.app
    except RuntimeError:  # not in a running app
        return ()
    config = getattr(app, "config", None)
    if config is None:
        return ()
    profile = None if getattr(app, "demo", False) else getattr(app, "profile_name", None)
    return tuple(config.named_seasons(profile))


def seat_now(group: Group, zone: SeatZone) -> datetime:
    """Now on the seat's wall clock (naive), by the client's clock."""
    return zone.local(datetime.fromtimestamp(group.client.clock(), UTC)).replace(tzinfo=None)


async def synced(group: Group) -> None:
    """The held matches brought up to date when the service answers; offline, those held stand."""
    with contextlib.suppress(RanktermError):
        await group.sync_matches()


def choices_of(node: Any, group: Group) -> list[PeriodChoice]:
    """What the period picker of `node`'s screen offers: the calendar periods from the main subset's first
    match to its last, as the mirror holds the subsets (no request, no match parsed)."""
    zone = shown_zone(node)
    main = next((s for s in group.cached_subsets() if s.is_main or s.type == "main"), None)
    ends = [m.date if m is not None else None for m in (main.first_match, main.last_match)] if main else []
    local = [zone.from_wire(date) for date in ends]
    span = None
    if len(local) == 2 and local[0] is not None and local[1] is not None:
        span = (local[0].replace(tzinfo=None), local[1].replace(tzinfo=None))
    from rankterm.stats.seasons import period_choices  # here: the board's Home reads no period

    return period_choices(span, seat_now(group, zone), shown_seasons(node))


def game_of(subset: Subset | None) -> str | None:
    """The game id whose matches a subset's period standings are read from (None: every match, the main
    subset); ValueError in one sentence for a custom subset, whose matches the seat cannot tell."""
    if subset is None or subset.is_main or subset.type == "main":
        return None
    if subset.game is not None and not subset.is_custom:
        return str(subset.game.id)
    raise ValueError("A period's standings are for the main subset or a game's; pick one of those.")


async def period_standings(group: Group, period: Period, zone: SeatZone, game_id: str | None) -> Season:
    """`season_standings` over the held matches (only `game_id`'s when given), worked out in a thread. The
    whole group's are those the Seasons screen keeps (`stats.kept.kept_season`): worked out again only when
    the period's matches changed, not at each pick (a year of a big group: 33,000 matches read and replayed,
    10 s of a thread and its collections)."""

    from rankterm.stats.seasons import season_standings

    def work() -> Season:
        if game_id is None:
            return kept_season(group, period, zone)
        matches = held_in_period(group, period, zone)
        if game_id is not None:
            matches = [m for m in matches if m.game is not None and str(m.game.id) == game_id]
        return season_standings(matches, period, zone)

    return await asyncio.to_thread(work)
