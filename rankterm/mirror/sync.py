"""`MatchSync`: bringing the held matches of a `Group` up to date from the service's matches pages, newest
first: page 1 says what is new and whether the history changed (a backdated match renumbered held ones); a
first sync reads older pages within a share of the hourly call quota, in parts written on a worker thread; a
full read is staged aside and swapped in whole. One sync at a time per mirror file (the sync lease).
See docs/design/mirror.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import time
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from rankterm.client import paging
from rankterm.mirror.call_share import CallShare
from rankterm.mirror.file import dumps
from rankterm.mirror.held_history import HeldHistory
from rankterm.wire import endpoints as ep
from rankterm.wire.errors import QuotaError, UnexpectedResponse

if TYPE_CHECKING:
    from rankterm.client.paging import Window
    from rankterm.mirror.group import Group

ROWS_PER_PAGE = 25
"""Rows of a page of the service (a page built from the mirror has as many)."""
RESYNC_PAGES = 200
"""Pages of matches a full read holds in memory before it writes them to the mirror (~5,000 matches)."""
PART_PAGES = 40
"""Pages of a first sync written to the mirror at once (its lease renewed with them)."""
SYNC_LEASE = 30.0
"""Seconds a seat holds the right to sync the mirror's matches unless it renews it (a part written does)."""
LEASE_POLL = 0.05
"""Seconds between two looks at the lease while another seat syncs."""


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


def _who_and_when(match: Any) -> tuple[Any, ...]:
    """What a match keeps for good once recorded, whoever renames a player or a game later: its external id,
    its date and each faction's rank and players' ids. The same number and id under another of these is a
    match of another history (a service started afresh on the same address numbers and ids its matches
    from 1 again)."""
    if not isinstance(match, dict):
        return ()
    factions = match.get("factions")
    return (
        match.get("externalId"),
        match.get("date"),
        tuple(
            (
                f.get("rank"),
                tuple(p.get("id") for p in f.get("players") or () if isinstance(p, dict)),
            )
            for f in (factions if isinstance(factions, list) else ())
            if isinstance(f, dict)
        ),
    )


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


