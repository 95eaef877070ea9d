"""What keeps the event loop free while a big group is read: a whole history parsed in a thread runs with the
cyclic collector paused and leaves its matches frozen (a full collection holds the GIL, so the loop would
freeze though the parse is in a thread); Home's tonight parses the evening's matches only."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from rankterm.mirror import Group
from rankterm.stats import source
from rankterm.stats.source import held_matches, sync_group


@pytest.fixture
def collections_seen() -> Iterator[list[tuple[int, bool]]]:
    """Every collection the cyclic collector starts while the test runs: (generation, enabled then); what
    the test froze is given back to the collector after it."""
    seen: list[tuple[int, bool]] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append((info["generation"], gc.isenabled()))

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)
        gc.unfreeze()


async def test_a_whole_history_is_parsed_with_no_collection_and_left_frozen(
    demo_service, monkeypatch, collections_seen
) -> None:
    monkeypatch.setattr(source, "KEPT_AT_LEAST", 100)  # the demo's 300 matches count as a big group
    async with Group(demo_service.client()) as group:
        await sync_group(group)
        assert gc.isenabled()
        frozen = gc.get_freeze_count()
        collections_seen.clear()
        matches = held_matches(group)
        during = list(collections_seen)
    assert len(matches) == 300 and [m.number for m in matches] == sorted(m.number for m in matches)
    assert during == []  # ~100 objects a match: a young collection every 700 objects otherwise
    assert gc.isenabled()  # given back
    assert gc.get_freeze_count() > frozen  # the parsed matches are out of every later collection's walk


async def test_a_small_read_leaves_the_collector_alone(demo_service, collections_seen) -> None:
    async with Group(demo_service.client()) as group:
        await sync_group(group)
        frozen = gc.get_freeze_count()
        collections_seen.clear()
        held_matches(group)  # 300 matches: under `KEPT_AT_LEAST`
        during = list(collections_seen)
    assert during and all(enabled for _generation, enabled in during)
    assert gc.get_freeze_count() == frozen


async def test_a_collector_the_process_disabled_stays_disabled(demo_service, monkeypatch) -> None:
    monkeypatch.setattr(source, "KEPT_AT_LEAST", 100)
    async with Group(demo_service.client()) as group:
        await sync_group(group)
        frozen = gc.get_freeze_count()
        gc.disable()
        try:
            held_matches(group)
            assert not gc.isenabled()
        finally:
            gc.enable()
    assert gc.get_freeze_count() == frozen  # nothing frozen behind the process's back
