"""What kind of file an import was given, told by its content (never by its name), and the reader for it.

- ``<`` … ``<plays``: BoardGameGeek plays XML (`bgg.py`);
- ``{"format": "rankterm-export"``: rankterm's own JSON export (`rankterm_export.py`);
- any other JSON object: a BG Stats export (`bgstats.py`; checked when read);
- a first line with the columns of rankterm's CSV export: that CSV (`rankterm_export.py`);
- a first line with ``date``, ``game`` and ``player`` columns: CSV of plays (`csv_plays.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from rankterm.importing import bgg, bgstats, csv_plays, rankterm_export
from rankterm.importing.plays import SourcePlay
from rankterm.wire.errors import RanktermError

SNIFF = 64 * 1024


Reader = Callable[[Path, tzinfo | None], Iterator[SourcePlay]]
"""Reads the plays of a file; the zone is that of the file's local times (None: this machine's)."""


@dataclass(frozen=True)
class Source:
    """A file to import and how to read it; `plays()` reads it again from the start each time."""

    kind: str
    """"bgstats", "bgg", "csv", "rankterm" (JSON) or "rankterm-csv"."""
    label: str
    path: Path
    reader: Reader
    local_times: bool = False
    """Whether the file's times are local times, with no zone (BG Stats): `plays(zone)` says which zone."""

    def plays(self, zone: tzinfo | None = None) -> Iterator[SourcePlay]:
        """The file's plays in file order; local times taken in `zone` (None: this machine's zone)."""
        return self.reader(self.path, zone)


def _utc(read: Callable[[Path], Iterator[SourcePlay]]) -> Reader:
    """A reader of a file whose dates are UTC (or days): the zone does not concern it."""
    return lambda path, _zone: read(path)


def _bgstats(path: Path, zone: tzinfo | None) -> Iterator[SourcePlay]:
    with path.open("rb") as fh:
        try:
            document = json.load(fh)
        except ValueError as exc:
            raise RanktermError(f"{path.name}: the JSON cannot be read ({exc}).") from None
    if not bgstats.looks_like(document):
        raise RanktermError(
            f"{path.name}: a JSON file that is neither a BG Stats export (players, games, plays) nor a "
            "rankterm export."
        )
    yield from bgstats.plays(document, zone)


def open_source(path: Path | str) -> Source:
    """The source at `path`, by its content; `RanktermError` when it is none of the known kinds."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            head = fh.read(SNIFF)
    except OSError as exc:
        raise RanktermError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("<"):
        if "<plays" in text:
            return Source("bgg", "BoardGameGeek plays (XML)", path, _utc(bgg.read))
        raise RanktermError(f"{path.name}: an XML file, but not BoardGameGeek plays (<plays>).")
    if text.startswith("{"):
        compact = "".join(text[:200].split())
        if compact.startswith('{"format":"' + rankterm_export.FORMAT + '"'):
            return Source("rankterm", "rankterm export (JSON)", path, _utc(rankterm_export.read_json))
        return Source("bgstats", "BG Stats export", path, _bgstats, local_times=True)
    first = text.splitlines()[0] if text else ""
    header = csv_plays.header_fields(first)
    if header is not None and rankterm_export.is_export_header(header[1]):
        return Source("rankterm-csv", "rankterm export (CSV)", path, _utc(rankterm_export.read_csv))
    if header is not None:
        return Source("csv", "CSV of plays", path, _utc(csv_plays.read))
    raise RanktermError(
        f"{path.name}: not a file rankterm can import: a BG Stats export (.bgsplay/.json), BoardGameGeek "
        f"plays (XML), a rankterm export, or CSV with the header {csv_plays.HEADER}."
    )
