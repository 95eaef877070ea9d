"""What changed: the story of the group's matches, derived from the held history and never stored.

Walking the matches in played order, each match may bring events:

- a new leader: of the all-time standings, of a game's standings (the table's model, `rankterm.stats.model`,
  over every match and over the game's);
- a game's new champion: most wins in the game, then most matches of it; the holder keeps it on a tie;
- a new nemesis: the opponent a player lost to at least 3 times, more often than they beat them, with the
  highest share of losses in their meetings (a tie on that share keeps the one held);
- a streak: a player's third win in a row, and each win that makes it longer;
- a milestone: a player's 10th, 50th, 100th, 250th, 500th, 1000th… match, and win.

A win is a first place (shared or not) in a match of two or more factions; bots are nobody's rivals and
hold no title. Since it is all derived from the history in played order, a match played before others
(arriving late) changes what follows it and the events are worked out again from its place. A `Story` keeps
a walk between reads (in memory; `snapshot` and `restored` as JSON, which `rankterm.stats.kept` keeps beside
the group): what it learned is a cache of the history, never a record of its own.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rankterm.stats.model import RULES, TableModel
from rankterm.wire.models import Match

__all__ = ["MILESTONES", "Event", "Mark", "Story", "changes", "mark_of"]

MILESTONES = (10, 50, 100, 250, 500, 1000, 2500, 5000, 10000)
STREAK = 3
NEMESIS_LOSSES = 3
CHECKPOINT_EVERY = 1000
"""Matches between two copies of a story's walk kept to go back to (a match played before others)."""
CHECKPOINTS_KEPT = 3
"""How many of the latest such copies are kept: a late match lands among the last few thousand."""
WALK_RULES = f"{RULES}; milestones {MILESTONES}; streak {STREAK}; nemesis {NEMESIS_LOSSES}"
"""The rules a kept walk was made under: another release's rules make it worthless."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing a match changed: its kind, the match (number, date), who, and the words that say it."""

    kind: str
    """"leader", "game leader", "champion", "nemesis", "streak", "matches", "wins"."""
    number: int
    date: str
    player_id: str
    player: str
    text: str
    game: str = ""
    other: str = ""
    count: int = 0

    def document(self) -> dict[str, Any]:
        """The JSON of `rankterm stats changes`."""
        return {
            "kind": self.kind,
            "match": self.number,
            "date": self.date,
            "player": {"id": self.player_id, "name": self.player},
            "game": self.game,
            "other": self.other,
            "count": self.count,
            "text": self.text,
        }

    def row(self) -> list[Any]:
        """The event as one JSON list (a kept story's, `of_row` reads it back)."""
        return [
            self.kind,
            self.number,
            self.date,
            self.player_id,
            self.player,
            self.text,
            self.game,
            self.other,
            self.count,
        ]

    @classmethod
    def of_row(cls, row: Any) -> Event:
        """The event a `row` holds."""
        kind, number, date, pid, player, text, game, other, count = row
        return cls(
            str(kind),
            int(number),
            str(date),
            str(pid),
            str(player),
            str(text),
            str(game),
            str(other),
            int(count),
        )


@dataclass
class _Rivalry:
    won: int = 0
    lost: int = 0


