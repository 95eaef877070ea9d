"""The dry run of an import: every play of one file or several judged, mapped and ranked, and what would be
sent.

    plan = await plan_import(client, [open_source(a), open_source(b)], map_file=load_map(m), outbox=outbox)
    plan.to_record, plan.players, plan.games, plan.skipped, plan.preview   # the dry-run table
    for match in plan.matches(): ...                                        # oldest first (send.py)

Plays are sent oldest first whatever order the files come in; the first rule that applies says why a play is
skipped. Memory stays flat: what will be sent waits in a temporary SQLite file, deleted on `close()`. The rules
in order: docs/importing.md ("The dry run, play by play").
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rankterm.importing.detect import Source
from rankterm.importing.mapping import (
    GameChoice,
    GameMapping,
    MapFile,
    PlayerChoice,
    PlayerMapping,
    Unresolved,
)
from rankterm.importing.plays import SourcePlay, machine_zone_name, unreadable_date
from rankterm.importing.ranks import Side, sides
from rankterm.wire.errors import RanktermError
from rankterm.wire.fields import DATE_FORMAT, wire_date
from rankterm.wire.ids import new_local_id
from rankterm.wire.models import NewMatch
from rankterm.wire.new_match import FUTURE_LEEWAY, MAX_NAME, Problem, future_date_problem, read_match

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.outbox.outbox import Outbox

PREVIEW = 20
LISTED_SKIPS = 200
PUBLIC_BACKDATE_DAYS = 31
PUBLIC_HOST = "rankade.com"
DATE_EXAMPLES = 3

TWICE = "twice in the file"
SOURCE = "left out by the source"
BAD_DATE = "date cannot be read"
TOO_OLD = "older than the public service takes"
FUTURE = "dated in the future"
NO_ORDER = "no finishing order"
NO_GAME = "game"
NO_PLAYER = "player"


def is_public(base_url: str) -> bool:
    """Whether `base_url` is the public service (its rules on imported plays apply: FORMATS.md)."""
    host = (urlsplit(base_url).hostname or "").lower()
    return host == PUBLIC_HOST or host.endswith("." + PUBLIC_HOST)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A play left out, and why (a row of the dry run's skipped table)."""

    where: str
    external_id: str
    kind: str
    """The reason's kind, for the counts: one of the constants above, or an M-code."""
    reason: str


@dataclass(frozen=True, slots=True)
class Planned:
    """A match to record (a row of the dry run's preview)."""

    external_id: str
    where: str
    date: str
    game: str
    result: str
    """``1. Ada · 2. Bob, Carla (Blue) · 3. Bot``"""


@dataclass
class FileRead:
    """One file of the import and how many plays were read from it."""

    source: Source
    plays_read: int = 0


