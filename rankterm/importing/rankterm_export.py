"""rankterm's own export (rankterm/importing/export.py) read back into `SourcePlay`s: the JSON document
(``"format": "rankterm-export"``, version 1) and the CSV (its header, `export.CSV_COLUMNS`).

The factions come ranked already and keep their external ids (``rtx-<its id>`` for a match without one), so a
group exported and imported elsewhere is rated the same, and importing it twice records nothing new. The JSON's
matches are read a line at a time; a document laid out otherwise is read whole. See docs/importing.md.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from rankterm.importing.export import CSV_COLUMNS, FORMAT, VERSION
from rankterm.importing.plays import (
    Seat,
    Side,
    SourceGame,
    SourcePlay,
    as_bool,
    as_int,
    unreadable_date,
    utc_date,
)
from rankterm.wire.errors import RanktermError

PREFIX = "rtx-"
GHOST_MARK = "*"


def looks_like(document: Any) -> bool:
    return isinstance(document, dict) and document.get("format") == FORMAT


def is_export_header(names: list[str]) -> bool:
    """Whether CSV column names are the export's (its first columns, in order)."""
    return tuple(names[: len(CSV_COLUMNS)]) == CSV_COLUMNS


def check_version(document: dict[str, Any], path: Path) -> None:
    version = as_int(document.get("version"))
    if version < 1 or version > VERSION:
        raise RanktermError(
            f"{path.name}: a rankterm export of version {document.get('version')!r}; this rankterm reads "
            f"version {VERSION} or older: update rankterm."
        )


def read_json(path: Path) -> Iterator[SourcePlay]:
    """The matches of a JSON export, oldest first, one at a time."""
    given = 0
    try:
        for play in _stream(path):
            given += 1
            yield play
    except _NotLineByLine:
        if given:
            raise RanktermError(f"{path.name}: match {given + 1} of the export cannot be read.") from None
        with path.open("rb") as fh:
            document = json.load(fh)
        if not looks_like(document):
            raise RanktermError(f"{path.name}: not a rankterm export.") from None
        check_version(document, path)
        for n, match in enumerate(document.get("matches") or [], start=1):
            if isinstance(match, dict):
                yield play_of(n, match)


class _NotLineByLine(Exception):
    """The document is not laid out one item a line: read it whole."""


def _stream(path: Path) -> Iterator[SourcePlay]:
    head: dict[str, Any] = {}
    in_matches = False
    n = 0
    with path.open(encoding="utf-8-sig") as fh:
        first = fh.readline().strip()
        if not first.startswith('{"format": '):
            raise _NotLineByLine
        for line in chain([first[1:]], fh):
            text = line.strip()
            if not in_matches:
                if text.startswith('"matches": ['):
                    if not looks_like(head):
                        raise _NotLineByLine
                    check_version(head, path)
                    in_matches = True
                    if text.endswith("]") or text.endswith("],"):
                        return
                    continue
                if text.startswith('"') and '": ' in text and not text.endswith("["):
                    try:
                        head.update(json.loads("{" + text.rstrip(",") + "}"))
                    except ValueError:
                        raise _NotLineByLine from None
                continue
            if text in ("]", "],"):
                return
            n += 1
            try:
                match = json.loads(text.rstrip(","))
            except ValueError:
                raise _NotLineByLine from None
            if isinstance(match, dict):
                yield play_of(n, match)
    if not in_matches:
        raise _NotLineByLine


def play_of(n: int, match: dict[str, Any]) -> SourcePlay:
    """One exported match (wire shape) as a play with its factions given."""
    game: dict[str, Any] = match["game"] if isinstance(match.get("game"), dict) else {}
    seats: list[Seat] = []
    factions: list[Side] = []
    for faction in match.get("factions") or []:
        if not isinstance(faction, dict):
            continue
        start = len(seats)
        for player in faction.get("players") or []:
            if isinstance(player, dict):
                seats.append(_seat(str(player.get("id") or ""), str(player.get("displayName") or "")))
        points = faction.get("points")
        factions.append(
            Side(
                seats=tuple(range(start, len(seats))),
                rank=as_int(faction.get("rank")),
                points="" if points is None else str(points),
                name=str(faction.get("name") or ""),
                bot=as_bool(faction.get("bot")),
            )
        )
    written = str(match.get("date") or "")
    date = utc_date(written)
    return SourcePlay(
        external_id=str(match.get("externalId") or "").strip() or f"{PREFIX}{match.get('id') or n}",
        where=f"match {match.get('number') or n}",
        game=SourceGame(str(game.get("name") or ""), bgg_id=as_int(game.get("bggIdGame")) or None),
        date=date,
        seats=tuple(seats),
        factions=tuple(factions),
        weight=str(match.get("weight") or "normal"),
        notes=str(match.get("notes") or ""),
        skip="" if date is not None else unreadable_date(written),
        order=as_int(match.get("number")) or n,
        bad_date=written if date is None else "",
    )


def _seat(player_id: str, display_name: str) -> Seat:
    name = display_name[1:] if display_name.startswith(GHOST_MARK) else display_name
    return Seat(key=f"rt-player-{player_id}", name=name.strip())


def read_csv(path: Path) -> Iterator[SourcePlay]:
    """The matches of a CSV export, oldest first, one at a time."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        rows = csv.DictReader(fh)
        if not is_export_header(list(rows.fieldnames or [])):
            raise RanktermError(f"{path.name}: not a rankterm CSV export.")
        current: list[dict[str, str]] = []
        n = 0
        for row in rows:
            if current and row.get("match") != current[0].get("match"):
                n += 1
                yield play_of(n, _as_match(current))
                current = []
            current.append(row)
        if current:
            yield play_of(n + 1, _as_match(current))


def _as_match(rows: list[dict[str, str]]) -> dict[str, Any]:
    """The CSV rows of one match in the JSON export's shape."""
    first = rows[0]
    factions: dict[str, dict[str, Any]] = {}
    for row in rows:
        faction = factions.setdefault(
            row.get("faction", ""),
            {
                "rank": row.get("rank"),
                "points": row.get("points") or None,
                "name": row.get("faction_name", ""),
                "bot": row.get("bot"),
                "players": [],
            },
        )
        if row.get("player_id"):
            name = row.get("player", "")
            ghost = as_bool(row.get("ghost")) and not name.startswith(GHOST_MARK)
            faction["players"].append(
                {"id": row["player_id"], "displayName": (GHOST_MARK if ghost else "") + name}
            )
    return {
        "id": first.get("match_id"),
        "externalId": first.get("external_id"),
        "number": as_int(first.get("match")),
        "date": first.get("date"),
        "weight": first.get("weight"),
        "notes": first.get("notes", ""),
        "game": {"name": first.get("game", ""), "id": first.get("game_id")},
        "factions": list(factions.values()),
    }
