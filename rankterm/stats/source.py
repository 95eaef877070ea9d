"""The group's matches for the stats pages: the mirror, synced incrementally, parsed whole.

`sync_group` (and `group_matches`, which then reads them all) asks the service only when the mirror's matches
may be out of date: a sync less than `max_age` seconds old (the group's `fresh_for` by default), with no write
from this seat since, is trusted and answered with no request at all (so a second open of a page makes 0
requests); otherwise `group.sync_matches()` is called (one request when nothing is new). Offline, the held
matches are used. A write from this seat is told by the stale mark `add_matches` puts on the subsets list, so
the first call reads the subsets once if the mirror does not hold them. A screen that hears of another seat's
match (the app's `group_changed`, from the live probe) asks again with `max_age=0`.

Parsing is what costs (about 0.1 ms a match, and about 16 KB a parsed match): `held_matches` parses everything
once per group and then only what a sync appends (remembered in the group's `memo`: for commands that run
once, not for the app); `matches_numbered` parses only the matches asked for, and `held_in_parts` a walk of
the whole history a thousand at a time.
A page about one player, one game or one evening reads the compact stats rows instead (`stats.compact`:
`player_matches`, `game_matches`, `matches_since`), with no match parsed; the roster for pickers likewise
(`held_roster`).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterable, Iterator, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError

from rankterm.wire.adapters import type_adapter
from rankterm.wire.errors import Offline, RanktermError
from rankterm.wire.fields import DISPLAY_SAFE
from rankterm.wire.localtime import DATE_FORMAT, parse_wire_date
from rankterm.wire.models import Match
from rankterm.wire.text import display_safe

if TYPE_CHECKING:
    from rankterm.mirror import Group, StatRoster


def is_synced(group: Group, max_age: float | None = None) -> bool:
    """True when the held matches can be trusted with no request: synced less than `max_age` seconds ago
    (the group's `fresh_for` by default; 0 never trusts), no match recorded from this seat since (recording
    marks the held subsets list stale: `Group.add_matches`), and the held subsets, if read after the
    sync, count no more matches in the main subset than the mirror holds."""
    age = group.fresh_for if max_age is None else max_age
    mirror = group.mirror
    if age <= 0 or not mirror.lists.is_fresh("matches", age):
        return False
    if mirror.lists.synced_at("subsets") is None or mirror.lists.is_stale("subsets"):
        return False
    main = next((s for s in group.cached_subsets() if s.is_main), None)
    return main is None or main.count_matches <= mirror.held.match_numbers()[0]


async def sync_group(group: Group, *, max_age: float | None = None, offline_ok: bool = True) -> None:
    """Bring the mirror's matches up to date, with no request when `is_synced(group, max_age)`
    (`max_age=0` always checks); else `group.sync_matches()` (one request when nothing is new).

    Offline, the held matches stand when `offline_ok` (raises `Offline` when the mirror has never held
    them, or always when not `offline_ok`: a headless command prints only what the service said)."""
    if group.mirror.lists.synced_at("subsets") is None:
        with contextlib.suppress(RanktermError):  # held from now on, so that a write here can be told
            await group.subsets()
    if not is_synced(group, max_age):
        try:
            await group.sync_matches()
        except Offline:
            if not offline_ok or group.mirror.lists.synced_at("matches") is None:
                raise


async def group_matches(
    group: Group, *, max_age: float | None = None, offline_ok: bool = True
) -> list[Match]:
    """Every match of the group, oldest first (by number): `sync_group`, then `held_matches`."""
    await sync_group(group, max_age=max_age, offline_ok=offline_ok)
    return held_matches(group)


def held_matches(group: Group) -> list[Match]:
    """Every match the mirror holds, oldest first (by number), with no request.

    Parsed once per process, then only what a sync appended (a changed mirror that is not a plain append is
    parsed again). Parsing is the costly part (about 0.1 ms a match: a second for 10,000): a page about one
    player, one game or one evening reads only its matches with `player_matches`, `game_matches`,
    `matches_since`, fast from the first open."""
    count, top, history = group.mirror.held.matches_key()
    key = (count, top, history, group.display_safe)
    cached = group.memo.get("stats.parsed")
    if cached is not None and cached[0] != key:  # a sync appended matches: parse only those
        (held, held_top, held_history, safe), matches = cached
        same = safe == key[3] and held_history == history
        new = _parse(group, group.mirror.held.select_matches(after=held_top)) if same else []
        appended = bool(new) and held + len(new) == count and new[-1].number == top
        cached = (key, matches + new) if appended else None
    if cached is None or cached[0] != key:
        with kept_out_of_collections(count):  # the rows read as well as the matches parsed
            cached = (key, _parse(group, group.mirror.held.matches()))
    group.memo.put("stats.parsed", cached)
    return list(cached[1])


PARSE_CHUNK = 200
"""Matches validated in one call: pydantic holds the GIL for a whole call, so a thread parsing a big group
in one would freeze the event loop for seconds; a chunk is a few milliseconds."""
KEPT_AT_LEAST = 2_000
"""A parse of this many matches or more runs with the cyclic collector paused, and what it made is frozen."""
_collector = threading.Lock()
_pausing = [0]


@contextlib.contextmanager
def kept_out_of_collections(count: int) -> Iterator[None]:
    """Parse `count` matches without the cyclic collector walking them. Each full collection walks every
    object in the process while holding the GIL: parsing 10,000 matches set off six, the longest 0.7 s, an
    event loop frozen that long though the parse ran in a thread. The parsed matches are kept for the
    process's life (the memo), so what the parse made is frozen (`gc.freeze`): no later collection walks
    it again, and reference counting still frees it. A collector the process disabled stays disabled."""
    if count < KEPT_AT_LEAST:
        yield
        return
    with _collector:
        paused = gc.isenabled() or _pausing[0] > 0
        if paused:
            _pausing[0] += 1
            gc.disable()
    try:
        yield
    finally:
        if paused:
            with _collector:
                _pausing[0] -= 1
                if _pausing[0] == 0:
                    gc.freeze()
                    gc.enable()


def _parse(group: Group, rows: list[Any]) -> list[Match]:
    """Held matches (newest first, wire form) parsed oldest first, under the group's display rules; a held
    match that cannot be read is left out rather than losing the page."""
    context = DISPLAY_SAFE if group.display_safe else None
    try:
        with kept_out_of_collections(len(rows)):
            parsed = [
                m
                for at in range(0, len(rows), PARSE_CHUNK)
                for m in type_adapter(list[Match]).validate_python(
                    rows[at : at + PARSE_CHUNK], context=context
                )
            ]
    except ValidationError:
        parsed = []
        for row in rows:
            with contextlib.suppress(ValidationError):
                parsed.append(Match.model_validate(row, context=context))
    return list(reversed(parsed))


def matches_numbered(group: Group, numbers: Iterable[int]) -> list[Match]:
    """The held matches of these numbers, oldest first; no request. Many (a year of a big group: 33,000) are
    read with the collector paused from the read on: the rows' dicts read from the mirror set off hundreds of
    collections otherwise, full ones of 150-300 ms among them, each holding the GIL (the loop stood still)."""
    wanted = sorted(set(numbers))
    with kept_out_of_collections(len(wanted)):
        return _parse(group, group.mirror.held.select_matches(numbers=wanted))


def held_last_hours(group: Group, hours: float) -> list[Match]:
    """The held matches dated within `hours` before the newest held match's date (and those of the same date
    or later), oldest first: only they are parsed."""
    from rankterm.mirror import match_marks

    marks = match_marks(group.mirror)
    when = parse_wire_date(max((mark.date for mark in marks if mark.date), default=None))
    if when is None:
        return []
    since = (when - timedelta(hours=hours)).strftime(DATE_FORMAT)
    return matches_numbered(group, [mark.number for mark in marks if mark.date >= since])


HELD_PART = 1_000
"""Matches parsed at a time by a walk of the whole history (`held_in_parts`)."""


def held_in_parts(group: Group, numbers: Sequence[int] | None = None) -> Iterator[list[Match]]:
    """The held matches numbered `numbers` (rising; by default every readable one, `match_marks`), oldest
    first, parsed `HELD_PART` at a time as the caller walks on: a parsed match takes about 16 KB, so a walk of
    100,000 that held them all at once took 1.6 GB, and the heap stayed that size."""
    if numbers is None:
        from rankterm.mirror import match_marks

        numbers = [mark.number for mark in match_marks(group.mirror)]
    for start in range(0, len(numbers), HELD_PART):
        yield matches_numbered(group, numbers[start : start + HELD_PART])


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


def held_roster(group: Group) -> Roster:
    """The players and games of the held matches, with counts and the newest date; no request.

    Read from the mirror's stats rows (`Mirror.stat_roster`: a few indexed queries, no JSON parsed, no
    model built), remembered while the mirror holds the same matches; names follow the group's display
    rules as the parsed models would. A stats mode fills its pickers from this and reads a page's matches
    narrowly."""
    count, top, history = group.mirror.held.matches_key()
    key = (count, top, history, group.display_safe)
    cached = group.memo.get("stats.roster")
    if cached is not None and cached[0] == key:
        return cached[1]
    roster = _roster_of(group.mirror.stats.stat_roster(), (count, top), group.display_safe)
    group.memo.put("stats.roster", (key, roster))
    return roster


def _roster_of(rows: StatRoster, key: tuple[int, int], safe: bool) -> Roster:
    """The roster from the stats rows' (`StatRows.stat_roster`), names as the parsed `Player.label` would
    give them."""
    shown = display_safe if safe else str
    players: dict[str, str] = {}
    played: dict[str, int] = {}
    for seat in rows.players:  # a player's first faction in their newest match first
        if seat.player not in players:
            dn, un = seat.display_name, seat.username
            players[seat.player] = (shown(dn) if dn else "") or (shown(un) if un else "") or seat.player
            played[seat.player] = seat.played
    names = {g.game_id: shown(g.name) if g.name else "" for g in rows.games}
    game_played = {g.game_id: g.played for g in rows.games}
    newest = rows.newest
    if newest is not None and safe:
        newest = (display_safe(newest[0]), newest[1])
    return Roster(players, played, names, game_played, newest, key)