@dataclass
class Plan:
    """What an import would do; `matches()` gives what is to be sent, oldest first. Close it when done."""

    sources: list[Source]
    public: bool
    files: list[FileRead] = field(default_factory=list)
    plays_read: int = 0
    to_record: int = 0
    already: int = 0
    """Plays the group has already (or the outbox holds): not sent again."""
    queued: int = 0
    """Of `already`, those the outbox holds (it sends them)."""
    overlap: int = 0
    """Plays an earlier file of this import holds too (the same external id): counted once."""
    zone: str | None = None
    """The zone local times (BG Stats) were read in, when a file has them: a zoneinfo name, or this
    machine's zone as it can be told."""
    bad_dates: list[str] = field(default_factory=list)
    """The first few dates that could not be read, as written (for the summary)."""
    skip_counts: Counter[str] = field(default_factory=Counter)
    skipped: list[Skipped] = field(default_factory=list)
    players: list[PlayerChoice] = field(default_factory=list)
    games: list[GameChoice] = field(default_factory=list)
    preview: list[Planned] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Sentences about the target (the public service's rules) to show with the table."""
    seconds: float = 0.0
    _db: sqlite3.Connection | None = None

    @property
    def source(self) -> Source:
        """The first file of the import."""
        return self.sources[0]

    @property
    def skipped_count(self) -> int:
        return sum(self.skip_counts.values())

    @property
    def records_nothing(self) -> bool:
        """Whether nothing can come of the import because of its files: no play to record, none recorded
        or queued before (every play read was skipped, or there were none)."""
        return self.to_record == 0 and self.already == 0

    @property
    def new_players(self) -> list[PlayerChoice]:
        return [p for p in self.players if p.new]

    @property
    def new_games(self) -> list[GameChoice]:
        return [g for g in self.games if g.new]

    def matches(self) -> Iterator[NewMatch]:
        """The matches to send, oldest first (plays of one date in the source's order); new players and games
        stand in as `PlayerChoice.player_id` (a local id) and `GameChoice.game_id` (negative)."""
        if self._db is None:
            return
        cursor = self._db.execute(f"SELECT body FROM planned ORDER BY {_PLAYED_ORDER}")
        while rows := cursor.fetchmany(500):
            for (body,) in rows:
                yield NewMatch.model_validate(json.loads(body))

    def holds(self, external_id: str) -> bool:
        """Whether `external_id` is one of the plays of the import's files."""
        if self._db is None:
            return False
        row = self._db.execute("SELECT 1 FROM seen WHERE external_id = ?", (external_id,)).fetchone()
        return row is not None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Plan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SCHEMA = """
CREATE TABLE planned (
    external_id TEXT PRIMARY KEY, date TEXT NOT NULL, ord INTEGER NOT NULL, place TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX planned_order ON planned (date, ord, external_id);
CREATE TABLE seen (external_id TEXT PRIMARY KEY, file INTEGER NOT NULL, place TEXT NOT NULL);
CREATE TABLE known (external_id TEXT PRIMARY KEY);
"""
_PLAYED_ORDER = "date, ord, external_id"
"""The order matches are sent in: by date, then the source's own order, then the external id (whatever
order the files came in)."""


class _Planner:
    def __init__(
        self,
        group: Group,
        plan: Plan,
        players: PlayerMapping,
        games: GameMapping,
        map_file: MapFile,
        outbox: Outbox | None,
        now: datetime,
        oldest: str | None,
    ) -> None:
        self.group, self.plan, self.players, self.games = group, plan, players, games
        self.map_file, self.outbox, self.now, self.oldest = map_file, outbox, now, oldest
        self.latest = (now + FUTURE_LEEWAY).strftime(DATE_FORMAT)
        """Dates (whole seconds, as the sources give them) after this one are ahead of now by more than the
        leeway: compared as text, the rule itself asked only for those."""
        assert plan._db is not None
        self.db = plan._db

    def _ahead(self, date: str) -> Problem | None:
        """M010 for a play dated more than the leeway ahead of now (`new_match.future_date_problem`)."""
        if date <= self.latest:
            return None
        return future_date_problem(wire_date(date), self.now)

    def skip(self, play: SourcePlay, kind: str, reason: str) -> None:
        self.plan.skip_counts[kind] += 1
        if len(self.plan.skipped) < LISTED_SKIPS:
            self.plan.skipped.append(Skipped(play.where, play.external_id, kind, reason))

    async def take(self, play: SourcePlay, file: int = 0) -> None:
        ext = play.external_id
        first = self.db.execute("SELECT file, place FROM seen WHERE external_id = ?", (ext,)).fetchone()
        if first is not None and first[0] == file:
            self.skip(play, TWICE, f"the same play as {first[1]} (external id {ext})")
            return
        if first is not None:
            self.plan.overlap += 1  # an earlier file holds it: that one counts
            return
        self.db.execute(
            "INSERT INTO seen (external_id, file, place) VALUES (?, ?, ?)", (ext, file, play.where)
        )
        if play.skip:
            if play.bad_date and play.skip == unreadable_date(play.bad_date):
                if play.bad_date not in self.plan.bad_dates and len(self.plan.bad_dates) < DATE_EXAMPLES:
                    self.plan.bad_dates.append(play.bad_date)
                self.skip(play, BAD_DATE, play.skip)
            else:
                self.skip(play, SOURCE, play.skip)
            return
        if play.date is None:
            self.skip(play, SOURCE, "it has no date")
            return
        if self.db.execute("SELECT 1 FROM known WHERE external_id = ?", (ext,)).fetchone():
            self.plan.already += 1  # counted, not listed: a second import of a big file lists nothing
            return
        if self.outbox is not None and self.outbox.get(ext) is not None:
            self.plan.already += 1
            self.plan.queued += 1
            return
        ahead = self._ahead(play.date)
        if ahead is not None:
            self.skip(play, FUTURE, ahead.sentence.rstrip("."))
            return
        if self.oldest is not None and play.date < self.oldest:
            self.skip(
                play,
                TOO_OLD,
                f"played {play.date[:10]}: the public service takes matches of the last "
                f"{PUBLIC_BACKDATE_DAYS} days only (longer for paid groups)",
            )
            return
        play = replace(play, game=self.map_file.game(play.game))
        ranked, why = sides(play)
        if why:
            self.skip(play, NO_ORDER, why)
            return
        try:
            game = await self.games.resolve(play.game)
        except Unresolved as exc:
            self.skip(play, NO_GAME, str(exc))
            return
        try:
            chosen = [[self.players.resolve(play.seats[i]) for i in side.seats] for side in ranked]
        except Unresolved as exc:
            self.skip(play, NO_PLAYER, str(exc))
            return
        merged = _anonymous_merged(play, ranked, chosen)
        if merged:
            self.skip(play, NO_PLAYER, merged)
            return
        body = _wire(play, game, ranked, chosen)
        _match, problems = read_match(body, self.now)
        if problems:
            problem = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.skip(play, problem.code, problem.sentence.rstrip(".") + more)
            return
        self.db.execute(
            "INSERT INTO planned (external_id, date, ord, place, body) VALUES (?, ?, ?, ?, ?)",
            (ext, play.date, play.order, play.where, json.dumps(body)),
        )
        self.plan.to_record += 1
        game.plays += 1
        for choice in {id(c): c for side in chosen for c in side}.values():
            choice.plays += 1

    def finish(self) -> None:
        plan = self.plan
        people = {id(c): c for c in self.players.chosen.values() if c.plays}
        plan.players = sorted(people.values(), key=lambda c: (not c.new, c.source.casefold()))
        games = [c for c in self.games.chosen.values() if isinstance(c, GameChoice) and c.plays]
        plan.games = sorted(games, key=lambda c: (not c.new, c.source.casefold()))
        rows = self.db.execute(
            f"SELECT place, body FROM planned ORDER BY {_PLAYED_ORDER} LIMIT ?", (PREVIEW,)
        )
        names = {c.player_id: c.name for c in people.values()}
        titles = {c.game_id: c.name for c in games}
        for place, body in rows.fetchall():
            match = json.loads(body)
            title = titles.get(match["game"], "")
            plan.preview.append(Planned(match["id"], place, match["date"], title, _result(match, names)))


def _anonymous_merged(play: SourcePlay, ranked: list[Side], chosen: list[list[PlayerChoice]]) -> str:
    """Why a play cannot be sent when the map file gives two of its anonymous seats one player; else ""."""
    seats: Counter[str] = Counter()
    for side, people in zip(ranked, chosen, strict=True):
        for i, choice in zip(side.seats, people, strict=True):
            if play.seats[i].anonymous:
                seats[choice.player_id] += 1
    for player_id, count in seats.items():
        if count > 1:
            name = next(c.name for people in chosen for c in people if c.player_id == player_id)
            return (
                f"{count} anonymous seats, and the map file makes them one player ({name}): a player sits once "
                "in a match; name the seats in the source to import it"
            )
    return ""


def _wire(
    play: SourcePlay, game: GameChoice, ranked: list[Side], chosen: list[list[PlayerChoice]]
) -> dict[str, Any]:
    factions = []
    for side, people in zip(ranked, chosen, strict=True):
        faction: dict[str, Any] = {"rank": side.rank, "points": side.points, "name": side.name[:MAX_NAME]}
        if side.bot:
            faction["bot"] = True
        else:
            faction["players"] = [p.player_id for p in people]
        factions.append(faction)
    return {
        "game": game.game_id,
        "weight": play.weight,
        "name": "",
        "notes": play.notes,
        "factions": factions,
        "id": play.external_id,
        "date": play.date,
    }


def _result(match: dict[str, Any], names: dict[str, str]) -> str:
    parts = []
    for faction in sorted(match["factions"], key=lambda f: f["rank"]):
        who = "Bot" if faction.get("bot") else ", ".join(names.get(p, p) for p in faction.get("players", []))
        label = f"{faction['rank']}. {who}"
        if faction.get("name"):
            label += f" ({faction['name']})"
        parts.append(label)
    return " · ".join(parts)


async def plan_import(
    group: Group,
    source: Source | Sequence[Source],
    *,
    map_file: MapFile | None = None,
    outbox: Outbox | None = None,
    public: bool | None = None,
    now: float | None = None,
    zone: tzinfo | None = None,
    progress: Callable[[int], None] | None = None,
) -> Plan:
    """The dry run of importing `source` (one file, or several read together) into the client's group (see
    the module docstring); nothing is written to the service. `public` (default: by the service's address)
    applies the public service's rules; `now` (default: the client's clock) is what a date in the future is
    judged against; `zone` is that of BG Stats' local times (default: this machine's);
    `progress(plays_read)` is called every 100 plays."""
    started = time.perf_counter()
    sources = [source] if isinstance(source, Source) else list(source)
    if not sources:
        raise ValueError("no file to import")
    public = is_public(group.client.base_url) if public is None else public
    map_file = map_file or MapFile()
    db = sqlite3.connect("", isolation_level=None)  # a private temporary file, gone when closed
    db.executescript(_SCHEMA)
    plan = Plan(sources=sources, public=public, files=[FileRead(s) for s in sources], _db=db)
    if any(s.local_times for s in sources):
        plan.zone = _zone_label(zone)
        plan.notes.append(
            f"BG Stats times are local times with no zone: read in {plan.zone}"
            + (", this machine's zone" if zone is None else "")
            + " (rankterm import --tz ZONE reads them in another)."
        )
    elif zone is not None:
        plan.notes.append(
            f"The zone given ({_zone_label(zone)}) changes nothing: no file here has local times (BoardGameGeek "
            "days, CSV dates and rankterm exports are UTC)."
        )
    try:
        group_players = await group.players(refresh=True)
        group_games = await group.games(refresh=True)
        await _load_known(group, db)
        when = datetime.fromtimestamp(now if now is not None else group.client.clock(), UTC)
        oldest = None
        if public:
            oldest = (when - timedelta(days=PUBLIC_BACKDATE_DAYS)).strftime(DATE_FORMAT)
            plan.notes += [
                f"The public service: matches older than {PUBLIC_BACKDATE_DAYS} days are left out (paid groups "
                "can backdate further), matches go oldest first, and every match, game and request counts "
                "against the quota; the number of ghosts a group may have is limited.",
            ]
        planner = _Planner(
            group,
            plan,
            PlayerMapping(group_players, map_file, new_local_id),
            GameMapping(group.client, group_games),
            map_file,
            outbox,
            when,
            oldest,
        )
        several = len(sources) > 1
        db.execute("BEGIN")
        for index, read in enumerate(plan.files):
            for play in read.source.plays(zone):
                if several:  # where in which file
                    play = replace(play, where=f"{read.source.path.name} {play.where}")
                plan.plays_read += 1
                read.plays_read += 1
                await planner.take(play, index)
                if plan.plays_read % 100 == 0:
                    if progress is not None:
                        progress(plan.plays_read)
                    await asyncio.sleep(0)  # an app stays responsive while a big file is read
        db.execute("COMMIT")
        planner.finish()
        if plan.to_record:
            await _quota_note(group, plan)
    except BaseException:
        plan.close()
        raise
    plan.seconds = time.perf_counter() - started
    return plan


def _zone_label(zone: tzinfo | None) -> str:
    if zone is None:
        return machine_zone_name()
    return str(getattr(zone, "key", None) or zone)


async def _quota_note(group: Group, plan: Plan) -> None:
    """A sentence on the quota (one request): a big import is sent as the quota allows, the rest waits."""
    try:
        usage = (await group.client.quota()).usage()
    except RanktermError:
        return
    shown = ", ".join(
        f"{label} {usage[key]:g}%"
        for key, label in (("matchesPerHour", "matches this hour"), ("matchesPerDay", "today"))
        if usage.get(key) is not None
    )
    plan.notes.append(
        f"Quota used: {shown or 'unknown'}; every match counts, and what does not fit waits in the outbox "
        "and goes out as the hours turn."
    )


async def _load_known(group: Group, db: sqlite3.Connection) -> None:
    """The external ids of the group's matches, from the mirror brought up to date (one request when
    nothing is new), into the `known` table."""
    await group.sync_matches()
    offset, step = 0, 1000
    while True:
        matches = group.cached_matches(offset=offset, limit=step)
        if not matches:
            return
        db.executemany(
            "INSERT OR IGNORE INTO known (external_id) VALUES (?)",
            [(m.external_id,) for m in matches if m.external_id],
        )
        offset += step
