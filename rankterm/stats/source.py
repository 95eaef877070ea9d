"""The group's matches for the stats pages: the mirror, synced incrementally, read as narrowly as a page needs.

`sync_group` (and `group_matches`, which then reads them all) asks the service only when the mirror's matches
may be out of date: a sync less than `max_age` seconds old (the client's `fresh_for` by default), with no write
from this seat since, is trusted and answered with no request at all (so a second open of a page makes 0
requests); otherwise `client.sync_matches()` is called (one request when nothing is new). Offline, the held
matches are used. A write from this seat is told by the stale mark `add_matches` puts on the subsets list, so
the first call reads the subsets once if the mirror does not hold them. A screen that hears of another seat's
match (the app's `group_changed`, from the live probe) asks again with `max_age=0`.

Parsing is what costs (about 0.1 ms a match): `held_matches` parses everything once per process and then only
what a sync appends; `player_matches`, `game_matches`, `matches_since`, `matches_numbered` let SQLite pick a
page's matches first and parse only those (remembered while the mirror holds the same matches).
"""

from __future__ import annotations

import contextlib
import json
import weakref
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import TypeAdapter, ValidationError

from rankterm.stats.rules import faction_of
from rankterm.wire.errors import Offline, RanktermError
from rankterm.wire.fields import DISPLAY_SAFE
from rankterm.wire.models import DATE_FORMAT, Match
from rankterm.wire.text import display_safe

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient

_parsed: weakref.WeakKeyDictionary[RankingClient, tuple[tuple[int, int, int, bool], list[Match]]] = (
    weakref.WeakKeyDictionary()
)
"""Per client: the held matches parsed, under (count, highest number, history generation, display_safe) of the
mirror then (`Mirror.matches_key`: a backdated match renumbers held ones without the counts telling)."""

_NARROW_KEPT = 16
_narrow_memo: weakref.WeakKeyDictionary[
    RankingClient, dict[tuple[Any, ...], tuple[list[Match] | None, list[Match] | None]]
] = weakref.WeakKeyDictionary()
"""Per client: the last few narrowed reads (a player's, a game's matches), under the mirror's state and what."""


def is_synced(client: RankingClient, max_age: float | None = None) -> bool:
    """True when the held matches can be trusted with no request: synced less than `max_age` seconds ago
    (the client's `fresh_for` by default; 0 never trusts), no match recorded from this seat since (recording
    marks the held subsets list stale: `RankingClient.add_matches`), and the held subsets, if read after the
    sync, count no more matches in the main subset than the mirror holds."""
    age = client.fresh_for if max_age is None else max_age
    mirror = client.mirror
    if age <= 0 or not mirror.is_fresh("matches", age):
        return False
    if mirror.synced_at("subsets") is None or mirror.is_stale("subsets"):
        return False
    main = next((s for s in client.cached_subsets() if s.is_main), None)
    return main is None or main.count_matches <= mirror.match_numbers()[0]


async def sync_group(client: RankingClient, *, max_age: float | None = None, offline_ok: bool = True) -> None:
    """Bring the mirror's matches up to date, with no request when `is_synced(client, max_age)`
    (`max_age=0` always checks); else `client.sync_matches()` (one request when nothing is new).

    Offline, the held matches stand when `offline_ok` (raises `Offline` when the mirror has never held
    them, or always when not `offline_ok`: a headless command prints only what the service said)."""
    if client.mirror.synced_at("subsets") is None:
        with contextlib.suppress(RanktermError):  # held from now on, so that a write here can be told
            await client.subsets()
    if not is_synced(client, max_age):
        try:
            await client.sync_matches()
        except Offline:
            if not offline_ok or client.mirror.synced_at("matches") is None:
                raise


async def group_matches(
    client: RankingClient, *, max_age: float | None = None, offline_ok: bool = True
) -> list[Match]:
    """Every match of the group, oldest first (by number): `sync_group`, then `held_matches`."""
    await sync_group(client, max_age=max_age, offline_ok=offline_ok)
    return held_matches(client)


def held_matches(client: RankingClient) -> list[Match]:
    """Every match the mirror holds, oldest first (by number), with no request.

    Parsed once per process, then only what a sync appended (a changed mirror that is not a plain append is
    parsed again). Parsing is the costly part (about 0.1 ms a match: a second for 10,000): a page about one
    player, one game or one evening reads only its matches with `player_matches`, `game_matches`,
    `matches_since`, fast from the first open."""
    count, top, history = client.mirror.matches_key()
    key = (count, top, history, client.display_safe)
    cached = _parsed.get(client)
    if cached is not None and cached[0] != key:  # a sync appended matches: parse only those
        (held, held_top, held_history, safe), matches = cached
        same = safe == key[3] and held_history == history
        new = _parse(client, client.mirror.select_matches(after=held_top)) if same else []
        appended = bool(new) and held + len(new) == count and new[-1].number == top
        cached = (key, matches + new) if appended else None
    if cached is None or cached[0] != key:
        cached = (key, _parse(client, client.mirror.matches()))
    _parsed[client] = cached
    return list(cached[1])


_MATCHES: TypeAdapter[list[Match]] = TypeAdapter(list[Match])


