"""`Group`: the group as screens, stats and the CLI read it: the service through its `RankingClient`, and the
group's mirror on disk (`Mirror`), the only cache. Show at once (`cached_*`), revalidate (`games(refresh=True)`,
`sync_matches`), answer from the mirror while the service is gone (`as_of` says how old), the rankings cache,
the writes that mark lists stale, the ghosts held offline, notes, and what stats/ remembers (`memo`).
See docs/design/mirror.md.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from rankterm.mirror.call_share import DEFAULT_SHARE
from rankterm.mirror.file import dumps
from rankterm.mirror.held_history import HeldHistory
from rankterm.mirror.memo import Memo
from rankterm.mirror.mirror import Mirror
from rankterm.mirror.rankings import LAST
from rankterm.mirror.sync import ROWS_PER_PAGE, MatchSync
from rankterm.wire import endpoints as ep
from rankterm.wire.errors import Offline, RanktermError, UnexpectedResponse
from rankterm.wire.ids import is_local_id
from rankterm.wire.models import (
    Game,
    Match,
    MatchesPage,
    NewMatch,
    NewMatchAnswer,
    Page,
    Player,
    PlayersPage,
    RankingsPage,
    Subset,
)

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient

T = TypeVar("T")


def _local(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts).astimezone()


def _wire_items(raw: Any, models: Sequence[Any]) -> list[Any]:
    """The items as the service sent them when they line up with the parsed ones, else their wire form."""
    if isinstance(raw, list) and len(raw) == len(models) and all(isinstance(r, dict) for r in raw):
        return raw
    return [m.to_wire() for m in models]


class Group:
    """The group's lists, matches and rankings, through its mirror, from the service its `client` reaches."""

    def __init__(
        self,
        client: RankingClient,
        mirror: Mirror | None = None,
        *,
        fresh_for: float = 60.0,
        sync_share: float = DEFAULT_SHARE,
    ) -> None:
        """`mirror`: the group's mirror (one in memory when None). `fresh_for`: seconds for which a list read
        from the service is answered from the mirror without asking again (`refresh=True` always asks).
        `sync_share`: the share of the hourly call quota a first sync spends in an hour (`call_share`)."""
        self.client = client
        self.mirror = mirror if mirror is not None else Mirror(None, client.scope, clock=client.clock)
        self.fresh_for = fresh_for
        self.sync_share = sync_share
        self.history_listeners: list[Callable[[int], None]] = []
        """Called with the first match number whose match changed when a sync finds that the group's history
        changed (a match played earlier than held ones arrived), after the mirror was rewritten."""
        self.memo = Memo()
        """What readers of the held matches (stats/) remember between reads, under the mirror's state."""
        self._served_stale: dict[str, float] = {}
        self._sync = MatchSync(self)

    @classmethod
    def of(cls, service: RankingClient | Group) -> Group:
        """`service` when it is a group; a client's group with its mirror in memory."""
        return service if isinstance(service, Group) else cls(service)

    def __repr__(self) -> str:
        return f"Group({self.client!r})"

    async def aclose(self) -> None:
        """Close the client (`RankingClient.aclose`); the mirror stays open for whoever holds it."""
        await self.client.aclose()

    async def __aenter__(self) -> Group:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def syncing(self) -> bool:
        """Whether a sync of the matches is under way, by this group or another seat on the mirror file."""
        return self._sync.syncing

    @property
    def problem(self) -> str | None:
        """One sentence when the mirror's file could not be used as it was (replaced, or kept in memory)."""
        return self.mirror.problem

    @property
    def display_safe(self) -> bool:
        """Whether texts read are made display-safe (the client's setting)."""
        return self.client.display_safe

    # ------------------------------------------------------------------ notes kept beside the group

    def note(self, key: str) -> Any:
        """A small JSON value kept beside the group under `key` (None when absent): a ledger, a panel's state."""
        return self.mirror.notes.get(key)

    def set_note(self, key: str, value: Any) -> None:
        """Keep a small JSON value under `key`, for every seat of the profile (see `note`)."""
        self.mirror.notes.set(key, value)

    # ------------------------------------------------------------------ writes

    async def add_matches(
        self, matches: NewMatch | Sequence[NewMatch], *, dry_run: bool = False
    ) -> NewMatchAnswer:
        """Record matches through the client (`RankingClient.add_matches`); once recorded, the games, the
        subsets and the matches are read from the service next time (a new game subset, new counts, and
        new matches, maybe dated before held ones, whose standings the mirror no longer vouches for)."""
        answer = await self.client.add_matches(matches, dry_run=dry_run)
        if not dry_run:
            self.invalidate("games", "subsets", "matches")
        return answer

    # ------------------------------------------------------------------ how old an answer is

    @property
    def as_of(self) -> datetime | None:
        """None while the answers given came from the service; else when the oldest one served offline was read."""
        return _local(min(self._served_stale.values())) if self._served_stale else None

    def as_of_for(self, name: str) -> datetime | None:
        """Like `as_of`, for one of "games", "players", "subsets", "matches", "rankings"."""
        return _local(self._served_stale.get(name))

    def held_numbers(self) -> tuple[int, int]:
        """How many matches are held, and the highest number held: changes whenever the held history does."""
        return self.mirror.held.match_numbers()

    def synced_at(self, name: str) -> datetime | None:
        """When the mirror's list `name` ("games", "players", "subsets", "matches") was read from the service."""
        return _local(self.mirror.lists.synced_at(name))

    def served_fresh(self, name: str) -> None:
        """List `name` was just answered by the service: it no longer counts in `as_of`."""
        self._served_stale.pop(name, None)

    def _stale(self, name: str, when: float | None) -> None:
        self._served_stale[name] = when if when is not None else 0.0

    def invalidate(self, *names: str) -> None:
        """Make the next read of these lists (all when none is named) ask the service; the mirror keeps them."""
        self.mirror.lists.mark_stale(*names)

    # ------------------------------------------------------------------ the mirror alone, no request

    def _held(self, name: str, model: Any) -> list[Any] | None:
        items = self.mirror.lists.items(name)
        if items is None:
            return None
        try:
            return self.client.parse(name, list[model], items)
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
        rows = self.mirror.held.matches(game_id=game, offset=offset, limit=limit)
        return self.client.parse("matches", list[Match], rows)

    def held_number_below(self, number: int, *, subset: str | None = None) -> int | None:
        """The match before `number` among the held matches of `subset` (main or a game's): the highest
        number below it; None when none is held or the mirror cannot tell the subset's matches. No request,
        and no match read: the board asks this at every match, of groups that hold 100,000."""
        known, game = self._game_of(subset)
        return self.mirror.held.number_below(number, game_id=game) if known else None

    def held_played_after(self, match: Match, *, subset: str | None = None) -> int | None:
        """How many held matches of `subset` (main or a game's) were played after `match` (numbered above it)
        but recorded before it: more than 0 for a match placed in the past when it arrived. None when the
        mirror cannot tell the subset's matches, or the match says nothing of when it was recorded. No
        request, no match read."""
        known, game = self._game_of(subset)
        if not known or not match.registration_date:
            return None
        return self.mirror.held.count_matches(
            game_id=game, above=match.number, recorded_before=match.registration_date
        )

    def held_matches_named(self, *names: str) -> list[Match]:
        """The held matches whose id or external id is one of `names`, newest first; no request (a look
        through the stored text, for a match the newest held ones do not hold)."""
        wanted = {n for n in names if n}
        forms = {f'"{key}":{dumps(n)}' for n in wanted for key in ("id", "externalId")}
        forms |= {f'"id":{n}' for n in wanted if n.isdigit()}  # an id sent as a number
        rows = [row for form in sorted(forms) for row in self.mirror.held.select_matches(containing=form)]
        found = self.client.parse("matches", list[Match], rows)
        named = {m.number: m for m in found if str(m.id) in wanted or m.external_id in wanted}
        return [named[n] for n in sorted(named, reverse=True)]

    def held_weights(self, game_id: str, *, since: str, limit: int) -> list[object]:
        """The weights of the newest `limit` held matches of `game_id` played at or after `since`
        ("YYYY-MM-DD HH:MM:SS"), as the service wrote them; no request."""
        rows = self.mirror.held.select_matches(game_id=game_id, since=since)
        return [row.get("weight") for row in rows[:limit] if isinstance(row, dict)]

    def matches_fresh(self, within: float) -> bool:
        """Whether the held matches were brought up to date in the last `within` seconds."""
        return self.mirror.lists.is_fresh("matches", within)

    async def twin_candidates(self, matches: Sequence[NewMatch], *, sync: bool = True) -> list[Match]:
        """The group's matches that may be the same as one of `matches` (the held ones of its game that name its
        first player), for the twin check; with `sync`, the held matches are brought up to date first, and
        while the mirror holds none yet one page of the newest matches is read instead of filling it. The
        reads' errors are raised: the caller decides what a twin check that could not read is worth."""
        if sync:
            held, _ = self.held_numbers()
            if not held:
                return list((await self.matches_page(1)).data)
            await self.sync_matches()
        found: dict[int, Match] = {}
        for match in matches:
            first = next((p for f in match.factions for p in f.players), None)
            if match.game is None or first is None:
                continue
            forms = {f'"id":{dumps(first)}', *([f'"id":{first}'] if first.isdigit() else [])}  # a number id
            for form in sorted(forms):
                for row in self.mirror.held.select_matches(game_id=str(match.game), containing=form):
                    with contextlib.suppress(ValueError):
                        read = Match.model_validate(row)
                        found[read.number] = read
        return [found[n] for n in sorted(found, reverse=True)]

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
        if not refresh and self.mirror.lists.is_fresh(name, self.fresh_for):
            held = self._held(name, model)
            if held is not None:
                self.served_fresh(name)
                return held
        try:
            models, raw = await load()
        except Offline:
            held = self._held(name, model)
            if held is None:
                raise
            self._stale(name, self.mirror.lists.synced_at(name))
            return held
        keep = is_local_id if name == "players" else None
        pairs = [(str(m.id), item) for m, item in zip(models, raw, strict=True)]
        kept = self.mirror.lists.replace(name, pairs, keep=keep)
        self.served_fresh(name)
        if kept:  # the ghosts this seat made that the outbox has not sent yet: still offered
            with contextlib.suppress(UnexpectedResponse):
                models = models + self.client.parse(name, list[model], kept)
        return models

    async def games(self, *, refresh: bool = False) -> list[Game]:
        """The group's games; see docs/design/mirror.md for when it asks the service."""

        async def load() -> tuple[list[Game], list[Any]]:
            payload = await self.client.call(ep.GAMES)
            games = self.client.parse("games", list[Game], payload)
            return games, _wire_items(payload, games)

        return await self._list("games", Game, load, refresh)

    async def subsets(self, *, refresh: bool = False) -> list[Subset]:
        """The group's subsets (main, one per game, custom), with their match counts."""

        async def load() -> tuple[list[Subset], list[Any]]:
            payload = await self.client.call(ep.SUBSETS)
            subsets = self.client.parse("subsets", list[Subset], payload)
            return subsets, _wire_items(payload, subsets)

        return await self._list("subsets", Subset, load, refresh)

    async def _players_page(self, page: int) -> tuple[PlayersPage, list[Any]]:
        payload = await self.client.call(ep.PLAYERS, page=page)
        parsed = self.client.parse("players", PlayersPage, payload)
        return parsed, _wire_items(payload.get("data") if isinstance(payload, dict) else None, parsed.data)

    async def players_page(self, page: int = 1) -> PlayersPage:
        """One page of the group's players; offline, that page of the players the mirror holds."""
        try:
            return (await self._players_page(page))[0]
        except Offline:
            held = self._held("players", Player)
            if held is None:
                raise
            self._stale("players", self.mirror.lists.synced_at("players"))
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

        pages = await self.client.all_pages(one)
        return [p for page in pages for p in page.data], [r for n in sorted(raw) for r in raw[n]]

    async def players(self, *, refresh: bool = False) -> list[Player]:
        """Every player of the group (all pages, fetched concurrently), and the ghosts this seat made that the
        outbox has not sent yet (local ids: `ids.is_local_id`)."""
        return await self._list("players", Player, self._load_players, refresh)

    async def players_now(self, *, refresh: bool = False) -> list[Player]:
        """The service's players as they are now: from the mirror when read less than `fresh_for` ago (and
        not made stale; unless `refresh`), else from the service. Never an older copy: raises `Offline` when
        the service cannot be reached. Local ghosts are left out. (The outbox uses it to settle a ghost.)"""
        if not refresh and self.mirror.lists.is_fresh("players", self.fresh_for):
            held = self._held("players", Player)
            if held is not None:
                return [p for p in held if not is_local_id(p.id)]
        models, raw = await self._load_players()
        items = [(str(m.id), item) for m, item in zip(models, raw, strict=True)]
        self.mirror.lists.replace("players", items, keep=is_local_id)
        self.served_fresh("players")
        return models

    def hold_player(self, player: Player) -> None:
        """Put a player made by this seat in the mirror, at the end, without asking the service (a ghost
        queued in the outbox, under its local id): `cached_players()` and offline answers offer it."""
        self.mirror.lists.add_item("players", str(player.id), player.to_wire())

    def drop_player(self, player_id: str) -> None:
        """Take a player out of the mirror (a local ghost the service has now made, or that was discarded)."""
        self.mirror.lists.remove_item("players", player_id)

    async def create_game(self, *, name: str | None = None, bgg_id: int | None = None) -> Game:
        """Create a game (by name, BoardGameGeek id, or both: a name with the id the catalogue does not know,
        which the game keeps); it joins the group's games with its first match."""
        if name is None and bgg_id is None:
            raise ValueError("give a name or a BGG id")
        params: dict[str, Any] = {"bggId": bgg_id} if bgg_id is not None else {}
        if name is not None:
            params["name"] = name
        payload = _as_list(await self.client.call(ep.GAME, params=params))
        games = self.client.parse("game", list[Game], payload)
        if not games:
            raise UnexpectedResponse("game", message="the answer holds no game")
        # The group's games are those with a match played (SERVICE.md): a new game joins them with its
        # first match, so it is not put in the list here; the next read asks.
        self.mirror.lists.mark_stale("games")
        return games[0]

    async def create_player(self, name: str) -> Player:
        """Add a ghost player to the group; the mirror holds it at once."""
        payload = _as_list(await self.client.call(ep.PLAYER, params={"name": name}))
        players = self.client.parse("player", list[Player], payload)
        if not players:
            raise UnexpectedResponse("player", message="the answer holds no player")
        # In the mirror at once (the cached list and an offline answer hold it), at the end; the list is also
        # marked stale, so the next read online takes the service's order (by name) and its other changes.
        self.mirror.lists.add_item("players", players[0].id, _wire_items(payload, players)[0])
        self.mirror.lists.mark_stale("players")
        return players[0]

    # ------------------------------------------------------------------ matches

    async def _matches_page(self, page: int, subset: str | None = None) -> tuple[MatchesPage, list[Any]]:
        payload = await self.client.call(ep.MATCHES, subset=subset, page=page)
        parsed = self.client.parse("matches", MatchesPage, payload)
        return parsed, _wire_items(payload.get("data") if isinstance(payload, dict) else None, parsed.data)

    async def matches_page(self, page: int = 1, *, subset: str | None = None) -> MatchesPage:
        """One page of a subset's matches, newest first; offline, built from the held matches when it can be."""
        try:
            return (await self._matches_page(page, subset))[0]
        except Offline:
            known, game = self._game_of(subset)
            if not known or self.mirror.lists.synced_at("matches") is None:
                raise
            self._stale("matches", self.mirror.lists.synced_at("matches"))
            total = self.mirror.held.count_matches(game_id=game)
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
        pages = await self.client.all_pages(lambda n: self.matches_page(n, subset=subset))
        return [m for page in pages for m in page.data]

    async def sync_matches(self) -> int:
        """Bring the held matches up to date (a first sync within `sync_share` of the hour's calls); return how
        many matches the mirror holds now that it did not. See `rankterm.mirror.sync`."""
        return await self._sync.run()

    def held_history(self) -> HeldHistory:
        """How many of the group's matches the mirror holds, of how many, and when the rest is expected (a
        first sync within the quota's share reads a large group over several hours). No request."""
        return self._sync.held_history()

    # ------------------------------------------------------------------ rankings

    async def rankings_page(
        self, page: int = 1, *, subset: str | None = None, match: int | None = None
    ) -> RankingsPage:
        """A page of the standings after `match` (the latest when None); see docs/design/mirror.md."""
        key, at = subset or "", LAST if match is None else match
        held = self.mirror.rankings.rankings(key, at, page)
        if held is not None and held.final:
            current = await self._history_current()
            held = self.mirror.rankings.rankings(key, at, page)  # gone when the sync found it made stale
            if held is not None and held.final and current is not False:
                if current is None:  # the service could not say: the held page, as of when it was read
                    self._stale("rankings", held.fetched_at)
                return self.client.parse("rankings", RankingsPage, held.body)
        history = self.mirror.held.history_generation()
        try:
            payload = await self.client.call(ep.RANKINGS, subset=subset, match=match, page=page)
        except Offline:
            if held is None:
                raise
            self._stale("rankings", held.fetched_at)
            return self.client.parse("rankings", RankingsPage, held.body)
        parsed = self.client.parse("rankings", RankingsPage, payload)
        last = parsed.subset.last_number if parsed.subset is not None else None
        # kept for good only when the held matches agree with it: the same match under that number, and no
        # change of the history found while it was asked (it may be of the history before)
        final = (
            match is not None
            and parsed.match is not None
            and parsed.match.number == match
            and last is not None
            and last > match
            and self.mirror.held.match_ids([match]).get(match, str(parsed.match.id)) == str(parsed.match.id)
            and self.mirror.held.history_generation() == history
        )
        self.mirror.rankings.put_rankings(key, at, page, payload, final=final)
        if match is not None and parsed.match is not None and last == match == parsed.match.number:
            # the standings after the subset's newest match are its latest: offline, they answer for the latest
            # rather than an older read of them
            self.mirror.rankings.put_rankings(key, LAST, page, payload, final=False)
        self.served_fresh("rankings")
        return parsed

    async def _history_current(self) -> bool | None:
        """Whether the held matches can vouch for the held standings: True when synced less than `fresh_for`
        ago and not marked stale since, or brought up to date now (one request when nothing is new; a changed
        history drops the standings it made stale). False when no match was ever held (the standings are
        asked again rather than the whole history read, or a sync is under way: it may be a long one); None
        when the service could not be asked now."""
        if self.mirror.lists.is_fresh("matches", self.fresh_for):
            return True
        if self.mirror.lists.synced_at("matches") is None or self.syncing:
            return False
        try:
            await self.sync_matches()
        except RanktermError:
            return None
        return True

    async def all_rankings(self, *, subset: str | None = None, match: int | None = None) -> list[Any]:
        """Every row of the standings after `match` (all pages, concurrently)."""
        pages: list[Page] = await self.client.all_pages(
            lambda n: self.rankings_page(n, subset=subset, match=match)
        )
        return [r for page in pages for r in page.data]


def _as_list(payload: Any) -> Any:
    return [payload] if isinstance(payload, dict) else payload
