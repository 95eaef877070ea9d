"""The app's walks of the whole held history parse it a part at a time and never hold it whole (a parsed match
takes about 16 KB: 1.6 GB at 100,000): the story, the odds' model, a period's standings and the last evening
each tell what a walk of every parsed match tells, while no parse is bigger than a part (or than what they
need) and the whole parsed history is never kept."""

from __future__ import annotations

import pytest

from rankterm.stats import kept, source
from rankterm.stats.changes import changes
from rankterm.stats.held_model import held_model
from rankterm.stats.model import TableModel
from rankterm.stats.seasons import period_matches, period_of, season_standings
from rankterm.stats.teams import EVENING_HOURS, last_evening_pairings
from rankterm.tui.periods import period_standings
from rankterm.wire.localtime import UTC_ZONE

from .test_kept import PEOPLE, group_on, history, rows

PART = 7


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every parse of held matches by number, with parts of `PART`."""
    sizes: list[int] = []
    real = source.matches_numbered

    def counted(group, numbers):
        out = real(group, numbers)
        sizes.append(len(out))
        return out

    monkeypatch.setattr(source, "HELD_PART", PART)
    monkeypatch.setattr(source, "matches_numbered", counted)
    monkeypatch.setattr(kept, "matches_numbered", counted)
    return sizes


def test_the_story_and_the_odds_model_walk_the_history_a_part_at_a_time(parses: list[int]) -> None:
    matches = history(60)
    group = group_on(None)
    group.mirror.held.put_matches(rows(matches), dumped=True)

    assert kept.held_changes(group) == changes(matches)
    whole = TableModel()
    whole.follow(matches)
    model = held_model(group)
    assert [model.ree(str(p.id)) for p in PEOPLE] == [whole.ree(str(p.id)) for p in PEOPLE]
    assert parses and max(parses) <= PART and sum(parses) == 2 * len(matches)
    assert group.memo.get("stats.parsed") is None


async def test_a_period_and_the_last_evening_parse_only_their_own_matches(parses: list[int]) -> None:
    matches = history(60)
    group = group_on(None)
    group.mirror.held.put_matches(rows(matches), dumped=True)
    period = period_of(matches[30].date[:7])  # its month
    inside = period_matches(matches, period, UTC_ZONE)
    assert 0 < len(inside) < 10

    assert kept.held_in_period(group, period, UTC_ZONE) == inside
    standings = await period_standings(group, period, UTC_ZONE, None)
    assert standings == season_standings(matches, period, UTC_ZONE)
    evening = source.held_last_hours(group, EVENING_HOURS)
    assert last_evening_pairings(evening) == last_evening_pairings(matches)
    assert evening and evening[-1] == matches[-1] and len(evening) < 5
    assert max(parses) < 12  # a period's window (a day wider each side), or an evening: never the history
    assert group.memo.get("stats.parsed") is None


def test_a_season_longer_than_a_part_is_worked_out_a_part_at_a_time(parses: list[int]) -> None:
    matches = history(60)
    group = group_on(None)
    group.mirror.held.put_matches(rows(matches), dumped=True)
    year = period_of("2025")
    assert len(period_matches(matches, year, UTC_ZONE)) > 3 * PART

    assert kept.kept_season(group, year, UTC_ZONE) == season_standings(matches, year, UTC_ZONE)
    assert parses and max(parses) <= PART
    assert group.memo.get("stats.parsed") is None
