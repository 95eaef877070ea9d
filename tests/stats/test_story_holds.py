"""A walk of every held match (the story Home tells tonight from, on a profile's first start) parses them for the
walk only: the parsed history (some 10 kB a match, 3 MB for the demo's 300) is not kept for the rest of the
session by it (benchmarks/bench_memory.py, the app on a remote service)."""

from __future__ import annotations

from rankterm.stats import kept
from rankterm.stats.changes import changes
from rankterm.stats.source import held_matches
from tests.stats.test_kept import group_on, history, rows


def test_the_story_of_every_held_match_leaves_no_parsed_history_held() -> None:
    matches = history(300, seed=5)
    group = group_on(None)
    group.mirror.held.put_matches(rows(matches), dumped=True)
    since = matches[-10].date
    assert kept.held_changes(group, since) == [e for e in changes(matches) if e.date >= since]
    assert kept.kept_story(group).stepped == 300
    assert group.memo.get("stats.parsed") is None
    assert held_matches(group) == matches  # a screen that asks for them still has them, parsed then
    assert group.memo.get("stats.parsed") is not None