@dataclass
class _Walk:
    names: dict[str, str] = field(default_factory=dict)
    model: TableModel = field(default_factory=lambda: TableModel(replayable=False))
    game_models: dict[str, TableModel] = field(default_factory=dict)
    leader: str | None = None
    game_leaders: dict[str, str] = field(default_factory=dict)
    champions: dict[str, str] = field(default_factory=dict)
    game_wins: dict[str, dict[str, list[int]]] = field(default_factory=lambda: defaultdict(dict))
    rivalries: dict[str, dict[str, _Rivalry]] = field(default_factory=lambda: defaultdict(dict))
    """Player -> opponent -> how often the player finished ahead of them and behind them."""
    nemesis: dict[str, str] = field(default_factory=dict)
    streaks: dict[str, int] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)
    wins: dict[str, int] = field(default_factory=dict)

    def snapshot(self) -> dict[str, Any]:
        """Everything the walk learned, as JSON values (`restored` takes it back)."""
        return {
            "rules": WALK_RULES,
            "names": self.names,
            "model": _kept(self.model),
            "game_models": {game: _kept(model) for game, model in self.game_models.items()},
            "leader": self.leader,
            "game_leaders": self.game_leaders,
            "champions": self.champions,
            "game_wins": self.game_wins,
            "rivalries": {
                pid: {rival: [t.won, t.lost] for rival, t in rivals.items()}
                for pid, rivals in self.rivalries.items()
            },
            "nemesis": self.nemesis,
            "streaks": self.streaks,
            "played": self.played,
            "wins": self.wins,
        }

    @classmethod
    def restored(cls, snapshot: Any) -> _Walk | None:
        """The walk a `snapshot` kept; None when it is not one (or was made under other rules)."""
        try:
            if snapshot["rules"] != WALK_RULES:
                return None
            model = TableModel.restored(snapshot["model"], replayable=False)
            games = {
                game: TableModel.restored(kept, replayable=False)
                for game, kept in snapshot["game_models"].items()
            }
            if model is None or any(m is None for m in games.values()):
                return None
            walk = cls(
                names=dict(snapshot["names"]),
                model=model,
                game_models={game: m for game, m in games.items() if m is not None},
                leader=snapshot["leader"],
                game_leaders=dict(snapshot["game_leaders"]),
                champions=dict(snapshot["champions"]),
                nemesis=dict(snapshot["nemesis"]),
                streaks=dict(snapshot["streaks"]),
                played=dict(snapshot["played"]),
                wins=dict(snapshot["wins"]),
            )
            for game, tally in snapshot["game_wins"].items():
                walk.game_wins[game] = {pid: [int(w), int(p)] for pid, (w, p) in tally.items()}
            for pid, rivals in snapshot["rivalries"].items():
                walk.rivalries[pid] = {
                    rival: _Rivalry(int(w), int(lost)) for rival, (w, lost) in rivals.items()
                }
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return walk


def _kept(model: TableModel) -> dict[str, Any]:
    """A walk's model as kept: its skills and counts, not the ids it followed (a walk only adds matches)."""
    return {**model.snapshot(), "followed": []}


def changes(matches: Sequence[Match]) -> list[Event]:
    """Every event of `matches` (the held history, oldest first by played order), in the order they happened."""
    return Story().follow(matches)


Mark = tuple[str, int]
"""A match walked: its id and its number (a match played before others renumbers those after it)."""


def mark_of(match: Match) -> Mark:
    return (str(match.id), match.number)


