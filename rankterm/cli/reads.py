"""Headless reads: `rankterm games|players|matches|rankings|subsets|quota|status`, for scripts and chat bots.

    rankterm rankings --demo                         the latest standings, a table on a terminal
    rankterm --profile home rankings --after 120     the standings after match 120
    rankterm rankings --season 2026-Q3               the standings of that quarter alone, all starting even
    rankterm rankings --season "Autumn league"       a season the config names, alone
    rankterm matches --subset g13 --format jsonl     every Catan match, one JSON object a line

Only what the service said is printed: offline, exit 3, even where the mirror holds a copy. Formats, paging and
exit codes: docs/cli.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from rankterm.cli.common import (
    EXIT_OK,
    Lines,
    RowWriter,
    UsageError,
    add_format_argument,
    add_source_arguments,
    emit_json,
    emit_rows,
    positive_int,
    run_headless,
    served,
    shown_zone,
    subset_id,
)
from rankterm.wire.localtime import DATE_FORMAT, SeatZone, parse_wire_date
from rankterm.wire.result_line import TIE_SEP, by_place
from rankterm.wire.shown import signed
from rankterm.wire.standing import shown_positions

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.stats.seasons import Period
    from rankterm.wire.models import Faction, Match, RankingRow

ORDER = 20

RANKINGS_PAGE_KEYS = ("page", "totalPages", "rowsForPage", "data", "subset", "match")
"""The keys of a rankings page on the wire, exactly (WIRE.md): no count key."""


def register(sub: argparse._SubParsersAction) -> None:
    """One subcommand a read."""

    def command(name: str, help: str, run: Any, *formats: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, help=help, description=help)
        add_source_arguments(parser)
        add_format_argument(parser, *(formats or ("table", "csv", "json")))
        parser.set_defaults(run=lambda args: run_headless(args, run))
        return parser

    def paged(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--page", type=positive_int, metavar="N", help="only page N (from 1); default every page"
        )

    def subset(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--subset", type=subset_id, metavar="S", help="a subset id (`rankterm subsets`); default main"
        )

    command("games", "the group's games", read_games)
    paged(command("players", "the group's players", read_players))
    matches = command(
        "matches", "the group's matches, newest first", read_matches, "table", "csv", "json", "jsonl"
    )
    subset(matches)
    paged(matches)
    rankings = command("rankings", "the standings (the latest, or after a match)", read_rankings)
    subset(rankings)
    rankings.add_argument(
        "--after",
        type=positive_int,
        metavar="N",
        help="the standings after match number N (default: the latest)",
    )
    rankings.add_argument(
        "--season",
        metavar="P",
        help="the standings of one period alone, everyone starting even: YYYY, YYYY-Qn, YYYY-MM or the "
        "name of a season the config names",
    )
    rankings.add_argument("--since", metavar="DATE", help="with --until: the standings of a range alone")
    rankings.add_argument("--until", metavar="DATE", help="the range's end (not included)")
    paged(rankings)
    command("subsets", "the group's subsets (main, one per game, custom)", read_subsets)
    command("quota", "quota used by this client, in percent", read_quota)
    command("status", "the service's status", read_status)


# ---------------------------------------------------------------------------------------------- games, players


async def read_games(group: Group, args: argparse.Namespace) -> int:
    games = await group.games(refresh=True)
    served(group, "games")
    if args.format == "json":
        emit_json([g.to_wire() for g in games])
    else:
        rows = [[g.id, g.name, g.weight_label or g.weight, g.bgg_id_game] for g in games]
        emit_rows(args.format, ["id", "name", "weight", "bgg_id"], rows, title="Games")
    return EXIT_OK


def check_page(asked: int, total_pages: int, what: str) -> None:
    """Refuse a page past the last (exit 2) in one sentence that names the last page (page 1 is there even
    when it is empty)."""
    last = max(total_pages, 1)
    if asked > last:
        raise UsageError(f"There is no page {asked} of the {what}: the last is page {last}.")


async def read_players(group: Group, args: argparse.Namespace) -> int:
    if args.page is not None:
        page = await group.players_page(args.page)
        served(group, "players")
        check_page(args.page, page.total_pages, "players")
        if args.format == "json":
            emit_json(page.to_wire())
            return EXIT_OK
        players, title = page.data, f"Players, page {page.page} of {page.total_pages}"
    else:
        players, title = await group.players_now(refresh=True), "Players"
        if args.format == "json":
            emit_json([p.to_wire() for p in players])
            return EXIT_OK
    rows = [[p.id, p.display_name, p.username, p.ghost] for p in players]
    emit_rows(args.format, ["id", "name", "username", "ghost"], rows, title=title)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------- matches


def faction_text(faction: Faction) -> str:
    """`name (points)`: the players joined by "+" (a bot says so), the faction's name before them."""
    names = " + ".join(p.label for p in faction.players) or ("bot" if faction.bot else "")
    if faction.name and faction.name != names:
        names = f"{faction.name}: {names}" if names else faction.name
    points = "" if faction.points is None else f" ({faction.points:g})"
    return f"{names}{points}"


