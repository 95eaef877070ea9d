"""`rankterm import FILE…`: plays from BG Stats, BoardGameGeek, a CSV file or rankterm's own export, into the
group, through the outbox.

    rankterm import plays.xml --dry-run               what would be recorded, made and skipped, and why
    rankterm import bgstats.bgsplay --map players.toml --tz Europe/Paris

The dry run is always shown (with `--dry-run` nothing else happens); then new games are made and the ghosts
and matches go through the outbox, each with an external id from its file, so importing again records nothing
new. `--format json` prints the dry run and what was sent. Options, JSON and exit codes: docs/importing.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from rankterm.cli.common import (
    EXIT_OFFLINE,
    EXIT_OK,
    EXIT_REFUSED,
    add_format_argument,
    add_source_arguments,
    emit_json,
    emit_rows,
    is_terminal,
    positive_int,
    run_headless,
)

if TYPE_CHECKING:
    from rankterm.importing import ImportReport, Plan
    from rankterm.mirror import Group
    from rankterm.outbox.outbox import Outbox

ORDER = 61

MAX_BATCH = 100


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "import",
        help="import plays from BG Stats, BoardGameGeek, CSV or a rankterm export (dry run first)",
        description="Import the plays of FILE (or of several files together, oldest first; a play in two "
        "files counts once) into the group, through the outbox. The kind of file is told by its content: a "
        "BG Stats export (.bgsplay/.json), BoardGameGeek plays (XML; one page or several, saved or pasted "
        "into one file), a rankterm export (JSON or CSV), or CSV with the header "
        "date,game,player,team,rank,score.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="the file or files to import")
    parser.add_argument("--dry-run", action="store_true", help="show what would be done, and do nothing")
    parser.add_argument(
        "--map", metavar="TOML", help="names of the file to the group's players, co-op and lowest-wins games"
    )
    parser.add_argument(
        "--tz",
        metavar="ZONE",
        help="the time zone of BG Stats' local times, a zoneinfo name such as Europe/Paris (default: this "
        "machine's zone)",
    )
    parser.add_argument(
        "--batch",
        type=positive_int,
        metavar="N",
        help=f"matches per request (default 10; at most {MAX_BATCH}: the embedded service's limit)",
    )
    add_source_arguments(parser)
    add_format_argument(parser, "table", "json")
    parser.set_defaults(run=lambda args: run_headless(args, run_import))


def _say(text: str) -> None:
    print(text, file=sys.stderr)


async def run_import(group: Group, args: argparse.Namespace) -> int:
    from rankterm.cli.app import make_outbox
    from rankterm.importing import load_map, open_source, plan_import
    from rankterm.importing.plays import zone_named
    from rankterm.importing.report import nothing_recorded
    from rankterm.wire.text import display_safe

    zone = zone_named(args.tz) if args.tz is not None else None
    sources = [open_source(path) for path in args.files]
    map_file = load_map(args.map) if args.map else None
    if args.batch:
        group.client.batch_size = min(args.batch, MAX_BATCH)
    outbox = make_outbox(group.client, bool(args.demo))
    if outbox.problem:  # a damaged file was moved aside: where it went, and what was carried over
        _say(f"rankterm: {outbox.problem}")
    try:
        reading = _Reading() if is_terminal(sys.stderr) else None
        plan = await plan_import(
            group, sources, map_file=map_file, outbox=outbox, zone=zone, progress=reading
        )
        if reading is not None:
            reading.done()
        with plan:
            nothing = plan.to_record == 0 and not plan.queued
            if args.format == "table" or args.dry_run or nothing:
                show_plan(plan, args.format)
            why_nothing = nothing_recorded(plan)
            if why_nothing is not None:
                _say(f"rankterm: {display_safe(why_nothing)}")
                return EXIT_REFUSED
            if args.dry_run:
                return EXIT_OK
            if nothing:
                _say("rankterm: nothing new to record.")
                return EXIT_OK
            report = await _send(plan, group, outbox)
            if args.format == "json":  # one document: the dry run and what was sent
                from rankterm.importing.report import as_json, report_json

                emit_json({"dryRun": as_json(plan), "sent": report_json(report)})
        return _exit(report)
    finally:
        outbox.close()


class _Reading:
    """ "reading… N plays" on stderr while the file is planned (a terminal only)."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, plays: int) -> None:
        sys.stderr.write(f"\rreading {plays} plays…")
        sys.stderr.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def show_plan(plan: Plan, fmt: str) -> None:
    """The dry run: JSON on stdout, or sentences and tables."""
    from rankterm.importing.report import as_json, sections, summary
    from rankterm.wire.text import display_safe

    if fmt == "json":
        emit_json({"dryRun": as_json(plan)})
        return
    # names from the file reach the terminal with their control characters shown as symbols, never sent
    for line in summary(plan):
        print(display_safe(line))
    for section in sections(plan):
        if section.rows:
            print()
            rows = [[display_safe(cell) for cell in row] for row in section.rows]
            emit_rows("table", section.columns, rows, title=section.title)


async def _send(plan: Plan, group: Group, outbox: Outbox) -> ImportReport:
    from rankterm.importing import send_plan
    from rankterm.importing.report import outcome
    from rankterm.outbox.outbox import OutboxSender

    say: Callable[[str], None] = _say

    async def wait(seconds: float) -> None:  # the sender's pause between tries: said, not silent
        say(f"rankterm: the service did not answer; trying again in {seconds:g} s")
        await asyncio.sleep(seconds)

    sender = OutboxSender(outbox, group, sleep=wait)
    if is_terminal(sys.stderr):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        columns = (TextColumn("sending"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
            console = bar.console
            say = lambda text: console.print(text, markup=False, highlight=False)  # noqa: E731 - above the bar
            task = bar.add_task("sending", total=max(1, plan.to_record))
            report = await send_plan(
                plan,
                group,
                outbox,
                sender.send_pending,
                progress=lambda n, _t: bar.update(task, completed=n),
            )
    else:
        report = await send_plan(plan, group, outbox, sender.send_pending)
    _say(f"rankterm: {outcome(report)}")
    return report


def _exit(report: ImportReport) -> int:
    from rankterm.wire.errors import Offline

    if isinstance(report.stopped, Offline):
        return EXIT_OFFLINE
    if report.stopped is not None or report.rejected or report.left_out:
        return EXIT_REFUSED
    return EXIT_OK