class Story:
    """The walk through a held history, kept between reads: a history that only grew at its end costs its new
    matches; a match played before others (those after it renumbered) walks again from the last checkpoint
    before it (one every `CHECKPOINT_EVERY` matches among the last few thousand), else from the start."""

    def __init__(self) -> None:
        self._walk = _Walk()
        self._walked: list[Mark] = []
        self._events: list[Event] = []
        self._told: list[list[Any]] = []
        """The rows (`Event.row`) of the events told before `_events`, read back as events when asked:
        a story restored to walk one match more need not make every event it kept."""
        self._checkpoints: list[tuple[int, str, int]] = []
        """(matches walked, the walk then as JSON text, events then), oldest first."""
        self.stepped = 0
        """How many matches the last `follow` or `extend` had to walk (what a change cost)."""

    @property
    def walked(self) -> int:
        """How many matches the story has walked."""
        return len(self._walked)

    @property
    def events(self) -> list[Event]:
        """Every event walked so far, in the order they happened."""
        self._make_told()
        return list(self._events)

    def _make_told(self) -> None:
        if self._told:
            self._events[:0] = [Event.of_row(row) for row in self._told]
            self._told = []

    def events_since(self, date: str) -> list[Event]:
        """The events of the matches dated at or after `date` (wire text: ordered as text)."""
        told = [Event.of_row(row) for row in self._told if row[2] >= date]
        return told + [e for e in self._events if e.date >= date]

    def follow(self, matches: Sequence[Match]) -> list[Event]:
        """Every event of `matches` (see `changes`), walking only what this story has not walked yet."""
        ordered = sorted(matches, key=lambda m: m.number)
        same = self.agreeing([mark_of(m) for m in ordered])
        self.rewind(same)
        self.stepped = 0
        self._walk_on(ordered[len(self._walked) :], len(ordered))
        return self.events

    def agreeing(self, marks: Sequence[Mark]) -> int:
        """How many of the matches walked are the first of `marks` (those of the history now, in played
        order): after them, matches moved or are new."""
        limit = min(len(marks), len(self._walked))
        if marks[:limit] == self._walked[:limit]:
            return limit
        same = 0
        while marks[same] == self._walked[same]:
            same += 1
        return same

    def extend(self, matches: Sequence[Match]) -> list[Event]:
        """The events of `matches`, played after every match walked so far (oldest first); the story walks
        them and keeps their events with the others."""
        before = len(self._events)
        self.stepped = 0
        self._walk_on(matches, len(self._walked) + len(matches))
        return self._events[before:]

    def extend_in_parts(self, parts: Iterable[Sequence[Match]], total: int) -> None:
        """Walk on through matches given a part at a time (each part made only when the walk reaches it, so
        that a long history is never held whole), `total` matches walked when the last part is; `stepped`
        counts them all."""
        self.stepped = 0
        for part in parts:
            self._walk_on(part, total)

    def rewind(self, keep: int) -> None:
        """Go back to a point with at most the first `keep` matches walked: the last checkpoint there, else
        the start."""
        if keep >= len(self._walked):
            return
        self._make_told()
        while self._checkpoints and self._checkpoints[-1][0] > keep:
            self._checkpoints.pop()
        walk = None
        if self._checkpoints:
            at, text, events = self._checkpoints[-1]
            walk = _Walk.restored(json.loads(text))
        if walk is None:
            self._checkpoints.clear()
            at, walk, events = 0, _Walk(), 0
        self._walk = walk
        del self._walked[at:]
        del self._events[events:]

    def _walk_on(self, matches: Sequence[Match], total: int) -> None:
        for match in matches:
            self._events.extend(_step(self._walk, match))
            self._walked.append(mark_of(match))
            self.stepped += 1
            walked = len(self._walked)
            if walked % CHECKPOINT_EVERY == 0 and walked > total - CHECKPOINT_EVERY * CHECKPOINTS_KEPT:
                self._checkpoints.append((walked, json.dumps(self._walk.snapshot()), len(self._events)))
                del self._checkpoints[:-CHECKPOINTS_KEPT]

    def snapshot(self) -> dict[str, Any]:
        """What `restored` needs to go on from here, beside the events (`event_rows`): the walk and how many
        matches it walked (no checkpoint: a history that moves under a restored story is walked again from
        the start)."""
        return {"walk": self._walk.snapshot(), "walked": len(self._walked)}

    def event_rows(self) -> list[list[Any]]:
        """The events walked, as JSON lists (`Event.row`)."""
        return self._told + [e.row() for e in self._events]

    @classmethod
    def restored(cls, snapshot: Any, walked: Sequence[Mark], rows: Sequence[Any]) -> Story | None:
        """The story a `snapshot` kept, which walked the matches `walked` and told the events of `rows`
        (`event_rows`); None when it is not one (or was made under other rules, or over another number of
        matches)."""
        try:
            walk = _Walk.restored(snapshot["walk"])
            if walk is None or int(snapshot["walked"]) != len(walked):
                return None
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        if not all(isinstance(row, list) and len(row) == 9 and isinstance(row[2], str) for row in rows):
            return None
        story = cls()
        story._walk = walk
        story._walked = list(walked)
        story._told = list(rows)
        return story


def _people(match: Match) -> list[tuple[int, list[str]]]:
    """(rank, player ids) of each faction that is not a bot."""
    return [(f.rank, [str(p.id) for p in f.players]) for f in match.factions if not f.bot and f.players]


def _leader(
    model: TableModel, held: str | None, played: Sequence[str], everyone: Sequence[str]
) -> str | None:
    """The leader after a match that `played` were in: only their ree moved, so the held leader stays unless
    one of them passed it, and all are looked at again only when the leader itself played."""

    def key(pid: str) -> tuple[float, str]:
        return (model.ree(pid), pid)

    if held is None or held in played:
        return max((pid for pid in everyone if model.played(pid)), key=key, default=None)
    return max([held, *played], key=key)


