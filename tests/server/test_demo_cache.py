"""The seeded demo is kept in the cache dir between runs, named by the code that made it."""

import pytest

from rankterm.server import seed


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(seed, "_template", None)
    return tmp_path


def _summary(store):
    group = store.groups()[0][0]
    return store.match_status(group).total, [p.display_name for p in store.players_page(group, 1).data]


def test_first_run_writes_the_cache_and_the_next_reads_it(fresh, monkeypatch):
    first = seed.demo_store()
    files = list(fresh.glob("demo-*.db"))
    assert len(files) == 1
    monkeypatch.setattr(seed, "_template", None)
    calls = []
    monkeypatch.setattr(seed, "seed_demo", lambda store, **kw: calls.append(1))
    second = seed.demo_store()
    assert calls == []  # read from disk, not seeded again
    assert _summary(second) == _summary(first) and _summary(first)[0] == 300


def test_a_corrupt_cache_is_seeded_afresh(fresh, monkeypatch):
    seed._template_file().parent.mkdir(parents=True, exist_ok=True)
    seed._template_file().write_bytes(b"this is not a database")
    store = seed.demo_store()
    assert _summary(store)[0] == 300


def test_the_name_follows_the_code(fresh, monkeypatch):
    before = seed._template_file()
    monkeypatch.setattr(seed.rankterm, "__version__", "99.0")
    assert seed._template_file() != before
