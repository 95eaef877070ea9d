"""The group's matches for the stats pages: the mirror, synced incrementally, parsed once per change.

`group_matches` asks the service only when the mirror's matches may be out of date: a sync less than
`max_age` seconds old (the client's `fresh_for` by default), with no write from this seat since, is trusted
and answered with no request at all (so a second open of a page makes 0 requests); otherwise
`client.sync_matches()` is called (one request when nothing is new). Offline, the held matches are returned.
A write from this seat is told by the stale mark `add_matches` puts on the subsets list, so the first call
reads the subsets once if the mirror does not hold them. A screen that hears of another seat's match (the app's
`group_changed`, from the live probe) asks again with `max_age=0`.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import TYPE_CHECKING

from rankterm.api.errors import Offline, RanktermError
from rankterm.api.models import Match

if TYPE_CHECKING:
    from rankterm.api.client import RankingClient

_parsed: weakref.WeakKeyDictionary[RankingClient, tuple[tuple[int, int, bool], list[Match]]] = (
    weakref.WeakKeyDictionary()
)
"""Per client: the held matches parsed, under (count, highest number, display_safe) of the mirror then."""


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


async def group_matches(
    client: RankingClient, *, max_age: float | None = None, offline_ok: bool = True
) -> list[Match]:
    """Every match of the group, oldest first (by number), from the mirror after an incremental sync.

    No request when `is_synced(client, max_age)` (`max_age=0` always checks); else `client.sync_matches()`
    (one request when nothing is new). Offline, the held matches when `offline_ok` (raises `Offline` when
    the mirror has never held them, or always when not `offline_ok`: a headless command prints only what
    the service said).
    """
    if client.mirror.synced_at("subsets") is None:
        with contextlib.suppress(RanktermError):  # held from now on, so that a write here can be told
            await client.subsets()
    if not is_synced(client, max_age):
        try:
            await client.sync_matches()
        except Offline:
            if not offline_ok or client.mirror.synced_at("matches") is None:
                raise
    return held_matches(client)


def held_matches(client: RankingClient) -> list[Match]:
    """Every match the mirror holds, oldest first, with no request (parsed once per change of the mirror)."""
    count, top = client.mirror.match_numbers()
    key = (count, top, client.display_safe)
    cached = _parsed.get(client)
    if cached is None or cached[0] != key:
        cached = (key, list(reversed(client.cached_matches())))
        _parsed[client] = cached
    return list(cached[1])
