"""`rankterm demo` keeps the day's demo mirror (held matches, the story's notes) beside the day's demo, and later
starts copy it instead of reading and walking the matches again; a file of other code, or one that cannot be
read, is never used."""

from __future__ import annotations

import stat

import pytest

from rankterm.cli import demo_mirror
from rankterm.cli.app import make_demo_client
from rankterm.importing.export import matches_page
from rankterm.mirror import Group
from rankterm.server import seed
from rankterm.stats import changes, kept
from rankterm.stats.kept import held_changes
from tests.support.clock import SettableClock


@pytest.fixture(autouse=True)
def fresh_template(monkeypatch):
    monkeypatch.setattr(seed, "_template", None)  # the day's demo is seeded in this test's cache dir


def _client():
    return make_demo_client(clock=SettableClock())


async def _walked_afresh() -> list:
    client = _client()
    client.display_safe = True
    group = Group(client)
    await group.sync_matches()
    try:
        return held_changes(group)
    finally:
        await client.aclose()


def _no_walk(monkeypatch) -> None:
    def refused(*args, **kwargs):
        raise AssertionError("the held matches were parsed or walked again")

    monkeypatch.setattr(changes.Story, "extend", refused)
    monkeypatch.setattr(changes.Story, "extend_in_parts", refused)
    monkeypatch.setattr(kept, "held_matches", refused)
    monkeypatch.setattr(kept, "held_in_parts", refused)


async def test_the_first_start_keeps_the_mirror_and_the_next_starts_from_it(monkeypatch):
    made = await _in_thread(demo_mirror.demo_group)
    path = demo_mirror.mirror_file(made.client.clock())
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert made.mirror.held.match_numbers() == (300, 300)
    await made.client.aclose()

    expected = await _walked_afresh()
    _no_walk(monkeypatch)
    group = await _in_thread(demo_mirror.demo_group)
    try:
        assert group.mirror.held.match_numbers() == (300, 300)  # before any read of the service
        assert await group.sync_matches() == 0  # the service agrees: nothing read again
        told = held_changes(group)
        assert [e.row() for e in told] == [e.row() for e in expected] and len(told) > 100
    finally:
        await group.client.aclose()


async def test_a_mirror_kept_by_other_code_is_not_read_and_is_replaced(monkeypatch):
    first = await _in_thread(demo_mirror.demo_group)
    old = demo_mirror.mirror_file(first.client.clock())
    await first.client.aclose()
    monkeypatch.setattr(demo_mirror, "_readers_digest", lambda: "0123456789abcdef")
    new = demo_mirror.mirror_file(SettableClock()())
    assert new != old
    restored = []
    real = demo_mirror._restore
    monkeypatch.setattr(
        demo_mirror, "_restore", lambda group, path: restored.append(path) or real(group, path)
    )
    group = await _in_thread(demo_mirror.demo_group)
    await group.client.aclose()
    assert restored == [new] and new.exists() and not old.exists()


async def test_the_name_follows_the_day_and_the_demo():
    now = SettableClock()()
    assert demo_mirror.mirror_file(now) != demo_mirror.mirror_file(now + 86_400)
    assert seed.demo_stem(seed.build_day(now)) in demo_mirror.mirror_file(now).name


async def test_a_demo_seeded_again_never_starts_from_the_mirror_of_the_seeding_before(monkeypatch):
    first = await _in_thread(demo_mirror.demo_group)
    old_ids = _player_ids(first.mirror.held.matches())
    await first.client.aclose()
    now = SettableClock()()
    old = demo_mirror.mirror_file(now)
    seed.demo_path(seed.demo_stem(seed.build_day(now))).unlink()  # the cached demo gone: seeded afresh
    monkeypatch.setattr(seed, "_template", None)

    group = await _in_thread(demo_mirror.demo_group)
    try:
        held = group.mirror.held.matches()
        served = [
            m.model_dump(mode="json", by_alias=True) for m in (await matches_page(group.client, 1)).data
        ]
        assert len(held) == 300 and not _player_ids(held) & old_ids  # every player's id is drawn afresh
        assert _player_ids(served) <= _player_ids(held)
        assert demo_mirror.mirror_file(now) != old
    finally:
        await group.client.aclose()


def _player_ids(matches: list) -> set[str]:
    return {p["id"] for m in matches for f in m["factions"] for p in f["players"]}


async def test_a_kept_mirror_that_cannot_be_read_only_slows_the_start():
    path = demo_mirror.mirror_file(SettableClock()())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    group = await _in_thread(demo_mirror.demo_group)
    try:
        assert group.mirror.held.match_numbers() == (0, 0)
        assert await group.sync_matches() == 300  # read from the service, as without a kept mirror
        assert held_changes(group) == await _walked_afresh()
    finally:
        await group.client.aclose()


async def _in_thread(make):
    """`make(_client)` in a thread, as the app calls its demo factory (no event loop there)."""
    import asyncio

    return await asyncio.to_thread(make, _client)
