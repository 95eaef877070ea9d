"""What every headless command shares: where its group comes from, how it prints, and its exit code.

    def register(sub):
        p = sub.add_parser("games", help="...")
        add_source_arguments(p)              # --demo (the global --profile picks a profile)
        add_format_argument(p, "table", "csv", "json")
        p.set_defaults(run=lambda args: run_headless(args, list_games))

    async def list_games(client: RankingClient, args) -> int:
        emit_rows(args.format, ["id", "name"], [[g.id, g.name] for g in await client.games()])
        return 0

`run_headless` opens the client (the profile's mirror and token cache, or an in-process demo group), runs the
coroutine, closes the client, and maps the exception tree to the exit codes of `rankterm.cli`: 0 done,
1 a refusal from the service (its one-line message on stderr), 2 a usage or configuration error, 3 offline.
Tables are drawn with Rich on a terminal and as plain tab-separated text when piped; CSV and JSON are the
same wherever they go. Text that is not ours is printed as it is (Rich markup is never read from it).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import IO, TYPE_CHECKING, Any

from rankterm.api.errors import ApiError, Offline, RanktermError

if TYPE_CHECKING:
    from rankterm.api.client import RankingClient

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_OFFLINE = 0, 1, 2, 3

Headless = Callable[["RankingClient", argparse.Namespace], Awaitable[int]]


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """`--demo` (an in-process demo group) and `--profile P` (also accepted after the command)."""
    parser.add_argument("--demo", action="store_true", help="use an in-process demo group (no network)")
    parser.add_argument("--profile", dest="command_profile", help="profile of config.toml to use")


def add_format_argument(parser: argparse.ArgumentParser, *formats: str) -> None:
    """`--format` with `formats`, the first being the default."""
    parser.add_argument(
        "--format", choices=formats, default=formats[0], help=f"output (default {formats[0]})"
    )


def open_client(args: argparse.Namespace) -> RankingClient:
    """The client a headless command works on: the demo group, the chosen profile, or the default profile."""
    from rankterm.cli.app import make_demo_client, make_profile_client
    from rankterm.config import load_config

    if getattr(args, "demo", False):
        return make_demo_client()
    name = getattr(args, "command_profile", None) or getattr(args, "profile", None)
    config = load_config()
    profile = config.profile(name)
    if profile is None:
        if name:
            raise RanktermError(f"No profile named {name!r} in the config (see `rankterm locate`).")
        raise RanktermError("No profile is configured: run `rankterm` to add one, or pass --demo.")
    return make_profile_client(profile)


def exit_code(exc: BaseException) -> int:
    """The exit code for an error of the service layer."""
    if isinstance(exc, Offline):
        return EXIT_OFFLINE
    if isinstance(exc, ApiError):
        return EXIT_REFUSED
    return EXIT_USAGE


def run_headless(args: argparse.Namespace, command: Headless, client: RankingClient | None = None) -> int:
    """Run `command` on the client of `args` (or `client`), one sentence on stderr for an error."""

    async def go() -> int:
        opened = client if client is not None else open_client(args)
        try:
            return await command(opened, args)
        finally:
            if client is None:
                await opened.aclose()

    try:
        return asyncio.run(go())
    except RanktermError as exc:
        print(f"rankterm: {exc}", file=sys.stderr)
        return exit_code(exc)


def is_terminal(stream: IO[str] | None = None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def emit_rows(
    fmt: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    title: str | None = None,
    out: IO[str] | None = None,
) -> None:
    """Print `rows` under `columns` as a table (Rich on a terminal, tab-separated when piped), CSV, or JSON
    (a list of objects keyed by `columns`)."""
    out = out or sys.stdout
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([_cell(v) for v in row] for row in rows)
    elif fmt == "json":
        emit_json([dict(zip(columns, row, strict=True)) for row in rows], out=out)
    elif is_terminal(out):
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(title=Text(title) if title else None, title_justify="left")
        for column in columns:
            table.add_column(Text(column))
        for row in rows:
            table.add_row(*(Text(_cell(v)) for v in row))
        Console(file=out).print(table)
    else:
        if title:
            print(f"# {title}", file=out)
        print("\t".join(columns), file=out)
        for row in rows:
            print("\t".join(_cell(v).replace("\t", " ").replace("\n", " ") for v in row), file=out)


def emit_json(document: Any, *, out: IO[str] | None = None) -> None:
    """One JSON document on `out`, UTF-8 as it is (no \\u escapes for names), ending with a newline."""
    out = out or sys.stdout
    json.dump(document, out, ensure_ascii=False, indent=2)
    out.write("\n")
