"""What a walk of the held history learned, kept in the group's memo and its mirror's notes: the kept story
and seasons tell what a fresh walk over the held matches tells, after matches appended, after a match played
before others (the later ones renumbered), and in a new process reading the same mirror file; and a second
ask walks nothing."""

from __future__ import annotations

import random
from datetime import datetime
from pathlib import Path

import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror
from rankterm.stats import kept, seasons
from rankterm.stats.changes import changes
from rankterm.stats.seasons import period_of, roll_of_honour, season_standings
from rankterm.wire.localtime import UTC_ZONE, seat_zone
from rankterm.wire.models import Faction, Game, Match, Player

BASE = "http://kept.rankterm/"
PEOPLE = [Player(id=f"p{i}", display_name=f"Player {i}") for i in range(8)]
GAMES = [Game(id=g, name=f"Game {g}") for g in (1, 2, 3)]


def history(count: int, seed: int = 1) -> list[Match]:
    """`count` matches over about two years, numbered and dated in played order."""
    rng = random.Random(seed)
    out = []
    for number in range(1, count + 1):
        sides = rng.randint(2, 4)
        chosen = rng.sample(PEOPLE, sides)
        day = datetime(2025, 1, 1) + (datetime(2026, 12, 1) - datetime(2025, 1, 1)) * number / (count + 1)
        out.append(
            Match(
                id=f"m{number}-{seed}",
                number=number,
                date=f"{day:%Y-%m-%d %H:%M:%S}",
                weight="normal",
                game=rng.choice(GAMES),
                factions=[Faction(rank=i + 1, players=[p]) for i, p in enumerate(chosen)],
            )
        )
    return out


def rows(matches: list[Match]) -> list[tuple[int, str | None, str]]:
    from rankterm.mirror.file import dumps

    return [(m.number, None if m.game is None else str(m.game.id), dumps(m.to_wire())) for m in matches]


def group_on(path: Path | None) -> Group:
    return Group(RankingClient(BASE, key="k", secret="s"), Mirror(path, "scope"))


def backdated(matches: list[Match], at: int, seed: int) -> list[Match]:
    """`matches` with one more played just before match `at` (it takes that number; the later ones move up)."""
    late = history(1, seed)[0]
    before = matches[at - 2] if at > 1 else matches[0]
    late = late.model_copy(update={"number": at, "date": before.date})
    moved = [m if m.number < at else m.model_copy(update={"number": m.number + 1}) for m in matches]
    return sorted([*moved, late], key=lambda m: m.number)


def test_the_kept_story_is_a_fresh_walk_after_appends_and_a_backdated_match(tmp_path: Path) -> None:
    matches = history(2600)
    group = group_on(tmp_path / "mirror.db")
    group.mirror.held.put_matches(rows(matches[:2500]), dumped=True)
    assert kept.held_changes(group) == changes(matches[:2500])
    assert kept.kept_story(group).stepped == 2500

    group.mirror.held.put_matches(rows(matches[2500:]), dumped=True)  # a sync appends 100
    assert kept.held_changes(group) == changes(matches)
    assert kept.kept_story(group).stepped == 100
    story = kept.kept_story(group)
    assert kept.held_changes(group) == changes(matches) and story.stepped == 100  # nothing new: not walked

    moved = backdated(matches, 2400, seed=7)
    group.mirror.held.rewrite_matches_from(2400, rows(moved[2399:]))
    assert kept.held_changes(group) == changes(moved)
    # walked again from the checkpoint at 2000, not from the start
    assert kept.kept_story(group).stepped == len(moved) - 2000


def test_a_new_process_reads_the_story_the_mirror_keeps(tmp_path: Path) -> None:
    matches = history(1200, seed=2)
    first = group_on(tmp_path / "mirror.db")
    first.mirror.held.put_matches(rows(matches[:1100]), dumped=True)
    expected = kept.held_changes(first)
    first.mirror.close()

    again = group_on(tmp_path / "mirror.db")  # another process: an empty memo, the same file
    since = matches[1000].date
    assert kept.held_changes(again, since) == [e for e in expected if e.date >= since]
    assert again.memo.get("stats.kept-story") is None  # read from the note: no walk restored
    assert kept.held_changes(again) == expected
    assert kept.kept_story(again).stepped == 0
    again.mirror.held.put_matches(rows(matches[1100:]), dumped=True)
    assert kept.held_changes(again) == changes(matches)
    assert kept.kept_story(again).stepped == 100
    again.mirror.close()

    moved = backdated(matches, 50, seed=9)
    third = group_on(tmp_path / "mirror.db")
    third.mirror.held.rewrite_matches_from(50, rows(moved[49:]))
    assert kept.held_changes(third) == changes(moved)  # the note's history is another: from the start
    assert kept.kept_story(third).stepped == len(moved)


def test_match_changes_are_the_events_of_that_match_where_it_was_played() -> None:
    matches = history(400, seed=3)
    group = group_on(None)
    group.mirror.held.put_matches(rows(matches), dumped=True)
    events = changes(matches)
    numbers = {e.number for e in events}
    for number in (min(numbers), max(numbers), 150):
        assert kept.match_changes(group, number) == [e for e in events if e.number == number]
    quiet = next(n for n in range(1, 401) if n not in numbers)
    assert kept.match_changes(group, quiet) == []
    moved = backdated(matches, 120, seed=11)
    group.mirror.held.rewrite_matches_from(120, rows(moved[119:]))
    assert kept.match_changes(group, 120) == [e for e in changes(moved) if e.number == 120]


@pytest.mark.parametrize("zone_name", ["UTC", "Pacific/Auckland"])
def test_kept_seasons_are_season_standings_and_only_a_changed_period_is_worked_out_again(
    tmp_path: Path, zone_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    zone = seat_zone(zone_name)
    matches = history(900, seed=4)
    group = group_on(tmp_path / "mirror.db")
    group.mirror.held.put_matches(rows(matches), dumped=True)
    now = datetime(2027, 1, 15)
    fresh = roll_of_honour(matches, "quarter", zone, now)
    assert kept.kept_roll(group, "quarter", zone, now) == fresh
    assert kept.kept_season(group, period_of("2025-Q3"), zone) == season_standings(
        matches, period_of("2025-Q3"), zone
    )

    late = backdated(matches, 300, seed=13)
    expected = roll_of_honour(late, "quarter", zone, now)  # before the spy: it works out every period
    worked: list[str] = []
    real = seasons.season_of_parts

    def counted(parts, period, zone):  # type: ignore[no-untyped-def]
        worked.append(period.name)
        return real(parts, period, zone)

    monkeypatch.setattr(seasons, "season_of_parts", counted)  # kept imports it at its first period
    again = group_on(tmp_path / "mirror.db")  # a new process: the seasons come from the notes
    assert kept.kept_roll(again, "quarter", zone, now) == fresh and worked == []

    again.mirror.held.rewrite_matches_from(300, rows(late[299:]))
    assert kept.kept_roll(again, "quarter", zone, now) == expected
    placed = next(p for p in fresh if p.period.holds(late[299], zone)).period.name
    assert worked == [placed]  # the later matches were renumbered, their periods' matches are the same


def test_a_kept_season_with_no_match_is_empty() -> None:
    group = group_on(None)
    season = kept.kept_season(group, period_of("2020"), UTC_ZONE)
    assert (season.matches, season.rows) == (0, ())
