"""What every headless command shares: where its group comes from, how it prints, and its exit code.

`run_headless` opens the client (a profile's, or an in-process demo group), runs the command's coroutine,
closes the client, and maps the exception tree to the exit codes. `emit_rows` and `RowWriter` print tables
(Rich on a terminal, tab-separated when piped, every cell `display_safe`), CSV and JSON (exact text).
`positive_int` and `subset_id` are argument types; `served` refuses an answer from the mirror when the service
could not be reached. An example command: docs/development.md ("Writing a command").
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import re
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import IO, TYPE_CHECKING, Any

from rankterm.wire.errors import ApiError, Offline, RanktermError
from rankterm.wire.text import BIDI_CONTROLS, ascii_digits, display_safe

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group
    from rankterm.wire.localtime import SeatZone

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_OFFLINE = 0, 1, 2, 3

Headless = Callable[["Group", argparse.Namespace], Awaitable[int]]


class UsageError(RanktermError):
    """A command given something it cannot use (exit 2), found after parsing."""


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """`--demo` (an in-process demo group) and `--profile P` (also accepted before the command)."""
    parser.add_argument("--demo", action="store_true", help="use an in-process demo group (no network)")
    parser.add_argument("--profile", dest="command_profile", metavar="PROFILE", help="profile of config.toml")


def positive_int(text: str) -> int:
    """An argparse type: an integer from 1 (a page, a match number), at most a billion."""
    if not ascii_digits(text.strip()) or not 1 <= int(text) <= 10**9:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number from 1")
    return int(text)


def subset_id(text: str) -> str:
    """An argparse type: a subset id as `rankterm subsets` lists them (never all digits: WIRE.md)."""
    value = text.strip()
    if not value or ascii_digits(value) or "/" in value or not value.isprintable() or len(value) > 100:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a subset id (`rankterm subsets` lists them, e.g. main or g13)"
        )
    return value


def check_port(port: int) -> None:
    """Refuse a `--port` no socket can have (0: any free one)."""
    if not 0 <= port <= 65535:
        raise RanktermError(f"--port must be between 0 and 65535, not {port}.")


def profile_name(args: argparse.Namespace) -> str | None:
    """The profile asked for, after the command or before it (`rankterm --profile P games`)."""
    return getattr(args, "command_profile", None) or getattr(args, "profile", None)


def add_format_argument(parser: argparse.ArgumentParser, *formats: str) -> None:
    """`--format` with `formats`, the first being the default."""
    parser.add_argument(
        "--format", choices=formats, default=formats[0], help=f"output (default {formats[0]})"
    )


def source_name(args: argparse.Namespace) -> str:
    """What the group of `args` is called: "demo", or the name of the profile used."""
    if getattr(args, "demo", False):
        return "demo"
    from rankterm.config import load_config

    profile = load_config().profile(profile_name(args))
    return profile.name if profile is not None else (profile_name(args) or "")


def shown_zone(args: argparse.Namespace) -> SeatZone:
    """The time zone a table for people shows times in: the `timezone` of the profile used (the top-level
    one for --demo), else this machine's; when it cannot be had (no tzdata), UTC, said once on stderr."""
    from rankterm.config import load_config

    config = load_config()
    name = None
    if not getattr(args, "demo", False) and (profile := config.profile(profile_name(args))) is not None:
        name = profile.name
    zone = config.zone(name)
    if zone.note:
        print(f"rankterm: warning: {zone.note}", file=sys.stderr)
    return zone


def open_client(args: argparse.Namespace) -> Group:
    """The group a headless command works on: the demo group, the chosen profile, or the default profile."""
    from rankterm.cli.app import make_demo_client, make_profile_client
    from rankterm.config import load_config
    from rankterm.mirror import Group

    name = profile_name(args)
    if getattr(args, "demo", False):
        if name:
            raise UsageError("Give --demo or --profile, not both.")
        return Group.of(make_demo_client())
    return make_profile_client(load_config().chosen_profile(name))


def exit_code(exc: BaseException) -> int:
    """The exit code for an error of the service layer."""
    if isinstance(exc, Offline):
        return EXIT_OFFLINE
    if isinstance(exc, ApiError):
        return EXIT_REFUSED
    return EXIT_USAGE


def run_headless(
    args: argparse.Namespace, command: Headless, client: RankingClient | Group | None = None
) -> int:
    """Run `command` on the group of `args` (or of `client`, a client or its group), one sentence on stderr
    for an error."""
    from rankterm.mirror import Group

    async def go() -> int:
        opened = Group.of(client) if client is not None else open_client(args)
        try:
            return await command(opened, args)
        finally:
            if client is None:
                await opened.client.aclose()

    try:
        return asyncio.run(go())
    except RanktermError as exc:
        print(f"rankterm: {exc}", file=sys.stderr)
        return exit_code(exc)