class MatchSync:
    """The sync of one group's held matches (the `Group` calls `run`)."""

    def __init__(self, group: Group) -> None:
        self._group = group
        self._sync_lock = asyncio.Lock()
        self._holder = uuid.uuid4().hex
        """Who this is to the other seats on the mirror file (its sync lease)."""

    @property
    def syncing(self) -> bool:
        """Whether a sync of the matches is under way, by this group or another seat on the mirror file."""
        return self._sync_lock.locked() or self._group.mirror.lease.sync_leased_elsewhere(
            self._holder, time.time()
        )

    async def run(self) -> int:
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
            held, _ = self._group.mirror.held.match_numbers()
            syncs = self._group.mirror.lease.syncs_done()
            waited = False
            while not self._group.mirror.lease.take_sync_lease(self._holder, time.time(), SYNC_LEASE):
                waited = True
                await asyncio.sleep(LEASE_POLL)
            synced = False
            try:
                if (
                    waited and self._group.mirror.lease.syncs_done() != syncs
                ):  # another seat read it all meanwhile
                    self._group.served_fresh("matches")
                    return max(0, self._group.mirror.held.match_numbers()[0] - held)
                added = await self._sync_matches()
                synced = True
                return added
            finally:
                self._group.mirror.lease.release_sync_lease(self._holder, synced=synced)

    def held_history(self) -> HeldHistory:
        """How many of the group's matches the mirror holds, of how many, and when the rest is expected (a
        first sync within the quota's share reads a large group over several hours). No request."""
        count, _ = self._group.mirror.held.match_numbers()
        low, total = self._group.mirror.held.held_history()
        if count == 0 or low <= 1:
            return HeldHistory(count, max(count, total or 0) if count else total or 0, None)
        pace = self._share().pace()
        if pace is None:
            return HeldHistory(count, max(total or 0, count), None)
        pages_left = math.ceil((low - 1) / ROWS_PER_PAGE)
        now = self._group.client.clock()
        next_hour = (now // 3600 + 1) * 3600
        return HeldHistory(
            count, max(total or 0, count), next_hour - now + (math.ceil(pages_left / pace) - 1) * 3600
        )

    def _share(self) -> CallShare:
        async def usage() -> dict[str, float | None]:
            return (await self._group.client.quota()).usage()

        return CallShare(self._group.mirror.notes, usage, self._group.client.clock, self._group.sync_share)

    async def _sync_matches(self) -> int:
        held, top = self._group.mirror.held.match_numbers()
        low, _ = self._group.mirror.held.held_history()
        first = await self._sync_page(1)
        total = first.total
        if held == 0:
            return await self._first_sync(first)
        if self._another_history(first.reads):
            return await self._read_again(first, held, low, another=True)
        if total < held + low - 1:
            return await self._read_again(first, held, low)
        per = first.per
        read = list(first.reads)
        wanted = math.ceil(max(0, total - (held + low - 1)) / per)
        last_page = 1
        if all(r.number > top for r in read) and wanted > 1:
            last_page = min(wanted, first.total_pages)
            for page in await self._group.client.fetch_pages(range(2, last_page + 1), self._sync_page):
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
            self._group.mirror.held.put_matches([r.row for r in new], dumped=True)
            self._drop_standings_placed_before(new)
        else:
            rows = [r.row for r in by_number.values() if r.number >= changed]
            self._group.mirror.held.rewrite_matches_from(changed, rows)
        count, top = self._group.mirror.held.match_numbers()
        if count + low - 1 != total + len(arrived_since):
            return await self._read_again(first, held, low)
        self._group.mirror.held.set_held_history(total=top)
        self._group.served_fresh("matches")
        if changed is not None:
            self._history_rewritten(changed)
        added = max(0, count - held)
        if low > 1:
            added += await self._read_older(per)
        return added

    def _another_history(self, reads: list[_Read]) -> bool:
        """Whether a held match that page 1 lists under its number and id was recorded otherwise (another
        external id, date, rank or player: `_who_and_when`): the mirror holds another history than the
        service's, e.g. of a service started afresh on the same address. Only page 1 is compared: a history
        that changed below it is found by the numbers and ids, as before."""
        held = {
            int(m.get("number", -1)): m
            for m in self._group.mirror.held.select_matches(numbers=[r.number for r in reads])
            if isinstance(m, dict)
        }
        return any(
            mine is not None
            and str(mine.get("id")) == r.id
            and _who_and_when(mine) != _who_and_when(json.loads(r.body))
            for r in reads
            for mine in (held.get(r.number),)
        )

    def _first_change(self, read: dict[int, _Read], top: int, low: int = 1) -> int | None:
        """The first held number at which `read` (the matches read, by number: from the newest down) lists
        another match than the mirror, which holds `low` to `top`; None when they agree and nothing held
        moved. Negative when the history changed below the lowest number read (its matches disagree, or the
        held latest match is listed under a higher number): older pages must be read to find where."""
        if not read:
            return None
        numbers = sorted(read)
        compared = [n for n in numbers if low <= n <= top]
        held = self._group.mirror.held.match_ids([*compared, top])
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
        later = self._group.mirror.held.first_number_dated_after(earliest, below=min(r.number for r in new))
        if later is not None:
            self._group.mirror.rankings.drop_rankings_from(later)
            self._history_rewritten(later)

    def _history_rewritten(self, first: int) -> None:
        """Tell the client's `history_listeners` that the history changed from match `first` on."""
        for listener in list(self._group.history_listeners):
            listener(first)

    async def _first_sync(self, first: _SyncPage) -> int:
        """Page 1 held as the newest matches, then older pages within the quota's share."""
        rows = [r.row for r in first.reads]
        held_from = min((r.number for r in first.reads), default=1)
        self._group.mirror.held.put_matches(rows, dumped=True, held_from=held_from)
        self._group.mirror.held.set_held_history(total=first.total)
        self._group.served_fresh("matches")
        return len(rows) + (await self._read_older(first.per) if held_from > 1 else 0)

    async def _read_again(self, first: _SyncPage, held: int, low: int, *, another: bool = False) -> int:
        """Counts that disagree (a match deleted on the service), or `another` history held: every match read
        again. A history still being read for the first time starts again, newest first, within the share; a
        whole one is read again at once (`_resync_matches`)."""
        if low <= 1:
            return await self._resync_matches(first, changed_from=1 if another else None)
        self._group.mirror.held.rewrite_matches_from(1, [])
        await self._first_sync(first)
        self._history_rewritten(1)
        return max(0, self._group.mirror.held.match_numbers()[0] - held)

    async def _read_older(self, per: int) -> int:
        """Read the pages below the held matches, newest first, round by round within this hour's share of
        the call quota (`CallShare`), each part written as it arrives; return how many matches were added.
        Stops when the share is spent, at a quota refusal, or when the pages no longer join the held
        matches (the group changed under the read: the next sync finds how)."""
        share = self._share()
        added = 0
        while True:
            low, total = self._group.mirror.held.held_history()
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
            window = paging.Window(
                start=self._group.client.concurrency, ceiling=self._group.client.concurrency
            )
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
            self._group.client.require_calls(1)
            return await self._sync_page(n)

        writer = self._group.mirror.held.older_matches_writer()
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
                self._group.mirror.held.put_older_matches if writer is None else writer.put,
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
            self._group.mirror.held.set_held_history(
                total=max(total, self._group.mirror.held.held_history()[1] or 0)
            )
        return added, joined

    async def _resync_matches(self, first: _SyncPage, changed_from: int | None = None) -> int:
        """Every page read again and written aside as it arrives, `RESYNC_PAGES` pages at a time (a group of
        100,000 matches is 4,000 pages), then swapped for the held matches at once (the history changed
        from `changed_from` at the latest, whatever the ids say)."""
        pages = range(2, first.total_pages + 1)
        self._group.client.require_calls(
            len(pages)
        )  # the whole read refused unsent when the quota does not allow it
        self._group.mirror.held.stage_matches([r.row for r in first.reads], first=True)
        window = self._group.client.new_window()
        for start in range(0, len(pages), RESYNC_PAGES):
            chunk = await self._group.client.fetch_pages(
                pages[start : start + RESYNC_PAGES], self._sync_page, window
            )
            self._group.mirror.held.stage_matches(r.row for page in chunk for r in page.reads)
        held, _ = self._group.mirror.held.match_numbers()
        count, changed = self._group.mirror.held.replace_matches_with_staged(changed_from)
        self._group.mirror.held.set_held_history(held_from=1, total=count)
        self._group.served_fresh("matches")
        if changed is not None:
            self._history_rewritten(changed)
        return max(0, count - held)

    async def _sync_page(self, page: int) -> _SyncPage:
        """A page of the group's matches as a sync keeps it (`_SyncPage`)."""
        return _sync_page(await self._group.client.call(ep.MATCHES, page=page))
