"""Export a whole group (games, players, matches with their factions) as one JSON document or as CSV,
streamed page by page: nothing of the group is held beyond a page or two of matches.

`write_json` writes format `rankterm-export`, version 1, one item a line; `write_csv` one row per player of
each faction, columns `CSV_COLUMNS`. Matches come oldest first although the service pages them newest first:
the walk starts at the last page and rereads a page that a new match shifted. No Textual and no Rich here: the
command line (`rankterm export`) opens the client and the file. The format and the walk: docs/cli.md ("Export").
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from rankterm import __version__
from rankterm.wire import endpoints as ep
from rankterm.wire.errors import ApiError, UnexpectedResponse
from rankterm.wire.models import Game, Match, MatchesPage, Player, PlayersPage

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient

FORMAT = "rankterm-export"
VERSION = 1

CSV_COLUMNS: tuple[str, ...] = (
    "date",
    "match",
    "game",
    "faction",
    "faction_name",
    "player",
    "rank",
    "points",
    "winner",
    "bot",
    "draw",
    "weight",
    "ghost",
    "match_id",
    "external_id",
    "game_id",
    "player_id",
    "notes",
)

Progress = Callable[[int, int], None]
"""Told (matches written, matches in the group) after each page of an export."""

MAX_RESTARTS = 50
"""How often a walk starts again because the group changed under it before it gives up."""


@dataclass
class ExportCounts:
    """What an export wrote."""

    games: int = 0
    players: int = 0
    matches: int = 0
    rows: int = 0
    """CSV rows (one per faction player), 0 for JSON."""

    def to_wire(self) -> dict[str, int]:
        return {"games": self.games, "players": self.players, "matches": self.matches}


class GroupChanging(ApiError):
    """The group kept changing while it was being read, more often than `MAX_RESTARTS` (an answer of the
    service that cannot be used: exit 1 on the command line)."""

    def __init__(self, endpoint: str) -> None:
        super().__init__(endpoint, message="the group kept changing while it was read; try again")


def public_url(url: str) -> str:
    """`url` without user name, password, query or fragment (what an export may say of its service)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


# ---------------------------------------------------------------------------------------------- reading


def _parse(endpoint: str, model: Any, payload: Any) -> Any:
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "answer"
        raise UnexpectedResponse(
            endpoint, message=f"the answer was not understood (field {where!r}: {err.get('msg', 'invalid')})"
        ) from None


async def matches_page(client: RankingClient, page: int, subset: str | None = None) -> MatchesPage:
    """One matches page from the service itself (never the mirror's copy: an export is of the service)."""
    payload = await client.call(ep.MATCHES, subset=subset, page=page)
    parsed: MatchesPage = _parse("matches", MatchesPage, payload)
    return parsed


async def players_page(client: RankingClient, page: int) -> PlayersPage:
    """One players page from the service itself."""
    parsed: PlayersPage = _parse("players", PlayersPage, await client.call(ep.PLAYERS, page=page))
    return parsed


async def games(client: RankingClient) -> list[Game]:
    """The group's games from the service itself."""
    payload = await client.call(ep.GAMES)
    if not isinstance(payload, list):
        raise UnexpectedResponse("games", message="the answer is not a list")
    return [_parse("games", Game, item) for item in payload]


def _per(page: MatchesPage | PlayersPage) -> int:
    return page.rows_for_page or len(page.data) or 25