def served(group: Group, *names: str) -> None:
    """Raise `Offline` when an answer of `names` (any, when none is named) came from the mirror because the
    service could not be reached: a script must not take this machine's old copy for the service's answer."""
    stale = {name: group.as_of_for(name) for name in names} if names else {"": group.as_of}
    for name, when in stale.items():
        if when is not None:
            raise Offline(
                name or "service", f"only this machine's copy of {when:%Y-%m-%d %H:%M} could answer"
            )


def is_terminal(stream: IO[str] | None = None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


_ACTED_ON_IN_JSON = re.compile(f"[\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}]")
"""What a terminal acts on that JSON leaves as it is (it escapes the ASCII controls itself)."""


def json_escaped(text: str) -> str:
    """JSON text with every character a terminal would act on (C1 controls, DEL, line separators, bidi
    controls) written as its \\u escape: the same JSON value, shown in the order it is given."""
    return _ACTED_ON_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class Lines(tuple[str, ...]):
    """A cell of several lines that are ours (a match's places): a line each in a table on a terminal, joined
    by two spaces when piped and in CSV; each line's text made `display_safe` wherever a cell is."""


def _cell(value: Any, safe: Callable[[str], str], lines_sep: str = "  ") -> str:
    """A cell's text: `safe` applied to the text (to each line of `Lines`, joined by `lines_sep`)."""
    if isinstance(value, Lines):
        return lines_sep.join(safe(line) for line in value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return safe(str(value))


class RowWriter:
    """Rows printed as they come (page by page), in `fmt`: "table" (Rich on a terminal, drawn at `close()`;
    tab-separated when piped, streamed), "csv", "json" (a list of objects: `add_item` for wire shapes, or
    rows keyed by `columns`) or "jsonl" (one object a line)."""

    def __init__(
        self, fmt: str, columns: Sequence[str], *, title: str | None = None, out: IO[str] | None = None
    ) -> None:
        self.fmt, self.columns, self.title = fmt, list(columns), title
        if fmt == "table":  # whatever a command passes, nothing raw from outside reaches a terminal
            self.columns = [display_safe(c) for c in self.columns]
            self.title = display_safe(title) if title else title
        self.out = out or sys.stdout
        self.count = 0
        self._rich_rows: list[list[str]] | None = None
        self._csv: Any = None
        if fmt == "csv":
            self._csv = csv.writer(self.out, lineterminator="\n")
            self._csv.writerow(
                [display_safe(c) for c in self.columns] if is_terminal(self.out) else self.columns
            )
        elif fmt == "json":
            self.out.write("[")
        elif fmt == "table" and is_terminal(self.out):
            self._rich_rows = []
        elif fmt == "table":
            if self.title:
                print(f"# {self.title}", file=self.out)
            print("\t".join(self.columns), file=self.out)

    def add(self, row: Sequence[Any], item: Any = None) -> None:
        """One row; `item` is what json/jsonl print for it (default: the row keyed by the columns)."""
        if self.fmt in ("json", "jsonl"):
            self.add_item(dict(zip(self.columns, row, strict=True)) if item is None else item)
            return
        self.count += 1
        if self._csv is not None:  # byte-exact to a file or pipe; to a terminal, no escape codes from names
            safe = display_safe if is_terminal(self.out) else str
            self._csv.writerow([_cell(v, safe) for v in row])
        elif self._rich_rows is not None:
            self._rich_rows.append([_cell(v, display_safe, "\n") for v in row])
        else:
            print("\t".join(_cell(v, display_safe) for v in row), file=self.out)

    def add_item(self, item: Any) -> None:
        """One JSON value (json, jsonl)."""
        text = json.dumps(item, ensure_ascii=False)
        if is_terminal(self.out):
            text = json_escaped(text)
        if self.fmt == "jsonl":
            self.out.write(text + "\n")
        else:
            self.out.write(("\n  " if self.count == 0 else ",\n  ") + text)
        self.count += 1

    def close(self) -> None:
        if self.fmt == "json":
            self.out.write("\n]\n" if self.count else "]\n")
        elif self._rich_rows is not None:
            from rich import box
            from rich.console import Console
            from rich.table import Table
            from rich.text import Text

            table = Table(
                title=Text(self.title) if self.title else None,
                title_justify="left",
                box=box.SIMPLE_HEAD,  # no inner rules: 80 columns hold the standings' 8
                pad_edge=False,
            )
            for column in self.columns:
                table.add_column(Text(column))
            for row in self._rich_rows:
                table.add_row(*(Text(v) for v in row))
            Console(file=self.out).print(table)
            self._rich_rows = []
        self.out.flush()

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.close()


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
    with RowWriter(fmt, columns, title=title, out=out) as writer:
        for row in rows:
            writer.add(row)


def emit_json(document: Any, *, out: IO[str] | None = None) -> None:
    """One JSON document on `out`, UTF-8 as it is (no \\u escapes for names; on a terminal, those of
    `json_escaped`), ending with a newline."""
    out = out or sys.stdout
    text = json.dumps(document, ensure_ascii=False, indent=2)
    out.write((json_escaped(text) if is_terminal(out) else text) + "\n")
