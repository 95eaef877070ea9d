"""`rankterm stats player|h2h|game|tonight|predictions|changes`: the figures of the stats pages, for scripts.

    rankterm stats player Ada --demo                  a player's page as tables
    rankterm stats h2h Ada Ben --demo --format json   Ada against Ben; `h2h Ada` = Ada against everyone
    rankterm stats tonight --hours 12 --demo          the evening: who won what, biggest gain and upset

The figures come from the group's matches held in the mirror. A large group's history may be held in part:
the command says so on stderr, and `--wait` waits for the rest. The commands, names and JSON keys:
docs/stats.md.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from rankterm.cli.common import (
    EXIT_OK,
    UsageError,
    add_format_argument,
    add_source_arguments,
    emit_json,
    emit_rows,
    run_headless,
    shown_zone,
)
from rankterm.wire.localtime import DATE_FORMAT, UTC_ZONE, SeatZone, wire_date
from rankterm.wire.shown import percent as _percent
from rankterm.wire.shown import ree as _ree
from rankterm.wire.shown import signed

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.wire.models import Player

ORDER = 30


def register(sub: argparse._SubParsersAction) -> None:
    """`rankterm stats` and its six subcommands."""
    stats = sub.add_parser("stats", help="figures of a player, two players, a game or tonight")
    kinds = stats.add_subparsers(dest="stats_kind", metavar="KIND", required=True)

    def kind(
        name: str, help: str, run: Any, formats: tuple[str, ...] = ("table", "json")
    ) -> argparse.ArgumentParser:
        p = kinds.add_parser(name, help=help)
        add_source_arguments(p)
        add_format_argument(p, *formats)
        p.add_argument(
            "--wait",
            action="store_true",
            help="when only part of the group's history is held yet, wait until all of it is, then answer",
        )
        p.set_defaults(run=lambda args: run_stats(args, run))
        return p

    kind("player", "a player's figures", player_command).add_argument("player", metavar="NAME|ID")
    h2h = kind("h2h", "head-to-head of two players (or one against everyone)", h2h_command)
    h2h.add_argument("a", metavar="A")
    h2h.add_argument("b", metavar="B", nargs="?", help="the other player (omitted: everyone)")
    kind("game", "a game's figures", game_command).add_argument("game", metavar="NAME|ID")
    night = kind(
        "tonight",
        "the matches since a time: who won what, biggest gain, biggest upset (md: a recap to share)",
        tonight_command,
        ("table", "json", "md"),
    )
    when = night.add_mutually_exclusive_group()
    when.add_argument("--hours", type=float, default=12.0, help="matches of the last N hours (default 12)")
    when.add_argument(
        "--since",
        help="matches since \"YYYY-MM-DD HH:MM\", the seat's time (the timezone setting, else this machine's);"
        ' "YYYY-MM-DD HH:MM UTC" (or a final Z) for UTC',
    )
    predictions = kind(
        "predictions",
        "how often the odds came true: every past match predicted from the ratings before it",
        predictions_command,
    )
    predictions.add_argument("--last", type=int, metavar="N", help="score only the last N matches")
    changed = kind(
        "changes", "what changed: new leaders and champions, nemeses, streaks, milestones", changes_command
    )
    changed.add_argument(
        "--since",
        help='events of the matches since "YYYY-MM-DD HH:MM", the seat\'s time (default: the last 12 hours)',
    )
    changed.add_argument("--hours", type=float, default=12.0, help=argparse.SUPPRESS)
    night.add_argument(
        "--quota-share",
        type=float,
        default=0.25,
        help="share of the hourly ranking-call quota to spend on ree (default 0.25; 0: none)",
    )


# ---------------------------------------------------------------------- reading the group


HOUR_MARGIN = 5.0
"""Seconds past the hour a `--wait` syncs again: the service's hourly meter turns on its own clock."""


