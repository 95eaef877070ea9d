"""Plays from a CSV file with a documented header, read into `SourcePlay`s as a stream (one play at a time).

One row a person in a play: ``date,game,player,team,rank,score`` and optional ``winner``, ``play``, ``bgg_id``,
``notes``, in any order and case, comma, semicolon or tab separated. The external id is ``csv-`` and a hash of
the play, so importing the file again records nothing new. The columns and how rows make a play:
docs/importing.md ("CSV", "What each source gives").
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterator
from pathlib import Path

from rankterm.importing.plays import (
    Seat,
    SourceGame,
    SourcePlay,
    as_bool,
    as_int,
    unreadable_date,
    utc_date,
)
from rankterm.wire.errors import RanktermError

PREFIX = "csv-"
REQUIRED = ("date", "game", "player")
KNOWN = (*REQUIRED, "team", "rank", "score", "winner", "play", "bgg_id", "notes")
HEADER = "date,game,player,team,rank,score"


def header_fields(line: str) -> tuple[str, list[str]] | None:
    """(delimiter, column names) of a header line when it is one of ours (has date, game, player); else None."""
    line = line.lstrip("\ufeff").rstrip("\r\n")
    for delimiter in (",", ";", "\t"):
        cells = next(csv.reader([line], delimiter=delimiter), [])
        names = [c.strip().casefold().replace(" ", "_") for c in cells]
        if all(r in names for r in REQUIRED):
            return delimiter, names
    return None


def read(path: Path) -> Iterator[SourcePlay]:
    """The plays of the CSV at `path`, in file order."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        header = header_fields(fh.readline())
        if header is None:
            raise RanktermError(f"{path.name}: the first line must be a header with at least {HEADER}.")
        delimiter, names = header
        rows = csv.reader(fh, delimiter=delimiter)
        has_play = "play" in names
        current: list[tuple[int, dict[str, str]]] = []
        n = 0
        for line_no, values in enumerate(rows, start=2):
            if not any(v.strip() for v in values):
                continue
            row = {name: (values[i].strip() if i < len(values) else "") for i, name in enumerate(names)}
            if current and not _same_play(current, row, has_play):
                n += 1
                yield _play(n, current, has_play)
                current = []
            current.append((line_no, row))
        if current:
            yield _play(n + 1, current, has_play)


def _same_play(current: list[tuple[int, dict[str, str]]], row: dict[str, str], has_play: bool) -> bool:
    first = current[0][1]
    if has_play:
        return row.get("play", "") == first.get("play", "")
    if (row["date"], row["game"]) != (first["date"], first["game"]):
        return False
    return row["player"].casefold() not in {r["player"].casefold() for _, r in current}


def _play(n: int, rows: list[tuple[int, dict[str, str]]], has_play: bool) -> SourcePlay:
    line, first = rows[0]
    bgg = as_int(first.get("bgg_id"))
    game = SourceGame(first["game"], bgg_id=bgg if bgg > 0 else None)
    seats = tuple(
        Seat(
            key=f"csv-{row['player'].casefold()}",
            name=row["player"],
            score=row.get("score", ""),
            winner=as_bool(row.get("winner", "")),
            rank=max(0, as_int(row.get("rank", ""))),
            team=row.get("team", ""),
        )
        for _, row in rows
    )
    date = utc_date(first["date"])
    if has_play and first.get("play"):
        key = repr((first["play"], first["date"], first["game"]))
    else:
        key = repr([sorted(row.items()) for _, row in rows])
    where = f"line {line}" if len(rows) == 1 else f"lines {line}-{rows[-1][0]}"
    return SourcePlay(
        external_id=PREFIX + hashlib.sha1(key.encode()).hexdigest()[:20],
        where=where,
        game=game,
        date=date,
        seats=seats,
        notes=first.get("notes", "")[:5000],
        skip="" if date is not None else unreadable_date(first["date"]),
        order=n,
        bad_date=first["date"] if date is None else "",
    )
