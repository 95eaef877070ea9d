"""The group's matches for the stats pages: the mirror, synced incrementally, parsed once per change.

`group_matches` asks the service only when the mirror's matches may be out of date: a sync less than
`max_age` seconds old (the client's `fresh_for` by default), with no write from this seat since, is trusted
and answered with no request at all (so a second open of a page makes 0 requests); otherwise
`client.sync_matches()` is called (one request when nothing is new). Offline, the held matches are returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankterm.api.models import Match

if TYPE_CHECKING:
    from rankterm.api.client import RankingClient


async def group_matches(client: RankingClient, *, max_age: float | None = None) -> list[Match]:
    """Every match of the group, oldest first (by number), from the mirror after an incremental sync."""
    raise NotImplementedError


def held_matches(client: RankingClient) -> list[Match]:
    """Every match the mirror holds, oldest first, with no request (parsed once per change of the mirror)."""
    raise NotImplementedError
