"""`MirroredReads`: the reads of a `RankingClient` that go through the group's mirror (`rankterm.client.mirror`),
its only cache. The client owns one and offers its methods as its own; it reaches the service through the client.

What a screen calls:

- **Show at once**: `cached_games()`, `cached_players()`, `cached_subsets()`, `cached_matches()` read the
  mirror only (no request; an empty list when it holds nothing yet), and `synced_at(name)` says when that
  list was read from the service (a local, aware `datetime`, or None) for an "as of HH:MM" beside it.
- **Revalidate**: `games(refresh=True)`, `players(refresh=True)`, `subsets(refresh=True)` ask the service,
  write the answer into the mirror and return it. Without `refresh` a list read less than `fresh_for`
  seconds ago (and not made stale by a write from this seat) is answered from the mirror with no request.
  `sync_matches()` brings the held matches up to date (one request when nothing is new); a first sync reads
  them newest first within a share of the hourly call quota, over several hours for a large group, and
  `held_history()` says how many are held of how many (`HeldHistory`, no request).
- **Know how old an answer is**: when the service cannot be reached (`Offline`), every list method, and
  `players_page`, `matches_page`, `rankings_page`, answers from the mirror instead of raising (they raise
  `Offline` only when the mirror holds nothing for it). `as_of` is then the time the oldest such answer was
  read from the service; it is None again once each of those reads has reached the service.
  `as_of_for(name)` gives it for one of "games", "players", "subsets", "matches", "rankings".
- **Writes from this seat**: `create_player` puts the new player in the mirror at once (so
  `cached_players()` and offline answers hold it) and, like `create_game`,
  `add_matches` (in the client) and `invalidate(...)`, marks the list stale, so the next read asks the
  service (a created game is one of the group's games only once a match of it is played).
- **Ghosts made offline** (the outbox queues them, rankterm/outbox/ghosts.py): `hold_player` puts one in
  the mirror under its local id, where every read of the players keeps it (`players()` too, online) until
  `drop_player` takes it out once the service has made it; `players_now()` is the service's list, never an
  older copy, for telling whether a ghost whose answer was lost was made.

Rankings after an explicit match number are kept once that match is not the latest of its subset (the service
computes activity status at the latest match against the current time, so until a later match exists that
page can still change), and answered from the mirror with no request while the held matches are current:
synced less than `fresh_for` seconds ago and not marked stale since (a write from this seat, or the live
probe noticing a change, marks them). Otherwise the held matches are brought up to date first (one request
when nothing is new), since a match played earlier than those standings may have arrived; with no matches
ever held, the page is asked again. `rankings/last` pages are kept only to answer while the service is gone.

**A history that changed.** Both services rate matches in the order they were played, and numbers follow
that order: a match dated before the group's latest takes a number among the held ones, and every later
match's number goes up by one (its id stays). `sync_matches` reads page 1 anyway, and page 1 says so at no
extra cost: a number held there under another id (or the held latest match listed under another number).
It then reads older pages only until one agrees with the mirror again, rewrites the held matches from the
earliest change, drops the standings held after it (every subset's, and the latest), and calls each of
`history_listeners` with that number (the live probe tells the screens through it).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from rankterm.client import paging
from rankterm.client.call_share import CallShare
from rankterm.client.held_history import HeldHistory
from rankterm.client.mirror import LAST, Mirror, dumps
from rankterm.wire import endpoints as ep
from rankterm.wire.errors import Offline, QuotaError, RanktermError, UnexpectedResponse
from rankterm.wire.ids import is_local_id
from rankterm.wire.models import (
    Game,
    Match,
    MatchesPage,
    Page,
    Player,
    PlayersPage,
    Quota,
    RankingsPage,
    Subset,
)

if TYPE_CHECKING:
    from rankterm.client.paging import Window

P = TypeVar("P", bound=Page[Any])
T = TypeVar("T")

ROWS_PER_PAGE = 25
"""Rows of a page built from the mirror (the service's page size)."""
RESYNC_PAGES = 200
"""Pages of matches a full read holds in memory before it writes them to the mirror (~5,000 matches)."""
PART_PAGES = 40
"""Pages of a first sync written to the mirror at once (its lease renewed with them)."""
SYNC_LEASE = 30.0
"""Seconds a seat holds the right to sync the mirror's matches unless it renews it (a part written does)."""
LEASE_POLL = 0.05
"""Seconds between two looks at the lease while another seat syncs."""


def _local(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts).astimezone()


def _wire_items(raw: Any, models: Sequence[Any]) -> list[Any]:
    """The items as the service sent them when they line up with the parsed ones, else their wire form."""
    if isinstance(raw, list) and len(raw) == len(models) and all(isinstance(r, dict) for r in raw):
        return raw
    return [m.to_wire() for m in models]


class _Read(NamedTuple):
    """A match as a sync reads it: the row the mirror stores, and what tells it apart from a held one."""

    number: int
    game_id: str | None
    body: str
    id: str
    date: str

    @property
    def row(self) -> tuple[int, str | None, str]:
        return self.number, self.game_id, self.body


def _merged(by_number: dict[int, _Read], reads: Iterable[_Read]) -> bool:
    """Add `reads` to the matches read so far, by number; False when they contradict them (a number under
    two ids, an id under two numbers: pages read while the history moved). The same match seen twice (a
    match appended between two pages moves every page down by one) is fine."""
    numbers = {r.id: r.number for r in by_number.values()}
    for r in reads:
        held = by_number.get(r.number)
        if (held is not None and held.id != r.id) or (r.id and numbers.get(r.id, r.number) != r.number):
            return False
        by_number[r.number] = r
        if r.id:
            numbers[r.id] = r.number
    return True


class _SyncPage(NamedTuple):
    """A page of matches as a sync keeps it: the page's counts and its matches as the mirror stores them."""

    total: int
    total_pages: int
    per: int
    reads: list[_Read]


def _whole(value: Any, default: int = 0) -> int:
    """A count of the page as the wire may spell it (a number, or a number in a string)."""
    try:
        return int(value) if value is not None and not isinstance(value, bool) else default
    except (TypeError, ValueError):
        return default


def _sync_page(payload: Any) -> _SyncPage:
    """A matches page read for the mirror without a model per match (a first sync of a large group reads
    4,000 pages): each match kept as its wire form in JSON text with what tells it apart (number, id, game,
    date). What the mirror cannot file (no number, no id) refuses the page, as the models would."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list | None):
        raise UnexpectedResponse(
            "matches", message="the answer was not understood (a page without its matches)"
        )
    reads = []
    for item in data or ():
        number = _whole(item.get("number"), -1) if isinstance(item, dict) else -1
        if number < 0 or item.get("id") in (None, ""):
            raise UnexpectedResponse(
                "matches", message="the answer was not understood (a match without its number or id)"
            )
        game = item.get("game")
        game_id = game.get("id") if isinstance(game, dict) else None
        if isinstance(game_id, float) and game_id.is_integer():
            game_id = int(game_id)
        date = item.get("date")
        reads.append(
            _Read(
                number,
                None if game_id is None else str(game_id),
                dumps(item),
                str(item["id"]),
                date if isinstance(date, str) else "",
            )
        )
    per = _whole(payload.get("rowsForPage")) or len(reads) or ROWS_PER_PAGE
    return _SyncPage(_whole(payload.get("totalMatches")), _whole(payload.get("totalPages"), 1), per, reads)


class ServiceCalls(Protocol):
    """What the mirrored reads ask of the client that owns them: its mirror and settings (read at each use, so
    a caller may swap them), its requests, its parsing and its paging."""

    mirror: Mirror
    fresh_for: float
    concurrency: int
    sync_share: float
    clock: Callable[[], float]
    history_listeners: list[Callable[[int], None]]

    async def quota(self) -> Quota: ...

    async def call(
        self,
        endpoint: ep.Endpoint,
        *,
        subset: str | None = None,
        match: int | None = None,
        page: int | None = None,
        params: dict[str, Any] | None = None,
        json_body: Any = None,
    ) -> Any: ...
    def _parse(self, endpoint: str, model: Any, payload: Any) -> Any: ...
    async def _all_pages(self, fetch: Callable[[int], Awaitable[P]]) -> list[P]: ...
    async def _fetch_pages(
        self, numbers: Sequence[int], fetch: Callable[[int], Awaitable[T]], window: Window | None = None
    ) -> list[T]: ...
    def _paying(self, needed: int) -> None: ...
    def _window(self) -> Window: ...


class MirroredReads:
    """The group's lists, matches and rankings, through the mirror of the client that owns this object."""

    def __init__(self, client: ServiceCalls) -> None:
        self._client = client
        self._served_stale: dict[str, float] = {}
        self._sync_lock = asyncio.Lock()
        self._holder = uuid.uuid4().hex
        """Who this is to the other seats on the mirror file (its sync lease)."""

    @property
    def mirror(self) -> Mirror:
        return self._client.mirror

    @property
    def fresh_for(self) -> float:
        return self._client.fresh_for

    @property
    def syncing(self) -> bool:
        """Whether a sync of the matches is under way, by this client or another seat on the mirror file."""
        return self._sync_lock.locked() or self.mirror.sync_leased_elsewhere(self._holder, time.time())

    # ------------------------------------------------------------------ how old an answer is

    @property
    def as_of(self) -> datetime | None:
        """None while the answers given came from the service; else when the oldest one served offline was read."""
        return _local(min(self._served_stale.values())) if self._served_stale else None

    def as_of_for(self, name: str) -> datetime | None:
        """Like `as_of`, for one of "games", "players", "subsets", "matches", "rankings"."""
        return _local(self._served_stale.get(name))

    def synced_at(self, name: str) -> datetime | None:
        """When the mirror's list `name` ("games", "players", "subsets", "matches") was read from the service."""
        return _local(self.mirror.synced_at(name))

    def _fresh(self, name: str) -> None:
        self._served_stale.pop(name, None)

    def _stale(self, name: str, when: float | None) -> None:
        self._served_stale[name] = when if when is not None else 0.0

    def invalidate(self, *names: str) -> None:
        """Make the next read of these lists (all when none is named) ask the service; the mirror keeps them."""
        self.mirror.mark_stale(*names)

    # ------------------------------------------------------------------ the mirror alone, no request

    def _held(self, name: str, model: Any) -> list[Any] | None:
        items = self.mirror.items(name)
        if items is None:
            return None
        try:
            return self._client._parse(name, list[model], items)
        except UnexpectedResponse:
            return None

    def cached_games(self) -> list[Game]:
        """The games the mirror holds (no request)."""
        return self._held("games", Game) or []

    def cached_players(self) -> list[Player]:
        """The players the mirror holds (no request)."""
        return self._held("players", Player) or []

    def cached_subsets(self) -> list[Subset]:
        """The subsets the mirror holds (no request)."""
        return self._held("subsets", Subset) or []

    def cached_matches(
        self, *, subset: str | None = None, offset: int = 0, limit: int | None = None
    ) -> list[Match]:
        """The held matches newest first, optionally of one subset (main or a game's); no request."""
        known, game = self._game_of(subset)
        if not known:
            return []
        rows = self.mirror.matches(game_id=game, offset=offset, limit=limit)
        return self._client._parse("matches", list[Match], rows)

    def held_number_below(self, number: int, *, subset: str | None = None) -> int | None:
        """The match before `number` among the held matches of `subset` (main or a game's): the highest
        number below it; None when none is held or the mirror cannot tell the subset's matches. No request,
        and no match read: the board asks this at every match, of groups that hold 100,000."""
        known, game = self._game_of(subset)
        return self.mirror.number_below(number, game_id=game) if known else None

    def held_played_after(self, match: Match, *, subset: str | None = None) -> int | None:
        """How many held matches of `subset` (main or a game's) were played after `match` (numbered above it)
        but recorded before it: more than 0 for a match placed in the past when it arrived. None when the
        mirror cannot tell the subset's matches, or the match says nothing of when it was recorded. No
        request, no match read."""
        known, game = self._game_of(subset)
        if not known or not match.registration_date:
            return None
        return self.mirror.count_matches(
            game_id=game, above=match.number, recorded_before=match.registration_date
        )

    def held_matches_named(self, *names: str) -> list[Match]:
        """The held matches whose id or external id is one of `names`, newest first; no request (a look
        through the stored text, for a match the newest held ones do not hold)."""
        wanted = {n for n in names if n}
        forms = {f'"{key}":{dumps(n)}' for n in wanted for key in ("id", "externalId")}
        forms |= {f'"id":{n}' for n in wanted if n.isdigit()}  # an id sent as a number
        rows = [row for form in sorted(forms) for row in self.mirror.select_matches(containing=form)]
        found = self._client._parse("matches", list[Match], rows)
        named = {m.number: m for m in found if str(m.id) in wanted or m.external_id in wanted}
        return [named[n] for n in sorted(named, reverse=True)]

    def _game_of(self, subset: str | None) -> tuple[bool, str | None]:
        """(whether the mirror can tell which matches make `subset`, the game id whose they are: None for all)."""
        if subset is None:
            return True, None
        for held in self.cached_subsets():
            if held.id == subset:
                if held.is_main:
                    return True, None
                if held.game is not None and not held.is_custom:
                    return True, str(held.game.id)
        return False, None

    # ------------------------------------------------------------------ lists

    async def _list(
        self, name: str, model: Any, load: Callable[[], Awaitable[tuple[list[Any], list[Any]]]], refresh: bool
    ) -> list[Any]:
        if not refresh and self.mirror.is_fresh(name, self.fresh_for):
            held = self._held(name, model)
            if held is not None:
                self._fresh(name)
                return held
        try:
            models, raw = await load()
        except Offline:
            held = self._held(name, model)
            if held is None:
                raise
            self._stale(name, self.mirror.synced_at(name))
            return held
        keep = is_local_id if name == "players" else None
        pairs = [(str(m.id), item) for m, item in zip(models, raw, strict=True)]
        kept = self.mirror.replace(name, pairs, keep=keep)
        self._fresh(name)
        if kept:  # the ghosts this seat made that the outbox has not sent yet: still offered
            with contextlib.suppress(UnexpectedResponse):
                models = models + self._client._parse(name, list[model], kept)
        return models

    async def games(self, *, refresh: bool = False) -> list[Game]:
        """The group's games; see the module docstring for when it asks the service."""

        async def load() -> tuple[list[Game], list[Any]]:
            payload = await self._client.call(ep.GAMES)
            games = self._client._parse("games", list[Game], payload)
            return games, _wire_items(payload, games)

        return await self._list("games", Game, load, refresh)

    async def subsets(self, *, refresh: bool = False) -> list[Subset]:
        """The group's subsets (main, one per game, custom), with their match counts."""

        async def load() -> tuple[list[Subset], list[Any]]:
            payload = await self._client.call(ep.SUBSETS)
            subsets = self._client._parse("subsets", list[Subset], payload)
            return subsets, _wire_items(payload, subsets)

        return await self._list("subsets", Subset, load, refresh)

    async def _players_page(self, page: int) -> tuple[PlayersPage, list[Any]]:
        payload = await self._client.call(ep.PLAYERS, page=page)
        parsed = self._client._parse("players", PlayersPage, payload)
        return parsed, _wire_items(payload.get("data") if isinstance(payload, dict) else None, parsed.data)

    async def players_page(self, page: int = 1) -> PlayersPage:
        """One page of the group's players; offline, that page of the players the mirror holds."""
        try:
            return (await self._players_page(page))[0]
        except Offline:
            held = self._held("players", Player)
            if held is None:
                raise
            self._stale("players", self.mirror.synced_at("players"))
            start = (page - 1) * ROWS_PER_PAGE
            return PlayersPage(
                page=page,
                total_pages=max(1, math.ceil(len(held) / ROWS_PER_PAGE)),
                rows_for_page=ROWS_PER_PAGE,
                total_players=len(held),
                data=held[start : start + ROWS_PER_PAGE],
            )

    async def _load_players(self) -> tuple[list[Player], list[Any]]:
        raw: dict[int, list[Any]] = {}

        async def one(n: int) -> PlayersPage:
            parsed, raw[n] = await self._players_page(n)
            return parsed

        pages = await self._client._all_pages(one)
        return [p for page in pages for p in page.data], [r for n in sorted(raw) for r in raw[n]]

    async def players(self, *, refresh: bool = False) -> list[Player]:
        """Every player of the group (all pages, fetched concurrently), and the ghosts this seat made that the
        outbox has not sent yet (local ids: `ids.is_local_id`)."""
        return await self._list("players", Player, self._load_players, refresh)

    async def players_now(self, *, refresh: bool = False) -> list[Player]:
        """The service's players as they are now: from the mirror when read less than `fresh_for` ago (and
        not made stale; unless `refresh`), else from the service. Never an older copy: raises `Offline` when
        the service cannot be reached. Local ghosts are left out. (The outbox uses it to settle a ghost.)"""
        if not refresh and self.mirror.is_fresh("players", self.fresh_for):
            held = self._held("players", Player)
            if held is not None:
                return [p for p in held if not is_local_id(p.id)]
        models, raw = await self._load_players()
        items = [(str(m.id), item) for m, item in zip(models, raw, strict=True)]
        self.mirror.replace("players", items, keep=is_local_id)
        self._fresh("players")
        return models

    def hold_player(self, player: Player) -> None:
        """Put a player made by this seat in the mirror, at the end, without asking the service (a ghost
        queued in the outbox, under its local id): `cached_players()` and offline answers offer it."""
        self.mirror.add_item("players", str(player.id), player.to_wire())

    def drop_player(self, player_id: str) -> None:
        """Take a player out of the mirror (a local ghost the service has now made, or that was discarded)."""
        self.mirror.remove_item("players", player_id)

    async def create_game(self, *, name: str | None = None, bgg_id: int | None = None) -> Game:
        """Create a game (by name, BoardGameGeek id, or both: a name with the id the catalogue does not know,
        which the game keeps); it joins the group's games with its first match."""
        if name is None and bgg_id is None:
            raise ValueError("give a name or a BGG id")
        params: dict[str, Any] = {"bggId": bgg_id} if bgg_id is not None else {}
        if name is not None:
            params["name"] = name
        payload = _as_list(await self._client.call(ep.GAME, params=params))
        games = self._client._parse("game", list[Game], payload)
        if not games:
            raise UnexpectedResponse("game", message="the answer holds no game")
        # The group's games are those with a match played (SERVICE.md): a new game joins them with its
        # first match, so it is not put in the list here; the next read asks.
        self.mirror.mark_stale("games")
        return games[0]

    async def create_player(self, name: str) -> Player:
        """Add a ghost player to the group; the mirror holds it at once."""
        payload = _as_list(await self._client.call(ep.PLAYER, params={"name": name}))
        players = self._client._parse("player", list[Player], payload)
        if not players:
            raise UnexpectedResponse("player", message="the answer holds no player")
        # In the mirror at once (the cached list and an offline answer hold it), at the end; the list is also
        # marked stale, so the next read online takes the service's order (by name) and its other changes.
        self.mirror.add_item("players", players[0].id, _wire_items(payload, players)[0])
        self.mirror.mark_stale("players")
        return players[0]

    # ------------------------------------------------------------------ matches

    async def _matches_page(self, page: int, subset: str | None = None) -> tuple[MatchesPage, list[Any]]:
        payload = await self._client.call(ep.MATCHES, subset=subset, page=page)
        parsed = self._client._parse("matches", MatchesPage, payload)
        return parsed, _wire_items(payload.get("data") if isinstance(payload, dict) else None, parsed.data)

    async def matches_page(self, page: int = 1, *, subset: str | None = None) -> MatchesPage:
        """One page of a subset's matches, newest first; offline, built from the held matches when it can be."""
        try:
            return (await self._matches_page(page, subset))[0]
        except Offline:
            known, game = self._game_of(subset)
            if not known or self.mirror.synced_at("matches") is None:
                raise
            self._stale("matches", self.mirror.synced_at("matches"))
            total = self.mirror.count_matches(game_id=game)
            return MatchesPage(
                page=page,
                total_pages=max(1, math.ceil(total / ROWS_PER_PAGE)),
                rows_for_page=ROWS_PER_PAGE,
                total_matches=total,
                data=self.cached_matches(
                    subset=subset, offset=(page - 1) * ROWS_PER_PAGE, limit=ROWS_PER_PAGE
                ),
            )

    async def all_matches(self, *, subset: str | None = None) -> list[Match]:
        """Every match of a subset, straight from the service (all pages, concurrently)."""
        pages = await self._client._all_pages(lambda n: self.matches_page(n, subset=subset))
        return [m for page in pages for m in page.data]

    async def sync_matches(self) -> int:
        """Bring the mirror's matches up to date; return how many matches it holds now that it did not.

        Matches pages are newest first and numbers follow the order the matches were played in, so page 1
        tells what is new, and whether the history changed: a held number listed under another id, or the
        held latest match under another number (a match was placed among the held ones). When neither, only
        the pages that can hold new matches are read (one request when nothing is new). When the history
        changed, older pages are read only until one agrees with the mirror again, and the held matches are
        rewritten from the earliest change (`_history_rewritten`). If the counts still disagree (a match
        deleted on the service), everything is read again.

        A first sync reads the matches newest first, within a share of the hourly call quota
        (`call_share`); while older matches are missing, each sync goes on reading them within the share of
        its hour (`held_history` says how much is held). One sync at a time per mirror file: a second, from
        this client or another seat on the same file, waits for the lease (`SYNC_LEASE`), and when another
        seat synced meanwhile, reads nothing (a slower one never writes an older view over a newer one).
        """
        async with self._sync_lock:
            held, _ = self.mirror.match_numbers()
            syncs = self.mirror.syncs_done()
            waited = False
            while not self.mirror.take_sync_lease(self._holder, time.time(), SYNC_LEASE):
                waited = True
                await asyncio.sleep(LEASE_POLL)
            synced = False
            try:
                if waited and self.mirror.syncs_done() != syncs:  # another seat read it all meanwhile
                    self._fresh("matches")
                    return max(0, self.mirror.match_numbers()[0] - held)
                added = await self._sync_matches()
                synced = True
                return added
            finally:
                self.mirror.release_sync_lease(self._holder, synced=synced)

    def held_history(self) -> HeldHistory:
        """How many of the group's matches the mirror holds, of how many, and when the rest is expected (a
        first sync within the quota's share reads a large group over several hours). No request."""
        count, _ = self.mirror.match_numbers()
        low, total = self.mirror.held_history()
        if count == 0 or low <= 1:
            return HeldHistory(count, max(count, total or 0) if count else total or 0, None)
        pace = self._share().pace()
        if pace is None:
            return HeldHistory(count, max(total or 0, count), None)
        pages_left = math.ceil((low - 1) / ROWS_PER_PAGE)
        now = self._client.clock()
        next_hour = (now // 3600 + 1) * 3600
        return HeldHistory(
            count, max(total or 0, count), next_hour - now + (math.ceil(pages_left / pace) - 1) * 3600
        )

    def _share(self) -> CallShare:
        async def usage() -> dict[str, float | None]:
            return (await self._client.quota()).usage()

        return CallShare(self.mirror, usage, self._client.clock, self._client.sync_share)

    async def _sync_matches(self) -> int:
        held, top = self.mirror.match_numbers()
        low, _ = self.mirror.held_history()
        first = await self._sync_page(1)
        total = first.total
        if held == 0:
            return await self._first_sync(first)
        if total < held + low - 1:
            return await self._read_again(first, held, low)
        per = first.per
        read = list(first.reads)
        wanted = math.ceil(max(0, total - (held + low - 1)) / per)
        last_page = 1
        if all(r.number > top for r in read) and wanted > 1:
            last_page = min(wanted, first.total_pages)
            for page in await self._client._fetch_pages(range(2, last_page + 1), self._sync_page):
                read += page.reads
        newest = max((r.number for r in first.reads), default=top)
        by_number: dict[int, _Read] = {}
        if not _merged(by_number, read):
            return await self._read_again(first, held, low)  # the history moved while being read
        changed = self._first_change(by_number, top, low)
        while changed is not None and changed < 0 and last_page < first.total_pages:
            last_page += 1  # the change lies below what was read: one older page at a time
            if not _merged(by_number, (await self._sync_page(last_page)).reads):
                return await self._read_again(first, held, low)
            changed = self._first_change(by_number, top, low)
        if changed is not None and changed < 0:
            changed = min(by_number)  # read to the first match: all of it changed
        arrived_since = {n for n in by_number if n > newest}
        if changed is None:
            new = [r for r in by_number.values() if r.number > top]
            self.mirror.put_matches([r.row for r in new], dumped=True)
            self._drop_standings_placed_before(new)
        else:
            rows = [r.row for r in by_number.values() if r.number >= changed]
            self.mirror.rewrite_matches_from(changed, rows)
        count, top = self.mirror.match_numbers()
        if count + low - 1 != total + len(arrived_since):
            return await self._read_again(first, held, low)
        self.mirror.set_held_history(total=top)
        self._fresh("matches")
        if changed is not None:
            self._history_rewritten(changed)
        added = max(0, count - held)
        if low > 1:
            added += await self._read_older(per)
        return added

    def _first_change(self, read: dict[int, _Read], top: int, low: int = 1) -> int | None:
        """The first held number at which `read` (the matches read, by number: from the newest down) lists
        another match than the mirror, which holds `low` to `top`; None when they agree and nothing held
        moved. Negative when the history changed below the lowest number read (its matches disagree, or the
        held latest match is listed under a higher number): older pages must be read to find where."""
        if not read:
            return None
        numbers = sorted(read)
        compared = [n for n in numbers if low <= n <= top]
        held = self.mirror.match_ids([*compared, top])
        differ = [n for n in compared if held.get(n) != read[n].id]
        latest = held.get(top)
        moved = bool(latest) and any(r.id == latest and n != top for n, r in read.items())
        if not differ and not moved:
            return None
        bottom = numbers[0]
        if bottom < low or (bottom <= top and bottom not in differ):
            return differ[0] if differ else top + 1
        return -1

    def _drop_standings_placed_before(self, new: list[_Read]) -> None:
        """A service that numbers matches as they arrive but rates them by date: a new match dated before
        held ones changed the standings after those; the held ones are dropped from the first of them."""
        earliest = min((r.date for r in new if r.date), default="")
        if not earliest:
            return
        later = self.mirror.first_number_dated_after(earliest, below=min(r.number for r in new))
        if later is not None:
            self.mirror.drop_rankings_from(later)
            self._history_rewritten(later)

    def _history_rewritten(self, first: int) -> None:
        """Tell the client's `history_listeners` that the history changed from match `first` on."""
        for listener in list(self._client.history_listeners):
            listener(first)

    async def _first_sync(self, first: _SyncPage) -> int:
        """Page 1 held as the newest matches, then older pages within the quota's share."""
        rows = [r.row for r in first.reads]
        held_from = min((r.number for r in first.reads), default=1)
        self.mirror.put_matches(rows, dumped=True, held_from=held_from)
        self.mirror.set_held_history(total=first.total)
        self._fresh("matches")
        return len(rows) + (await self._read_older(first.per) if held_from > 1 else 0)

    async def _read_again(self, first: _SyncPage, held: int, low: int) -> int:
        """Counts that disagree (a match deleted on the service): every match read again. A history still
        being read for the first time starts again, newest first, within the share; a whole one is read
        again at once (`_resync_matches`)."""
        if low <= 1:
            return await self._resync_matches(first)
        self.mirror.rewrite_matches_from(1, [])
        await self._first_sync(first)
        self._history_rewritten(1)
        return max(0, self.mirror.match_numbers()[0] - held)

    async def _read_older(self, per: int) -> int:
        """Read the pages below the held matches, newest first, round by round within this hour's share of
        the call quota (`CallShare`), each part written as it arrives; return how many matches were added.
        Stops when the share is spent, at a quota refusal, or when the pages no longer join the held
        matches (the group changed under the read: the next sync finds how)."""
        share = self._share()
        added = 0
        while True:
            low, total = self.mirror.held_history()
            if low <= 1 or not total:
                return added
            grant = await share.grant()
            if grant == 0:
                return added
            first_page = (total - (low - 1)) // per + 1
            last_page = math.ceil(total / per)
            if grant is not None:
                last_page = min(last_page, first_page + grant - 1)
            # as many in flight as the client's `concurrency`: past that, a first sync's own work per pooled
            # connection costs the service (on the same machine, or beside other seats) more than it gains
            window = paging.Window(start=self._client.concurrency, ceiling=self._client.concurrency)
            try:
                got, joined = await self._read_pages_below(range(first_page, last_page + 1), low, window)
            except QuotaError:
                return added
            finally:
                share.spent(window.sent)
            added += got
            if not joined:
                return added

    async def _read_pages_below(self, pages: range, low: int, window: Window) -> tuple[int, bool]:
        """Read `pages` in order, keep the matches numbered below `low` (each page must carry on from the
        last one), and write them `PART_PAGES` pages at a time, each part from a worker thread on a
        connection of its own while the next pages arrive (a mirror in memory: at once); return (how many
        were added, whether every page joined and each part was written while this seat held the lease)."""

        async def fetch(n: int) -> _SyncPage:
            self._client._paying(1)
            return await self._sync_page(n)

        writer = self.mirror.older_matches_writer()
        writing: asyncio.Future[bool] | None = None
        part: list[tuple[int, str | None, str]] = []
        added, written, total = 0, 0, 0
        joined = True

        async def written_before() -> bool:
            """Whether the part being written (if any) went in."""
            nonlocal writing, added, written
            went_in = writing is None or await writing
            if writing is not None and went_in:
                added += written
            writing, written = None, 0
            return went_in

        async def write() -> bool:
            """Wait for the part before, then start writing this one."""
            nonlocal writing, part, written
            if not await written_before():
                return False
            if not part:
                return True
            rows, part, written = part, [], len(part)
            put = functools.partial(
                self.mirror.put_older_matches if writer is None else writer.put,
                rows,
                held_from=low,
                holder=self._holder,
                now=time.time(),
                lease=SYNC_LEASE,
            )
            if writer is None:
                writing = asyncio.get_running_loop().create_future()
                writing.set_result(put())
            else:
                writing = asyncio.ensure_future(asyncio.to_thread(put))
            return True

        try:
            async with contextlib.aclosing(paging.stream_pages(pages, fetch, window)) as stream:
                async for page in stream:
                    total = max(total, page.total)
                    below = sorted((r for r in page.reads if r.number < low), key=lambda r: -r.number)
                    if not below:
                        continue  # all held: matches arrived since the pages were counted
                    if [r.number for r in below] != list(range(low - 1, low - 1 - len(below), -1)):
                        joined = False  # a gap: a match was deleted or placed below while reading
                        break
                    part += [r.row for r in below]
                    low = below[-1].number
                    if len(part) >= PART_PAGES * ROWS_PER_PAGE and not await write():
                        return added, False
            joined = await write() and await written_before() and joined
        finally:
            if writing is not None:
                await asyncio.wait([writing])  # a thread cannot be stopped: its part is kept or not, whole
            if writer is not None:
                writer.close()
        if total:
            self.mirror.set_held_history(total=max(total, self.mirror.held_history()[1] or 0))
        return added, joined

    async def _resync_matches(self, first: _SyncPage) -> int:
        """Every page read again and written aside as it arrives, `RESYNC_PAGES` pages at a time (a group of
        100,000 matches is 4,000 pages), then swapped for the held matches at once."""
        pages = range(2, first.total_pages + 1)
        self._client._paying(len(pages))  # the whole read refused unsent when the quota does not allow it
        self.mirror.stage_matches([r.row for r in first.reads], first=True)
        window = self._client._window()
        for start in range(0, len(pages), RESYNC_PAGES):
            chunk = await self._client._fetch_pages(
                pages[start : start + RESYNC_PAGES], self._sync_page, window
            )
            self.mirror.stage_matches(r.row for page in chunk for r in page.reads)
        held, _ = self.mirror.match_numbers()
        count, changed = self.mirror.replace_matches_with_staged()
        self.mirror.set_held_history(held_from=1, total=count)
        self._fresh("matches")
        if changed is not None:
            self._history_rewritten(changed)
        return max(0, count - held)

    async def _sync_page(self, page: int) -> _SyncPage:
        """A page of the group's matches as a sync keeps it (`_SyncPage`)."""
        return _sync_page(await self._client.call(ep.MATCHES, page=page))

    # ------------------------------------------------------------------ rankings

    async def rankings_page(
        self, page: int = 1, *, subset: str | None = None, match: int | None = None
    ) -> RankingsPage:
        """A page of the standings after `match` (the latest when None); see the module docstring."""
        key, at = subset or "", LAST if match is None else match
        held = self.mirror.rankings(key, at, page)
        if held is not None and held.final:
            current = await self._history_current()
            held = self.mirror.rankings(key, at, page)  # gone when the sync found it made stale
            if held is not None and held.final and current is not False:
                if current is None:  # the service could not say: the held page, as of when it was read
                    self._stale("rankings", held.fetched_at)
                return self._client._parse("rankings", RankingsPage, held.body)
        history = self.mirror.history_generation()
        try:
            payload = await self._client.call(ep.RANKINGS, subset=subset, match=match, page=page)
        except Offline:
            if held is None:
                raise
            self._stale("rankings", held.fetched_at)
            return self._client._parse("rankings", RankingsPage, held.body)
        parsed = self._client._parse("rankings", RankingsPage, payload)
        last = parsed.subset.last_number if parsed.subset is not None else None
        # kept for good only when the held matches agree with it: the same match under that number, and no
        # change of the history found while it was asked (it may be of the history before)
        final = (
            match is not None
            and parsed.match is not None
            and parsed.match.number == match
            and last is not None
            and last > match
            and self.mirror.match_ids([match]).get(match, str(parsed.match.id)) == str(parsed.match.id)
            and self.mirror.history_generation() == history
        )
        self.mirror.put_rankings(key, at, page, payload, final=final)
        self._fresh("rankings")
        return parsed

    async def _history_current(self) -> bool | None:
        """Whether the held matches can vouch for the held standings: True when synced less than `fresh_for`
        ago and not marked stale since, or brought up to date now (one request when nothing is new; a changed
        history drops the standings it made stale). False when no match was ever held (the standings are
        asked again rather than the whole history read, or a sync is under way: it may be a long one); None
        when the service could not be asked now."""
        if self.mirror.is_fresh("matches", self.fresh_for):
            return True
        if self.mirror.synced_at("matches") is None or self.syncing:
            return False
        try:
            await self.sync_matches()
        except RanktermError:
            return None
        return True

    async def all_rankings(self, *, subset: str | None = None, match: int | None = None) -> list[Any]:
        """Every row of the standings after `match` (all pages, concurrently)."""
        pages: list[Page[Any]] = await self._client._all_pages(
            lambda n: self.rankings_page(n, subset=subset, match=match)
        )
        return [r for page in pages for r in page.data]


def _as_list(payload: Any) -> Any:
    return [payload] if isinstance(payload, dict) else payload