def place_lines(match: Match) -> list[str]:
    """A line a place, best first: `rank. faction`, the factions that tied on one line joined by " = "."""
    return [
        f"{rank}. " + TIE_SEP.join(faction_text(f) for f in factions) for rank, factions in by_place(match)
    ]


def result_text(match: Match, sep: str = "  ") -> str:
    """The places of a match (`place_lines`) joined by `sep`."""
    return sep.join(place_lines(match))


MATCH_COLUMNS = ("number", "date", "game", "result", "weight", "id", "external_id")
MATCH_TABLE_COLUMNS = ("match", "date", "game", "result", "weight")


def match_row(match: Match) -> list[Any]:
    """A match for scripts (csv): every column, the date as the service gives it."""
    game = match.game.name if match.game else ""
    return [match.number, match.date, game, result_text(match), match.weight, match.id, match.external_id]


def match_table_row(match: Match, zone: SeatZone) -> list[Any]:
    """A match for people: a place a line (`Lines`: one line when piped), the date to the minute in the seat's
    zone, no ids."""
    game = match.game.name if match.game else ""
    return [match.number, zone.show(match.date), game, Lines(place_lines(match)), match.weight]


async def read_matches(group: Group, args: argparse.Namespace) -> int:
    from rankterm.importing.export import matches_newest_first, matches_page

    where = f" of subset {args.subset}" if args.subset else ""
    page = None
    if args.page is not None:
        page = await matches_page(group.client, args.page, args.subset)
        check_page(args.page, page.total_pages, f"matches{where}")
        if args.format == "json":
            emit_json(page.to_wire())
            return EXIT_OK
    title = f"Matches{where}, page {args.page} of {page.total_pages}" if page else f"Matches{where}"
    columns: Sequence[str] = MATCH_COLUMNS
    row: Callable[[Match], list[Any]] = match_row
    if args.format == "table":  # for people: the seat's time zone, named in the header
        zone = shown_zone(args)
        columns = [zone.heading(c) if c == "date" else c for c in MATCH_TABLE_COLUMNS]
        row = partial(match_table_row, zone=zone)
    if page is not None:
        matches: Any = iter(page.data)
        first = next(matches, None)
    else:
        matches = matches_newest_first(group.client, subset=args.subset)
        first = await anext(matches, None)  # nothing printed before the service has answered
    with RowWriter(args.format, columns, title=title) as writer:
        if first is not None:
            writer.add(row(first), first.to_wire())
        if args.page is not None:
            for match in matches:
                writer.add(row(match), match.to_wire())
        else:
            async for match in matches:
                writer.add(row(match), match.to_wire())
    return EXIT_OK


# ---------------------------------------------------------------------------------------------- rankings


RANKING_COLUMNS = ("position", "player", "ree", "change", "moved", "belt", "title", "status", "player_id")


