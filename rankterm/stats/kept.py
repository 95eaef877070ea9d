"""What a walk of the held history learned, kept where the group keeps things, so that the second ask and a new
match cost little: the story of what changed (`held_changes`, `match_changes`) and each season's standings
(`kept_season`, `kept_roll`).

Each is kept in the group's memo (this process) and in a note of its mirror (every seat and command of the
profile, next time), with what it was made from, checked against the held matches' marks
(`rankterm.mirror.match_marks`: id, number and date of each, read from the stats rows, no match parsed):

- the story (`rankterm.stats.changes.Story`): matches appended are walked on top; a changed history (a match
  played before others renumbered the later ones) is walked again from the last checkpoint before the first
  match that moved (this process keeps a few), else from the start;
- a season's standings, with the ids and dates of the matches of its window: a match placed in another period
  renumbers this one's without changing them, so only a season whose own matches changed is worked out again
  (the one under way, after each match; a past one once).

Nothing here is a record: a note that cannot be read, or that another release's rules made, is worked out
again from the held matches.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from rankterm.mirror import MatchMark, match_marks
from rankterm.stats.changes import Event, Mark, Story
from rankterm.stats.source import held_in_parts, held_matches, kept_out_of_collections, matches_numbered
from rankterm.wire.localtime import SeatZone
from rankterm.wire.models import Match, Player

if TYPE_CHECKING:  # the seasons' module is imported by what reads a period: Home's story needs none
    from rankterm.mirror import Group
    from rankterm.stats.seasons import Period, Season

__all__ = ["held_changes", "held_in_period", "kept_roll", "kept_season", "kept_story", "match_changes"]

STORY_NOTE = "story"
"""The mirror's note that keeps the story: {"key": the held matches' key, "story": `Story.snapshot`}."""
EVENTS_NOTE = "story-events"
"""The mirror's note that keeps the story's events: {"key": the held matches' key, "events": their rows}."""
SEASON_NOTE = "season:"
"""The start of the key of the note that keeps a season: {"marks": its window's fingerprint, "season": ...}."""
NUMBERED_AT_MOST = 20_000
"""Matches parsed by number at most; more are read from the whole parsed history (remembered in the memo)."""


_MAKING = threading.Lock()


def _lock(group: Group) -> threading.RLock:
    """One walk at a time per group (a screen's thread and a form's may ask together)."""
    with _MAKING:
        return group.memo.slot("stats.kept-lock", threading.RLock)


def _matches(group: Group, numbers: Sequence[int]) -> list[Match]:
    """The held matches of these numbers (rising), parsed: by number (for this walk only), or from the whole
    parsed history (held for the session) past `NUMBERED_AT_MOST`, or for all of them once it is held."""
    if not numbers:
        return []
    every = len(numbers) == group.mirror.held.matches_key()[0]
    if len(numbers) > NUMBERED_AT_MOST or (every and group.memo.get("stats.parsed") is not None):
        first, last = numbers[0], numbers[-1]
        return [m for m in held_matches(group) if first <= m.number <= last]
    return matches_numbered(group, numbers)


# ---------------------------------------------------------------------- the story of what changed


def kept_story(group: Group) -> Story:
    """The story of every held match, walked only where the held matches changed since it was kept. In a
    big group it is walked (or restored) with the cyclic collector paused and left frozen
    (`source.kept_out_of_collections`): it lives as long as the process."""
    with _lock(group):
        key = _story_key(group)
        held = group.memo.get("stats.kept-story")
        if held is not None and held[0] == key:
            return held[1]
        with kept_out_of_collections(key[0]):
            return _walk_story(group, key, held)


def _walk_story(group: Group, key: list[Any], held: Any) -> Story:
    walked: list[Mark] = [(m.id, m.number) for m in match_marks(group.mirror)]
    story = held[1] if held is not None else _noted_story(group, key, walked)
    noted = held is None and story is not None
    story = story if story is not None else Story()
    story.rewind(story.agreeing(walked))
    rest = [number for _, number in walked[story.walked :]]
    whole = (
        group.memo.get("stats.parsed") is not None
    )  # a command that parsed the whole history: read from it
    story.extend_in_parts([_matches(group, rest)] if whole else held_in_parts(group, rest), len(walked))
    if story.stepped or not noted:
        group.set_note(STORY_NOTE, {"key": key, "story": story.snapshot()})
        group.set_note(EVENTS_NOTE, {"key": key, "events": story.event_rows()})
    group.memo.put("stats.kept-story", (key, story))
    return story


def _story_key(group: Group) -> list[Any]:
    return [*group.mirror.held.matches_key(), group.display_safe]


def _noted_events(group: Group, key: list[Any], since: str | None = None) -> list[list[Any]] | None:
    """The event rows the mirror's note keeps (those of the matches dated at or after `since`), when they
    were told of the held matches as they are (`key`). The note is megabytes in a big group: SQLite picks
    the rows out of its text, and each is parsed alone (one parse of it all would hold the GIL)."""
    notes = group.mirror.notes
    if notes.field(EVENTS_NOTE, "key") != key:
        return None
    rows = (
        notes.items(EVENTS_NOTE, "events", at=2, at_least=since)
        if since
        else notes.items(EVENTS_NOTE, "events")
    )
    return None if rows is None else [row for row in rows if isinstance(row, list)]


def _noted_story(group: Group, key: list[Any], walked: list[Mark]) -> Story | None:
    """The story the mirror's notes keep, when it walked the first of `walked` (the same history, or the
    same with matches appended). Read in pieces, and kept out of the collector's walks (it lives as long as
    the process): a big group's story is 4 MB of JSON."""
    with kept_out_of_collections(len(walked)):
        return _restored(group, key, walked)


def _restored(group: Group, key: list[Any], walked: list[Mark]) -> Story | None:
    note = group.mirror.notes.get_in_pieces(STORY_NOTE)
    if not isinstance(note, dict) or not isinstance(note.get("key"), list) or len(note["key"]) != 4:
        return None
    count, top, history, safe = note["key"]
    if history != key[2] or safe != key[3] or not isinstance(count, int) or not 0 <= count <= len(walked):
        return None
    if count and walked[count - 1][1] != top:
        return None
    rows = _noted_events(group, note["key"])
    return None if rows is None else Story.restored(note.get("story"), walked[:count], rows)


def held_changes(group: Group, since: str | None = None) -> list[Event]:
    """Every event of the held history (`rankterm.stats.changes`), in the order they happened, or those of the
    matches dated at or after `since` (wire text, "YYYY-MM-DD HH:MM:SS"); no request. When the mirror's note
    tells them of the held matches as they are, no walk is restored: only the events asked for are read."""
    held = group.memo.get("stats.kept-story")
    if held is None:
        rows = _noted_events(group, _story_key(group), since)
        if rows is not None:
            try:
                return [Event.of_row(row) for row in rows if since is None or str(row[2]) >= since]
            except (TypeError, ValueError, IndexError):
                pass
    story = kept_story(group)
    return story.events if since is None else story.events_since(since)


def match_changes(group: Group, number: int) -> list[Event]:
    """What held match `number` changed (its events where it was played, a match played before others
    too); empty when it changed nothing, or is not held."""
    events = kept_story(group).events
    numbers = [e.number for e in events]
    return events[bisect.bisect_left(numbers, number) : bisect.bisect_right(numbers, number)]


# ---------------------------------------------------------------------- seasons


def _window(period: Period, zone: SeatZone) -> tuple[str, str]:
    """The wire dates a day wider than the period on each side: its matches are among those dated within."""
    return zone.to_wire(period.start - timedelta(days=1)), zone.to_wire(period.end + timedelta(days=1))


def held_in_period(group: Group, period: Period, zone: SeatZone) -> list[Match]:
    """The held matches played in `period` by the seat's clock, oldest first: only those of its window are
    parsed, not the whole history."""
    low, high = _window(period, zone)
    window = match_marks(group.mirror, since=low, until=high)
    from rankterm.stats.seasons import period_matches

    return period_matches(matches_numbered(group, [m.number for m in window]), period, zone)


def _within(marks: Sequence[MatchMark], dates: Sequence[str] | None, low: str, high: str) -> list[MatchMark]:
    if dates is None:  # not in played order by date: looked at one by one
        return [m for m in marks if low <= m.date < high]
    return list(marks[bisect.bisect_left(dates, low) : bisect.bisect_left(dates, high)])


def kept_season(
    group: Group, period: Period, zone: SeatZone, marks: Sequence[MatchMark] | None = None
) -> Season:
    """`season_standings` of the held matches for `period`, worked out again only when the matches of its
    window changed. `marks`: every held match's (`match_marks`), when the caller read them already."""
    low, high = _window(period, zone)
    if marks is None:
        window = match_marks(group.mirror, since=low, until=high)
    else:
        dates = [m.date for m in marks]
        ordered = all(a <= b for a, b in itertools.pairwise(dates))
        window = _within(marks, dates if ordered else None, low, high)
    return _season(group, period, zone, window)


def _season(group: Group, period: Period, zone: SeatZone, window: Sequence[MatchMark]) -> Season:
    fingerprint = hashlib.sha256("\n".join(f"{m.id}\t{m.date}" for m in window).encode()).hexdigest()
    name = (
        f"{SEASON_NOTE}{zone.name}|{period.name}|{period.start:%Y-%m-%d %H:%M}|{period.end:%Y-%m-%d %H:%M}"
        f"|{int(group.display_safe)}"
    )
    with _lock(group):
        memo: dict[str, tuple[str, Season]] = group.memo.slot("stats.kept-seasons", dict)
        held = memo.get(name)
        if held is not None and held[0] == fingerprint:
            return held[1]
        note = group.note(name)
        season = None
        if isinstance(note, dict) and note.get("marks") == fingerprint:
            season = _season_of(note.get("season"), period)
        if season is None:
            from rankterm.stats.seasons import season_of_parts

            numbers = [m.number for m in window]
            whole = group.memo.get("stats.parsed") is not None  # as in the story's walk
            parts = [_matches(group, numbers)] if whole else held_in_parts(group, numbers)
            season = season_of_parts(parts, period, zone)
            group.set_note(name, {"marks": fingerprint, "season": _season_document(season)})
        memo[name] = (fingerprint, season)
        return season


def _season_document(season: Season) -> dict[str, Any]:
    rows = [
        [r.position, r.player_id, r.name, r.ree, r.played, None if r.player is None else r.player.to_wire()]
        for r in season.rows
    ]
    return {"matches": season.matches, "rows": rows}


def _season_of(document: Any, period: Period) -> Season | None:
    from rankterm.stats.seasons import Season, SeasonRow

    try:
        rows = tuple(
            SeasonRow(
                int(position),
                str(pid),
                str(name),
                float(ree),
                int(played),
                None if player is None else Player.model_validate(player),
            )
            for position, pid, name, ree, played, player in document["rows"]
        )
        return Season(period, int(document["matches"]), rows)
    except (KeyError, TypeError, ValueError):
        return None


def _periods(marks: Sequence[MatchMark], kind: str, zone: SeatZone) -> list[Period]:
    """Every `kind` period holding one of the matches of `marks`, oldest first (as `seasons.periods_by`, read
    from the marks: each date is placed in a period only when it is not in the last one found)."""
    from rankterm.stats.seasons import containing

    seen: dict[str, Period] = {}
    low = high = ""
    for mark in marks:
        if low <= mark.date < high:
            continue
        when = zone.from_wire(mark.date)
        if when is None:
            continue
        period = containing(when.replace(tzinfo=None), kind)
        seen.setdefault(period.name, period)
        low, high = zone.to_wire(period.start), zone.to_wire(period.end)
    return sorted(seen.values(), key=lambda p: p.start)


def kept_roll(group: Group, kind: str, zone: SeatZone, now: datetime) -> list[Season]:
    """`seasons.roll_of_honour` over the held matches: each past `kind` period's standings at its end (the
    one holding `now`, wall-clock, left out), each worked out once while its matches stay the same."""
    with kept_out_of_collections(group.mirror.held.matches_key()[0]):  # the seasons are kept: see kept_story
        marks = match_marks(group.mirror)
        dates = [m.date for m in marks]
        ordered = all(a <= b for a, b in itertools.pairwise(dates))
        return [
            _season(group, period, zone, _within(marks, dates if ordered else None, *_window(period, zone)))
            for period in _periods(marks, kind, zone)
            if period.end <= now
        ]