def _parse(client: RankingClient, rows: list[Any]) -> list[Match]:
    """Held matches (newest first, wire form) parsed oldest first, under the client's display rules; a held
    match that cannot be read is left out rather than losing the page."""
    context = DISPLAY_SAFE if client.display_safe else None
    try:
        parsed = _MATCHES.validate_python(rows, context=context)
    except ValidationError:
        parsed = []
        for row in rows:
            with contextlib.suppress(ValidationError):
                parsed.append(Match.model_validate(row, context=context))
    return list(reversed(parsed))


def _narrowed(client: RankingClient, what: tuple[Any, ...], rows: Callable[[], list[Any]]) -> list[Match]:
    """Held matches narrowed by the mirror, parsed, remembered while the mirror holds the same matches."""
    key = (*client.mirror.matches_key(), client.display_safe, *what)
    memo = _narrow_memo.setdefault(client, {})
    if key not in memo:
        if len(memo) >= _NARROW_KEPT:
            memo.pop(next(iter(memo)))
        whole = _parsed.get(client)
        if whole is not None and whole[0] == key[:4]:  # everything is parsed already: filter, don't parse
            memo[key] = None, whole[1]
        else:
            memo[key] = _parse(client, rows()), None
    narrowed, everything = memo[key]
    return list(narrowed) if narrowed is not None else list(everything or [])


def player_matches(client: RankingClient, player_id: str) -> list[Match]:
    """The held matches `player_id` plays in, oldest first (by number); no request. Enough for
    `player_figures(.., player_id)`, `head_to_head(.., player_id, ...)` and the player's history."""
    matches = _narrowed(
        client,
        ("player", player_id),
        lambda: client.mirror.select_matches(containing=json.dumps(player_id, ensure_ascii=False)),
    )
    return [m for m in matches if faction_of(m, player_id) is not None]


def game_matches(client: RankingClient, game_id: int) -> list[Match]:
    """The held matches of one game, oldest first; no request. Enough for `game_figures(.., game_id)`."""
    matches = _narrowed(client, ("game", game_id), lambda: client.mirror.select_matches(game_id=str(game_id)))
    return [m for m in matches if m.game is not None and m.game.id == game_id]


def matches_since(client: RankingClient, since: datetime) -> list[Match]:
    """The held matches dated at or after `since` (UTC when naive, as `figures.tonight` reads it), oldest
    first (by number); no request. Enough for `tonight(.., since)`."""
    utc = since.astimezone(UTC).replace(tzinfo=None) if since.tzinfo is not None else since
    start = utc.strftime(DATE_FORMAT)
    matches = _narrowed(client, ("since", start), lambda: client.mirror.select_matches(since=start))
    return [m for m in matches if m.date >= start]


def matches_numbered(client: RankingClient, numbers: Iterable[int]) -> list[Match]:
    """The held matches of these numbers, oldest first; no request."""
    wanted = sorted(set(numbers))
    return _parse(client, client.mirror.select_matches(numbers=wanted))


class Roster(NamedTuple):
    """Who and what the held matches name, for pickers (`held_roster`): no match parsed into a model."""

    players: dict[str, str]
    """Player id -> name as the newest match naming them has it (bots left out)."""
    played: dict[str, int]
    """Player id -> how many held matches they play in."""
    games: dict[int, str]
    """Game id -> name as the newest match of it has it."""
    game_played: dict[int, int]
    """Game id -> how many held matches."""
    newest: tuple[str, int] | None
    """(date, number) of the newest match by date, then number: None when none is held."""
    key: tuple[int, int]
    """(count, highest number) of the mirror's matches these were read from."""


_rosters: weakref.WeakKeyDictionary[RankingClient, tuple[tuple[int, int, int, bool], Roster]] = (
    weakref.WeakKeyDictionary()
)


def held_roster(client: RankingClient) -> Roster:
    """The players and games of the held matches, with counts and the newest date; no request.

    Read from the mirror's stats rows (`Mirror.stat_roster`: a few indexed queries, no JSON parsed, no
    model built), remembered while the mirror holds the same matches; names follow the client's display
    rules as the parsed models would. A stats mode fills its pickers from this and reads a page's matches
    narrowly."""
    count, top, history = client.mirror.matches_key()
    key = (count, top, history, client.display_safe)
    cached = _rosters.get(client)
    if cached is not None and cached[0] == key:
        return cached[1]
    roster = _roster_of(*client.mirror.stat_roster(), (count, top), client.display_safe)
    _rosters[client] = key, roster
    return roster


def _roster_of(
    seats: list[tuple[Any, ...]],
    games: list[tuple[Any, ...]],
    newest: tuple[str, int] | None,
    key: tuple[int, int],
    safe: bool,
) -> Roster:
    """The roster from `Mirror.stat_roster`'s rows, names as the parsed `Player.label` would give them."""
    shown = display_safe if safe else str
    players: dict[str, str] = {}
    played: dict[str, int] = {}
    for pid, display_name, username, count in seats:  # a player's first faction in their newest match first
        if pid not in players:
            players[pid] = (
                (shown(display_name) if display_name else "") or (shown(username) if username else "") or pid
            )
            played[pid] = count
    names = {gid: shown(name) if name else "" for gid, name, _ in games}
    game_played = {gid: count for gid, _, count in games}
    if newest is not None and safe:
        newest = (display_safe(newest[0]), newest[1])
    return Roster(players, played, names, game_played, newest, key)