async def matches_oldest_first(
    client: RankingClient,
    *,
    subset: str | None = None,
    fetch: Callable[[int], Awaitable[MatchesPage]] | None = None,
    progress: Progress | None = None,
) -> AsyncIterator[Match]:
    """Every match (of `subset`, the main one by default), oldest first, one page held (and one fetched
    ahead) at a time; see the module docstring for how pages that shift under the walk are handled.
    `progress(written, total)` is called after each page."""
    get = fetch or (lambda n: matches_page(client, n, subset))
    first = await get(1)
    total, per = first.total_matches, _per(first)
    written, last = 0, -1
    restarts = 0
    pages: dict[int, asyncio.Task[MatchesPage]] = {}
    held: MatchesPage | None = first  # page 1 as read at the start, used once when the walk reaches it

    def start(n: int) -> asyncio.Task[MatchesPage]:
        if n not in pages:
            pages[n] = _done(held) if n == 1 and held is not None else asyncio.ensure_future(get(n))
        return pages[n]

    def page_of(written: int) -> int:
        return (total - written - 1) // per + 1 if total > written else 0

    n = page_of(0)
    try:
        while n >= 1:
            task = start(n)
            if n > 1:
                start(n - 1)  # one page ahead
            page = await task
            del pages[n]
            if n == 1:
                held = None  # page 1 is read again from now on: it may have changed
            if page.total_matches != total:
                restarts += 1
                if restarts > MAX_RESTARTS:
                    raise GroupChanging("matches")
                total = page.total_matches
                for stale in pages.values():
                    stale.cancel()
                pages.clear()
                n = page_of(written)
                if n < 1:
                    break
                continue
            for match in sorted(page.data, key=lambda m: m.number):
                if match.number > last:
                    yield match
                    last = match.number
                    written += 1
            if progress is not None:
                progress(written, total)
            n -= 1
    finally:
        for task in pages.values():
            task.cancel()


def _done(page: MatchesPage) -> asyncio.Task[MatchesPage]:
    async def ready() -> MatchesPage:
        return page

    return asyncio.ensure_future(ready())


async def matches_newest_first(client: RankingClient, *, subset: str | None = None) -> AsyncIterator[Match]:
    """Every match (of `subset`), newest first as the service pages them, one page held (and the next one
    fetched ahead) at a time. A match recorded meanwhile pushes the older ones a place down the pages: those
    seen again are skipped (only numbers below the last given are given), and the new one is not."""
    first = await matches_page(client, 1, subset)
    pages = first.total_pages
    ahead = asyncio.ensure_future(matches_page(client, 2, subset)) if pages > 1 else None
    last: int | None = None
    page: MatchesPage | None = first
    n = 1
    try:
        while page is not None:
            for match in sorted(page.data, key=lambda m: m.number, reverse=True):
                if last is None or match.number < last:
                    yield match
                    last = match.number
            if ahead is None:
                break
            page, n = await ahead, n + 1
            ahead = asyncio.ensure_future(matches_page(client, n + 1, subset)) if n < pages else None
    finally:
        if ahead is not None:
            ahead.cancel()


async def all_players(
    client: RankingClient, *, fetch: Callable[[int], Awaitable[PlayersPage]] | None = None
) -> AsyncIterator[Player]:
    """Every player, page by page from page 1; a change of the count starts the walk again, skipping the
    players already given (only their ids are kept)."""
    get = fetch or (lambda n: players_page(client, n))
    seen: set[str] = set()
    restarts = 0
    while True:
        page = await get(1)
        total, changed = page.total_players, False
        n = 1
        while True:
            for player in page.data:
                if player.id not in seen:
                    seen.add(player.id)
                    yield player
            if n >= page.total_pages:
                break
            n += 1
            page = await get(n)
            if page.total_players != total:
                changed = True
                break
        if not changed:
            return
        restarts += 1
        if restarts > MAX_RESTARTS:
            raise GroupChanging("players")


# ---------------------------------------------------------------------------------------------- writing


def _dumps(item: Any) -> str:
    """One JSON value on one line, UTF-8 as it is; \\u escapes only for what UTF-8 cannot carry."""
    text = json.dumps(item, ensure_ascii=False, separators=(", ", ": "))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from the service
        text = json.dumps(item, ensure_ascii=True, separators=(", ", ": "))
    return text


