"""The seeded demo is kept in the cache dir between runs, named by the day it was built and the code."""

from datetime import date

import pytest

from rankterm.server import seed
from tests.support.clock import T0, SettableClock

DAY = seed.build_day(T0)
NEXT_DAY = SettableClock(T0 + 86_400)


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(seed, "_template", None)
    return tmp_path


def _summary(store):
    group = store.groups()[0][0]
    newest = store.matches_page(group, None, 1).data[0]
    names = [p.display_name for p in store.players_page(group, 1).data]
    return store.match_status(group).total, names, newest.date, newest.registration_date


def test_first_run_writes_the_cache_and_the_next_reads_it(fresh, monkeypatch):
    first = seed.demo_store(clock=SettableClock())
    files = list(fresh.glob("demo-*.db"))
    assert [f.name[:15] for f in files] == [f"demo-{DAY.isoformat()}"]
    monkeypatch.setattr(seed, "_template", None)
    calls = []
    monkeypatch.setattr(seed, "seed_demo", lambda store, **kw: calls.append(1))
    second = seed.demo_store(clock=SettableClock())
    assert calls == []  # read from disk, not seeded again
    assert _summary(second) == _summary(first) and _summary(first)[0] == 300


def test_the_next_day_seeds_its_own_demo_and_drops_the_old_file(fresh):
    today = seed.demo_store(clock=SettableClock())
    tomorrow = seed.demo_store(clock=NEXT_DAY)
    assert _summary(today)[2][:10] == "2026-05-27" and _summary(tomorrow)[2][:10] == "2026-05-28"
    assert [f.name[:15] for f in fresh.glob("demo-*.db")] == ["demo-2026-05-29"]


def test_a_corrupt_cache_is_seeded_afresh(fresh, monkeypatch):
    seed._template_file(DAY).parent.mkdir(parents=True, exist_ok=True)
    seed._template_file(DAY).write_bytes(b"this is not a database")
    store = seed.demo_store(clock=SettableClock())
    assert _summary(store)[0] == 300


def test_the_name_follows_the_code_and_the_day(fresh, monkeypatch):
    before = seed._template_file(DAY)
    assert seed._template_file(date(2026, 5, 29)) != before
    monkeypatch.setattr(seed.rankterm, "__version__", "99.0")
    assert seed._template_file(DAY) != before