def _signed(value: float | int | None, digits: int = 0) -> str:
    """+12.3, -0.2, 0 (as the app shows them, without its arrows and colours; a plain hyphen for scripts)."""
    return "" if value is None else signed(value, digits, minus="-", zero="0")


def ranking_row(row: RankingRow, position: int | None = None) -> list[Any]:
    """A row for people: `position` as shown (`wire.standing`: equal ree, equal place), else the service's."""
    ree = "" if row.ree is None else f"{row.ree:.1f}"
    return [
        row.position if position is None else position,
        row.player.label,
        ree,
        _signed(row.delta_ree, 1),
        _signed(row.delta_position),
        row.belt_label or row.belt,
        row.title_label or row.title,
        row.status_label or row.status,
        row.player.id,
    ]


def ranking_csv_row(row: RankingRow) -> list[Any]:
    """Numbers as the service sent them (CSV is for scripts)."""
    return [
        row.position,
        row.player.label,
        row.ree,
        row.delta_ree,
        row.delta_position,
        row.belt_label or row.belt,
        row.title_label or row.title,
        row.status_label or row.status,
        row.player.id,
    ]


def asked_period(args: argparse.Namespace, zone: SeatZone) -> Period | None:
    """The period `--season`, or `--since`/`--until`, asks for (None: neither); a UsageError in one sentence
    for one that cannot be read or is given with what it cannot go with."""
    from rankterm.cli.seasons import named_seasons
    from rankterm.stats.seasons import PeriodError, between, find_period

    if args.season is None and args.since is None and args.until is None:
        return None
    if args.after is not None or args.page is not None:
        raise UsageError("A period's standings cannot be asked with --after or --page.")
    try:
        if args.season is not None:
            if args.since is not None or args.until is not None:
                raise UsageError("Ask for a season, or for --since and --until, not both.")
            return find_period(args.season, named_seasons(args))
        if args.since is None or args.until is None:
            raise UsageError("A range needs both --since and --until (the day after its last).")
        ends = [zone.read_typed(text) for text in (args.since, args.until)]
        for text, end in zip((args.since, args.until), ends, strict=True):
            if end is None:
                raise UsageError(f"{text!r} is not a date: write it as YYYY-MM-DD or YYYY-MM-DD HH:MM.")
        return between(ends[0], ends[1])  # type: ignore[arg-type]
    except PeriodError as exc:
        raise UsageError(str(exc)) from None


async def read_period_rankings(group: Group, args: argparse.Namespace, period: Period) -> int:
    """A period's standings (`stats.seasons`), in the shapes of the service's: held matches of the main subset
    or of one game's, replayed from an even start."""
    from rankterm.stats.seasons import season_standings
    from rankterm.stats.source import group_matches
    from rankterm.wire.models import Player, RankingRow

    zone = shown_zone(args)
    subsets = {s.id: s for s in await group.subsets()} if args.subset else {}
    subset = subsets.get(args.subset) if args.subset else None
    if args.subset and (subset is None or not (subset.is_main or subset.game is not None)):
        raise UsageError(
            f"A period's standings are for the main subset or a game's; {args.subset!r} is neither."
        )
    matches = await group_matches(group, offline_ok=False)
    if subset is not None and subset.game is not None:
        game_id = str(subset.game.id)
        matches = [m for m in matches if m.game is not None and str(m.game.id) == game_id]
    season = season_standings(matches, period, zone)
    rows = [
        RankingRow(player=row.player or Player(id=row.player_id), ree=row.ree, position=n)
        for n, row in enumerate(season.rows, start=1)
    ]
    if args.format == "json":
        emit_json([r.to_wire() for r in rows])
        return EXIT_OK
    subset_name = subset.name if subset is not None else "main"
    plural = "" if season.matches == 1 else "es"
    title = (
        f"Rankings, {subset_name}, {period.name} alone ({season.matches} match{plural}, {zone.label} time)"
    )
    if args.format == "csv":
        emit_rows(args.format, RANKING_COLUMNS, [ranking_csv_row(r) for r in rows], title=title)
    else:
        table = [[row.position, row.name, f"{row.ree:.1f}", row.played] for row in season.rows]
        emit_rows(args.format, ["pos", "player", "ree", "matches"], table, title=title)
    return EXIT_OK


