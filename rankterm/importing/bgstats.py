"""BG Stats exports (``.bgsplay`` / ``.json``) read into `SourcePlay`s (FORMATS.md "BG Stats export").

The export is one JSON document whose parts refer to each other by ids local to the file, so it is read whole
with `json.load` and held only while the plays are turned one at a time into `SourcePlay`s. Its times are local
and made UTC in the zone the import is given, else this machine's. What is read: docs/importing.md ("What each
source gives").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import tzinfo
from pathlib import Path
from typing import Any

from rankterm.importing.plays import (
    Seat,
    SourceGame,
    SourcePlay,
    as_bool,
    as_int,
    local_to_utc,
    unreadable_date,
)

PREFIX = "bgs-"


def looks_like(document: Any) -> bool:
    """Whether a parsed JSON document is a BG Stats export."""
    return (
        isinstance(document, dict)
        and isinstance(document.get("plays"), list)
        and isinstance(document.get("players"), list)
        and isinstance(document.get("games"), list)
    )


def read(path: Path, zone: tzinfo | None = None) -> Iterator[SourcePlay]:
    """The plays of the export at `path`, in file order, their local times taken in `zone` (None: this
    machine's)."""
    with path.open("rb") as fh:
        document = json.load(fh)
    yield from plays(document, zone)


def plays(document: dict[str, Any], zone: tzinfo | None = None) -> Iterator[SourcePlay]:
    """The plays of a parsed export, in file order, their local times taken in `zone` (None: this
    machine's)."""
    people = {p.get("id"): p for p in document.get("players") or [] if isinstance(p, dict)}
    games = {g.get("id"): g for g in document.get("games") or [] if isinstance(g, dict)}
    for n, raw in enumerate(document.get("plays") or [], start=1):
        if isinstance(raw, dict):
            yield _play(n, raw, people, games, zone)


def _game(raw: dict[str, Any] | None) -> SourceGame:
    if raw is None:
        return SourceGame("")
    bgg = as_int(raw.get("bggId"))
    return SourceGame(
        name=str(raw.get("name") or raw.get("bggName") or "").strip(),
        bgg_id=bgg if bgg > 0 else None,
        cooperative=as_bool(raw.get("cooperative")),
        lowest_wins="highestWins" in raw and not as_bool(raw.get("highestWins")),
    )


def _play(
    n: int, raw: dict[str, Any], people: dict[Any, Any], games: dict[Any, Any], zone: tzinfo | None
) -> SourcePlay:
    game_raw = games.get(raw.get("gameRefId"))
    no_points = bool(game_raw and as_bool(game_raw.get("noPoints")))
    teams = as_bool(raw.get("usesTeams")) or bool(game_raw and as_bool(game_raw.get("usesTeams")))
    seats = tuple(
        _seat(s, people, no_points, teams) for s in raw.get("playerScores") or [] if isinstance(s, dict)
    )
    uuid = str(raw.get("uuid") or "").strip()
    written = str(raw.get("playDate") or "")
    date = local_to_utc(written, zone)
    skip = ""
    if as_bool(raw.get("ignored")):
        skip = "marked as ignored in BG Stats"
    elif game_raw is None:
        skip = "its game is not in the file"
    elif date is None:
        skip = unreadable_date(written)
    return SourcePlay(
        external_id=PREFIX + (uuid or _fingerprint(raw)),
        where=f"play {n}",
        game=_game(game_raw),
        date=date,
        seats=seats,
        notes=str(raw.get("comments") or "")[:5000],
        skip=skip,
        order=n,
        bad_date=written if date is None else "",
    )


def _seat(raw: dict[str, Any], people: dict[Any, Any], no_points: bool, teams: bool) -> Seat:
    ref = raw.get("playerRefId")
    person = people.get(ref) or {}
    return Seat(
        key=f"bgs-player-{ref}",
        name=str(person.get("name") or "").strip(),
        score="" if no_points else str(raw.get("score") if raw.get("score") is not None else ""),
        winner=as_bool(raw.get("winner")),
        rank=max(0, as_int(raw.get("rank"))),
        team=str(raw.get("team") or "").strip() if teams else "",
        username=str(person.get("bggUsername") or "").strip(),
        anonymous=as_bool(person.get("isAnonymous")),
    )


def _fingerprint(raw: dict[str, Any]) -> str:
    """A play without a uuid goes by a hash of what it says (the same play gives the same id)."""
    text = json.dumps([raw.get("playDate"), raw.get("gameRefId"), raw.get("playerScores")], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:20]