def run_stats(args: argparse.Namespace, command: Any, group: Group | None = None) -> int:
    """`run_headless`, with one line instead of silence when Ctrl+C stops a `--wait`."""
    try:
        return run_headless(args, command, group)
    except KeyboardInterrupt:
        waiting = getattr(args, "waiting_for", None)
        if waiting is None:
            raise
        print(f"rankterm: stopped waiting; {waiting} held.", file=sys.stderr)
        return 130


async def _synced(group: Group, args: argparse.Namespace) -> None:
    """The group's matches synced; a history held in part is said on stderr, or with `--wait` synced hour
    after hour until whole (the quota's share of each hour reads the next part)."""
    from rankterm.stats.source import sync_group

    await sync_group(group, max_age=0, offline_ok=False)
    held = group.held_history()
    zone = shown_zone(args) if not held.whole and getattr(args, "wait", False) else UTC_ZONE
    while not held.whole and getattr(args, "wait", False):
        now = group.client.clock()
        next_read = (now // 3600 + 1) * 3600 + HOUR_MARGIN
        at = f"{zone.from_timestamp(next_read):%H:%M} {zone.label}"
        print(f"Waiting for the rest of the history: {held}; next read at {at}.", file=sys.stderr)
        args.waiting_for = f"{held.held:,} of {held.total:,} matches"
        await group.client.sleep(next_read - now)
        await group.sync_matches()
        held = group.held_history()
    args.waiting_for = None
    if not held.whole:
        print(f"Figures over {held}.", file=sys.stderr)


async def _player(group: Group, query: str) -> Player:
    from rankterm.stats.lookup import find_player

    return find_player(await group.players(), query)


# ---------------------------------------------------------------------- the commands


async def player_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.compact import player_matches
    from rankterm.stats.documents import player_document
    from rankterm.stats.figures import player_figures

    await _synced(group, args)
    player = await _player(group, args.player)
    f = player_figures(player_matches(group, str(player.id)), str(player.id))
    name = f.name if f.played else player.label
    if args.format == "json":
        document = player_document(f)
        document["player"]["name"] = name
        emit_json(document)
        return EXIT_OK

    def rival(r: Any) -> str:
        return "" if r is None else f"{r.name} ({r.ahead}-{r.behind}, {r.ties} tied, in {r.meetings})"

    best = f.best_game
    rows: list[list[Any]] = [
        ["matches", f.played],
        ["wins", f.wins],
        ["draws", f.draws],
        ["losses", f.losses],
        ["win rate", _percent(f.win_rate)],
        ["current streak", f.current_streak],
        ["longest streak", f.longest_streak],
        ["form", f.form_line],
        [
            "best game",
            "" if best is None else f"{best.game_name} ({_percent(best.win_rate)} of {best.played})",
        ],
        ["nemesis", rival(f.nemesis)],
        ["favourite victim", rival(f.victim)],
    ]
    emit_rows(args.format, ["figure", "value"], rows, title=name)
    if f.per_game:
        emit_rows(
            args.format,
            ["game", "matches", "wins", "draws", "losses", "win rate"],
            [[g.game_name, g.played, g.wins, g.draws, g.losses, _percent(g.win_rate)] for g in f.per_game],
            title="per game",
        )
    return EXIT_OK


async def h2h_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.compact import player_matches
    from rankterm.stats.documents import h2h_document
    from rankterm.stats.figures import head_to_head

    await _synced(group, args)
    a = await _player(group, args.a)
    b = await _player(group, args.b) if args.b is not None else None
    if b is not None and b.id == a.id:
        raise UsageError("Give two different players (or one, against everyone).")
    named = {str(p.id): p.label for p in (a, b) if p is not None}
    h = head_to_head(player_matches(group, str(a.id)), str(a.id), None if b is None else str(b.id), named)
    if args.format == "json":
        emit_json(h2h_document(h))
        return EXIT_OK
    counts = ["met", f"{h.a_name} ahead", f"{h.b_name} ahead", "tied", "as team", "team won"]
    emit_rows(
        args.format,
        ["game", *counts],
        [
            ["all games", h.meetings, h.a_ahead, h.b_ahead, h.ties, h.together, h.together_wins],
            *[
                [g.game_name, g.meetings, g.a_ahead, g.b_ahead, g.ties, g.together, g.together_wins]
                for g in h.per_game
            ],
        ],
        title=f"{h.a_name} against {h.b_name}",
    )
    if h.last:
        zone = shown_zone(args) if args.format == "table" else UTC_ZONE  # CSV keeps the wire's UTC day
        ahead = {"a": h.a_name, "tie": "tie"}
        everyone = h.b_id is None
        columns = ["match", "day", "game", *(["against"] if everyone else [])]
        columns += [f"{h.a_name} rank", "their rank" if everyone else f"{h.b_name} rank", "ahead"]
        emit_rows(
            args.format,
            columns,
            [
                [
                    m.match_number,
                    zone.show(m.date, "%Y-%m-%d"),
                    m.game_name,
                    *([m.other_name] if everyone else []),
                    m.a_rank,
                    m.b_rank,
                    ahead.get(m.outcome, m.other_name),
                ]
                for m in h.last
            ],
            title="last meetings",
        )
    return EXIT_OK


async def game_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.compact import held_game_figures
    from rankterm.stats.documents import game_document
    from rankterm.stats.lookup import find_game

    await _synced(group, args)
    game = find_game(await group.games(), args.game)
    g = held_game_figures(group, game.id)
    if args.format == "json":
        emit_json(game_document(g))
        return EXIT_OK
    top, streak = g.top_winner, g.longest_streak
    rows: list[list[Any]] = [
        ["matches", g.played],
        ["players", g.players],
        ["average factions", "" if g.average_factions is None else f"{g.average_factions:.1f}"],
        ["most wins", "" if top is None else f"{top.name} ({top.wins} of {top.played})"],
        [
            "longest streak",
            ""
            if streak is None
            else f"{streak.name} ({streak.length}, matches {streak.first}-{streak.last})",
        ],
    ]
    if g.bot_matches:
        rows.insert(3, ["bot wins", f"{g.bot_wins} of {g.bot_matches} ({_percent(g.bot_win_rate)})"])
    emit_rows(args.format, ["figure", "value"], rows, title=g.name)
    return EXIT_OK


def _since(args: argparse.Namespace, now: float, zone: SeatZone) -> datetime:
    """The start of the evening, naive UTC (as the wire's dates): `--since` read in `zone` (in UTC when it
    ends with "UTC" or "Z"), else `--hours` before `now`."""
    if args.since:
        text = args.since.strip()
        bare = text.removesuffix("UTC").removesuffix("utc").removesuffix("Z").removesuffix("z").rstrip()
        read_in = UTC_ZONE if bare != text else zone
        if (wire := read_in.typed_to_wire(bare)) is not None:
            return wire_date(wire)
        raise UsageError(f"--since {args.since!r}: give a time as YYYY-MM-DD HH:MM ({zone.label} time).")
    if not 0 < args.hours <= 24 * 366:
        raise UsageError("--hours: give a number of hours above 0.")
    return (datetime.fromtimestamp(now, UTC) - timedelta(hours=args.hours)).replace(tzinfo=None)


async def tonight_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.compact import matches_since
    from rankterm.stats.documents import tonight_document
    from rankterm.stats.figures import tonight
    from rankterm.stats.history import ReeAround, ree_around

    if not 0 <= args.quota_share <= 1:
        raise UsageError("--quota-share: give a share from 0 to 1 (0.25 is a quarter).")
    zone = shown_zone(args) if args.since or args.format in ("table", "md") else UTC_ZONE
    since = _since(args, group.client.clock(), zone)
    await _synced(group, args)
    matches = matches_since(group, since)
    evening = tonight(matches, since)
    ree = ReeAround()
    if evening.matches and args.quota_share > 0:
        ree = await ree_around(group, [m.number for m in evening.matches], quota_share=args.quota_share)
        evening = tonight(matches, since, ree.before, ree.after, ree.new)
    if args.format == "json":
        emit_json(tonight_document(evening, ree_loaded=ree.loaded, ree_wanted=ree.wanted))
        return EXIT_OK
    if args.format == "md":
        from rankterm.stats.kept import held_changes
        from rankterm.stats.recap import tonight_recap

        sys.stdout.write(tonight_recap(evening, held_changes(group), zone.local(since), zone.label))
        return EXIT_OK

    def winners(m: Any) -> str:
        if m.bot_won:
            return "the game (bot)"
        names = ", ".join(m.winner_names)
        return f"{names} (tied)" if m.draw else names

    people = args.format == "table"  # for people, times in the seat's zone; CSV keeps the wire's UTC
    shown = zone if people else UTC_ZONE
    emit_rows(
        args.format,
        ["match", shown.heading("date") if people else "date", "game", "won"],
        [
            [m.number, shown.show(m.date) if people else m.date, m.game_name, winners(m)]
            for m in evening.matches
        ],
        title=f"since {shown.local(since):%Y-%m-%d %H:%M} {shown.label}",
    )
    gain, upset = evening.biggest_gain, evening.biggest_upset
    rows: list[list[Any]] = [[t.name, t.wins, t.played] for t in evening.tallies]
    if rows:
        emit_rows(args.format, ["player", "wins", "matches"], rows, title="players")
    notes: list[list[Any]] = [
        [
            "biggest gain",
            ""
            if gain is None
            else f"{gain.name} {signed(gain.gain, exact_sign=True)} ({_ree(gain.before)} → {_ree(gain.after)})",
        ],
        [
            "biggest upset",
            ""
            if upset is None
            else f"{upset.name} won {upset.game_name} (match {upset.match_number}) from {_ree(upset.ree_before)}",
        ],
    ]
    if ree.wanted:
        notes.append(
            [
                "ree loaded",
                f"{ree.loaded} of {ree.wanted} matches" + (f" ({ree.stopped})" if ree.stopped else ""),
            ]
        )
    if evening.matches:
        emit_rows(args.format, ["figure", "value"], notes, title="tonight")
    return EXIT_OK


async def predictions_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.predictions import score_predictions
    from rankterm.stats.source import held_matches

    if args.last is not None and args.last < 1:
        raise UsageError("--last takes a number of matches, 1 or more.")
    await _synced(group, args)
    scores = score_predictions(held_matches(group), args.last)
    if args.format == "json":
        emit_json(scores.document())
        return EXIT_OK
    rows: list[list[Any]] = [
        ["matches scored", scores.matches, "", ""],
        [
            "favourite finished first",
            _percent(scores.winner_picked),
            _percent(scores.baseline),
            _percent(scores.openskill_winner_picked),
        ],
        ["pairs ordered right", _percent(scores.pairwise), "50%", ""],
        [
            "Brier score (lower is better)",
            f"{scores.brier:.3f}",
            f"{scores.baseline_brier:.3f}",
            f"{scores.openskill_brier:.3f}",
        ],
    ]
    emit_rows(
        args.format,
        ["figure", "rankterm", "by chance", "openskill predict_win"],
        rows,
        title="how often the odds came true",
    )
    return EXIT_OK


async def changes_command(group: Group, args: argparse.Namespace) -> int:
    from rankterm.stats.kept import held_changes

    zone = shown_zone(args) if args.since or args.format == "table" else UTC_ZONE
    since = _since(args, group.client.clock(), zone)
    await _synced(group, args)
    start = since.strftime(DATE_FORMAT)  # wire dates are ordered as text
    events = held_changes(group, start)
    if args.format == "json":
        emit_json({"since": since.strftime("%Y-%m-%d %H:%M:%S"), "events": [e.document() for e in events]})
        return EXIT_OK
    emit_rows(
        args.format,
        ["match", zone.heading("date"), "what changed"],
        [[e.number, zone.show(e.date), e.text] for e in events],
        title=f"since {zone.local(since):%Y-%m-%d %H:%M} {zone.label}",
    )
    return EXIT_OK
