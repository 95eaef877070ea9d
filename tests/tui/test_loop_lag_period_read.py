"""A period's matches (a year of a big group: 33,000) are read from the mirror with the cyclic collector paused
from the read on, not only while they are parsed: the rows' dicts the read makes set off hundreds of
collections otherwise, full ones of 150-300 ms among them at 100,000 matches, each holding the GIL while the
event loop waits."""

from __future__ import annotations

import gc

from rankterm.mirror import Group
from rankterm.stats import source
from rankterm.stats.kept import held_in_period
from rankterm.stats.seasons import period_of
from rankterm.stats.source import matches_numbered, sync_group
from rankterm.wire.localtime import UTC_ZONE


async def test_many_matches_read_by_number_set_off_no_collection(
    demo_service, monkeypatch, collections_seen
) -> None:
    monkeypatch.setattr(source, "KEPT_AT_LEAST", 100)  # the demo's 300 matches count as a big group
    async with Group(demo_service.client()) as group:
        await sync_group(group)
        numbers = list(range(1, 301))
        collections_seen.clear()
        matches = matches_numbered(group, numbers)
        during = list(collections_seen)
        in_year = held_in_period(group, period_of("2026"), UTC_ZONE)
    assert [m.number for m in matches] == numbers
    assert in_year and all(m.date.startswith("2026") for m in in_year)
    assert during == []  # the rows' dicts alone set off collections when the collector runs during the read
    assert gc.isenabled()