def _now_iso(now: datetime | None) -> str:
    when = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def header(group: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """The keys that open a JSON export."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported": _now_iso(now),
        "generator": f"rankterm {__version__}",
        "group": group,
    }


class _JsonArray:
    """Writes `"key": [` items one a line `]` into an open object."""

    def __init__(self, out: IO[str], key: str) -> None:
        self.out, self.count = out, 0
        out.write(f',\n "{key}": [')

    def add(self, item: Any) -> None:
        self.out.write(("\n  " if self.count == 0 else ",\n  ") + _dumps(item))
        self.count += 1

    def close(self) -> None:
        self.out.write("\n ]" if self.count else "]")


async def write_json(
    client: RankingClient,
    out: IO[str],
    *,
    group: dict[str, Any],
    now: datetime | None = None,
    progress: Progress | None = None,
) -> ExportCounts:
    """Write the group as one `rankterm-export` document to `out`, streaming; return what was written."""
    counts = ExportCounts()
    opening = header(group, now)
    out.write("{" + ",\n ".join(f"{_dumps(k)}: {_dumps(v)}" for k, v in opening.items()))
    array = _JsonArray(out, "games")
    for game in await games(client):
        array.add(game.to_wire())
    array.close()
    counts.games = array.count
    array = _JsonArray(out, "players")
    async for player in all_players(client):
        array.add(player.to_wire())
    array.close()
    counts.players = array.count
    array = _JsonArray(out, "matches")
    async for match in matches_oldest_first(client, progress=progress):
        array.add(match.to_wire())
    array.close()
    counts.matches = array.count
    out.write(f',\n "counts": {_dumps(counts.to_wire())}\n}}\n')
    return counts


def _flag(value: bool) -> int:
    return 1 if value else 0


def _number(value: float | int | None) -> str:
    return "" if value is None else str(value)


def csv_rows(match: Match) -> Iterator[list[Any]]:
    """The CSV rows of one match: one per player of each faction (one for a faction without players)."""
    game = match.game
    for index, faction in enumerate(match.factions, start=1):
        players: list[Player | None] = list(faction.players) or [None]
        for player in players:
            yield [
                match.date,
                match.number,
                game.name if game else "",
                index,
                faction.name,
                player.label if player else "",
                faction.rank,
                _number(faction.points),
                _flag(faction.winner),
                _flag(faction.bot),
                _flag(match.draw),
                match.weight,
                _flag(player.ghost) if player else "",
                match.id,
                match.external_id,
                game.id if game else "",
                player.id if player else "",
                match.notes,
            ]


async def write_csv(client: RankingClient, out: IO[str], *, progress: Progress | None = None) -> ExportCounts:
    """Write every match as CSV rows (`CSV_COLUMNS`), oldest first, streaming; return what was written."""
    counts = ExportCounts()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    async for match in matches_oldest_first(client, progress=progress):
        counts.matches += 1
        for row in csv_rows(match):
            writer.writerow(row)
            counts.rows += 1
    return counts


async def export(
    client: RankingClient,
    out: IO[str],
    fmt: str = "json",
    *,
    group: dict[str, Any] | None = None,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> ExportCounts:
    """Write the group to `out` as `fmt` ("json" or "csv")."""
    if client.display_safe:
        raise ValueError("an export keeps the service's text exactly: use a client without display_safe")
    if fmt == "csv":
        return await write_csv(client, out, progress=progress)
    if fmt == "json":
        return await write_json(client, out, group=group or {}, now=now, progress=progress)
    raise ValueError(f"unknown export format {fmt!r}")


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


async def export_to_path(
    client: RankingClient,
    path: Path | str,
    fmt: str = "json",
    *,
    group: dict[str, Any] | None = None,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> ExportCounts:
    """Write the export to `path` through a temporary file beside it, renamed over `path` only once the
    whole export is written (a failed export leaves `path` as it was, and no temporary file)."""
    target = Path(path)
    handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="", errors="backslashreplace") as out:
            counts = await export(client, out, fmt, group=group, now=now, progress=progress)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, _default_mode())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return counts
