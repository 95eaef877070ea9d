"""`rankterm export FILE`: the whole group (games, players, matches with their factions, oldest first) as one
JSON document (format `rankterm-export`, version 1), or with `--format csv` one row per faction player.

    rankterm export league.json                  the default profile's group
    rankterm export - --demo | jq '.counts'      `-` writes to stdout

The file is written through a temporary file beside it and renamed only once complete: FILE is never half
written. The format, and how matches come oldest first: docs/cli.md ("Export").
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING, cast

from rankterm.cli.common import (
    EXIT_OK,
    UsageError,
    add_format_argument,
    add_source_arguments,
    is_terminal,
    run_headless,
    source_name,
)
from rankterm.wire.text import display_safe, display_safe_lines

if TYPE_CHECKING:
    from rankterm.mirror import Group

ORDER = 60


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "export",
        help="write the whole group to a file (JSON, or CSV one row per faction player)",
        description="Write the whole group (games, players, matches oldest first) to FILE.",
    )
    parser.add_argument("file", metavar="FILE", help="where to write; - for stdout")
    add_source_arguments(parser)
    add_format_argument(parser, "json", "csv")
    parser.set_defaults(run=lambda args: run_headless(args, run_export))


async def run_export(service: Group, args: argparse.Namespace) -> int:
    from rankterm.importing.export import export, export_to_path, public_url

    client = service.client  # an export reads the service itself, never the mirror
    group = {"name": source_name(args), "service": public_url(client.base_url)}
    if args.file == "-":
        out = (
            cast("IO[str]", _SafeOut(sys.stdout, rows=args.format == "csv"))
            if is_terminal(sys.stdout)
            else sys.stdout
        )  # pipe/file: exact
        await export(client, out, args.format, group=group)
        sys.stdout.flush()
        return EXIT_OK
    progress = _progress if is_terminal(sys.stderr) else None
    try:
        counts = await export_to_path(client, args.file, args.format, group=group, progress=progress)
    except OSError as exc:
        raise UsageError(f"Cannot write {args.file}: {exc.strerror or exc}.") from None
    finally:
        if progress is not None:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
    what = (
        f"{counts.rows} rows of "
        if args.format == "csv"
        else f"{counts.games} games, {counts.players} players, "
    )
    print(f"rankterm: exported {what}{counts.matches} matches to {args.file}.", file=sys.stderr)
    return EXIT_OK


def _progress(written: int, total: int) -> None:
    """`exporting… 1200 of 3000 matches` on one line of the terminal, rewritten after each page."""
    print(f"\rexporting… {written} of {total} matches", end="", file=sys.stderr, flush=True)


class _SafeOut:
    """A terminal to write an export on: every control character shown as a symbol, so that a name cannot
    retitle or clear the screen of whoever runs `rankterm export -` (a pipe or file stays exact). The
    document's own newlines are kept; with `rows` (CSV, written a row at a time) a line break inside a row (a
    name's) is shown as "⏎", as the other commands show CSV on a terminal."""

    def __init__(self, out: IO[str], *, rows: bool = False) -> None:
        self.out = out
        self.rows = rows

    def write(self, text: str) -> int:
        if self.rows and text.endswith("\n"):
            return self.out.write(display_safe(text[:-1]) + "\n")
        return self.out.write(display_safe(text) if self.rows else display_safe_lines(text))

    def flush(self) -> None:
        self.out.flush()