async def read_rankings(group: Group, args: argparse.Namespace) -> int:
    period = asked_period(args, shown_zone(args))
    if period is not None:
        return await read_period_rankings(group, args, period)
    first = await group.rankings_page(args.page or 1, subset=args.subset, match=args.after)
    served(group, "rankings")
    if args.page is not None:
        check_page(args.page, first.total_pages, "standings")
    if args.page is not None and args.format == "json":
        wire = first.to_wire()
        emit_json({key: wire.get(key) for key in RANKINGS_PAGE_KEYS})
        return EXIT_OK
    rows = list(first.data)
    if args.page is None and first.total_pages > 1:
        # The later pages after the same match as page 1, even if a match is recorded meanwhile.
        at = first.match.number if first.match is not None else args.after
        for n in range(2, first.total_pages + 1):
            rows += (await group.rankings_page(n, subset=args.subset, match=at)).data
        served(group, "rankings")
    if args.format == "json":
        emit_json([r.to_wire() for r in rows])
        return EXIT_OK
    subset_name = first.subset.name if first.subset is not None else (args.subset or "main")
    after = "before any match"
    if first.match is not None:
        date = first.match.date
        if args.format == "table":
            zone = shown_zone(args)
            date = f"{zone.show(date)} {zone.label}"
        after = f"after match {first.match.number} ({date})"
    title = f"Rankings, {subset_name}, {after}"
    if args.page is not None:
        title += f", page {first.page} of {first.total_pages}"
    if args.format == "csv":
        emit_rows(args.format, RANKING_COLUMNS, [ranking_csv_row(r) for r in rows], title=title)
    else:  # for people: no ids, short headers, equal ree at one position (JSON and CSV: the service's)
        shown = shown_positions(rows)
        table = [ranking_row(r, shown[r.player.id])[:-1] for r in rows]
        emit_rows(
            args.format,
            ["pos", "player", "ree", "Δree", "Δpos", "belt", "title", "status"],
            table,
            title=title,
        )
    return EXIT_OK


# ---------------------------------------------------------------------------------------------- the rest


async def read_subsets(group: Group, args: argparse.Namespace) -> int:
    subsets = await group.subsets(refresh=True)
    served(group, "subsets")
    if args.format == "json":
        emit_json([s.to_wire() for s in subsets])
        return EXIT_OK
    rows = [[s.id, s.name, s.type, s.count_matches, s.first_number, s.last_number] for s in subsets]
    columns = ["id", "name", "type", "matches", "first_match", "last_match"]
    emit_rows(args.format, columns, rows, title="Subsets")
    return EXIT_OK


async def read_quota(group: Group, args: argparse.Namespace) -> int:
    quota = await group.client.quota()
    wire = quota.to_wire()
    wire.update(quota.model_extra or {})
    if args.format == "json":
        emit_json(wire)
    else:
        emit_rows(args.format, ["quota", "used"], list(wire.items()), title="Quota used by this client")
    return EXIT_OK


async def read_status(group: Group, args: argparse.Namespace) -> int:
    status = await group.client.status()
    if args.format == "json":
        emit_json(dict(status.items()))
    elif args.format == "table":  # for people: the service's time in the seat's zone, named
        zone = shown_zone(args)
        rows = [
            [key, f"{zone.show(value, DATE_FORMAT)} ({zone.label})" if parse_wire_date(value) else value]
            for key, value in status.items()
        ]
        emit_rows(args.format, ["key", "value"], rows, title="Service status")
    else:
        emit_rows(args.format, ["key", "value"], status.items(), title="Service status")
    return EXIT_OK