def _step(walk: _Walk, match: Match) -> list[Event]:
    out: list[Event] = []
    game = match.game.name if match.game is not None else ""
    game_key = str(match.game.id) if match.game is not None else ""

    def event(kind: str, pid: str, text: str, **extra: Any) -> None:
        out.append(Event(kind, match.number, match.date, pid, walk.names.get(pid, pid), text, **extra))

    people = _people(match)
    for faction in match.factions:
        for player in faction.players:
            if not faction.bot:
                walk.names[str(player.id)] = player.label
    if len(match.factions) < 2 or not people:
        return out
    best = min(f.rank for f in match.factions)
    winners = {pid for rank, ids in people if rank == best for pid in ids}
    everyone = [pid for _, ids in people for pid in ids]

    walk.model.add(match)
    leader = _leader(walk.model, walk.leader, everyone, list(walk.names))
    if leader is not None and leader != walk.leader:
        if walk.leader is not None:
            event("leader", leader, f"New leader: {walk.names[leader]}")
        walk.leader = leader
    if game_key:
        model = walk.game_models.setdefault(game_key, TableModel(replayable=False))
        model.add(match)
        held = walk.game_leaders.get(game_key)
        game_leader = _leader(model, held, everyone, list(walk.names))
        if game_leader is not None and game_leader != held:
            if held is not None:
                event("game leader", game_leader, f"New {game} leader: {walk.names[game_leader]}", game=game)
            walk.game_leaders[game_key] = game_leader
        tally = walk.game_wins[game_key]
        for pid in everyone:
            won, played = tally.get(pid, [0, 0])
            tally[pid] = [won + (pid in winners), played + 1]
        holder = walk.champions.get(game_key)
        top = max(everyone, key=lambda pid: tuple(tally[pid]))  # only they moved: the holder or one of them
        if tally[top][0] and (holder is None or tuple(tally[top]) > tuple(tally[holder])):
            event("champion", top, f"New {game} champion: {walk.names[top]}", game=game)
            walk.champions[game_key] = top

    for rank, ids in people:
        for other_rank, other_ids in people:
            if other_rank == rank or other_ids is ids:
                continue
            for pid in ids:
                for rival in other_ids:
                    tally_of = walk.rivalries[pid].setdefault(rival, _Rivalry())
                    if rank < other_rank:
                        tally_of.won += 1
                    else:
                        tally_of.lost += 1
    for pid in everyone:
        nemesis = _nemesis(walk, pid, [r for r in everyone if r != pid])
        if nemesis is not None and nemesis != walk.nemesis.get(pid):
            walk.nemesis[pid] = nemesis
            event(
                "nemesis",
                pid,
                f"{walk.names[pid]}'s new nemesis: {walk.names[nemesis]}",
                other=walk.names[nemesis],
            )

    for pid in everyone:
        walk.played[pid] = walk.played.get(pid, 0) + 1
        if walk.played[pid] in MILESTONES:
            count = walk.played[pid]
            event("matches", pid, f"{walk.names[pid]}'s {_ordinal(count)} match", count=count)
        if pid in winners:
            walk.wins[pid] = walk.wins.get(pid, 0) + 1
            walk.streaks[pid] = walk.streaks.get(pid, 0) + 1
            if walk.wins[pid] in MILESTONES:
                count = walk.wins[pid]
                event("wins", pid, f"{walk.names[pid]}'s {_ordinal(count)} win", count=count)
            if walk.streaks[pid] >= STREAK:
                count = walk.streaks[pid]
                event("streak", pid, f"{walk.names[pid]}: {count} wins in a row", count=count)
        else:
            walk.streaks[pid] = 0
    return out


def _nemesis(walk: _Walk, pid: str, met: Sequence[str]) -> str | None:
    """The player's nemesis now (see the module docstring); the one held keeps it on an equal share.

    Only the rivalries with those `met` in this match moved: the held nemesis is weighed against them, and
    every rival again only when the held one was met (its share may have fallen)."""
    held = walk.nemesis.get(pid)
    rivals = walk.rivalries[pid]
    looked = rivals if held is None or held in met else {r: rivals[r] for r in (held, *met) if r in rivals}
    best: tuple[float, str] | None = None
    for rival, tally in looked.items():
        if tally.lost < NEMESIS_LOSSES or tally.lost <= tally.won:
            continue
        share = tally.lost / (tally.lost + tally.won)
        if best is None or share > best[0] or (share == best[0] and rival == held):
            best = (share, rival)
    return None if best is None else best[1]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
