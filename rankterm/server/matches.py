"""New matches: judged one by one (M-codes), then recorded with their subsets and ratings in one go.

`judge` reads every item of a batch with the client's own judge (`rankterm.wire.new_match.read_match`) and
adds what only the store can tell (M003, M004, M005); `Recorder` stores the accepted matches in the main
subset and their game's, numbered in the order they were played, and rates them. See
docs/design/server.md for the played order and the match types.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rankterm.server import games, players, rankings
from rankterm.server.db import Conn
from rankterm.server.snapshots import new_history_version
from rankterm.server.wire import Fault
from rankterm.wire.models import NAME_GAME, NAME_VERSUS, Game, NewFaction, NewMatch
from rankterm.wire.new_match import MAX_FACTIONS, MAX_PARTICIPANTS, Problem, read_match

MAX_BATCH = 100
MAIN_SUBSET = "main"

MOST_OBJECTS = MAX_BATCH * (2 + MAX_FACTIONS + MAX_PARTICIPANTS)
"""JSON objects a fit request can hold: per match itself, its game, its factions and its players by object."""


def surely_too_big(body: bytes) -> bool:
    """Whether a request body holds more JSON objects than any fit request can, told from its bytes before
    it is parsed (an upper bound: a brace inside a string counts too), so a body of 100,000 empty factions
    costs a count, not a parse."""
    return body.count(b"{") > MOST_OBJECTS


def batch_items(body: Any) -> list[Any]:
    """The matches of a request body (one object or a list of 1..100); `Fault` M002 otherwise."""
    if isinstance(body, dict):
        return [body]
    if not isinstance(body, list):
        raise Fault("M002", "The body must be a match or a list of matches.")
    if not body:
        raise Fault("M002", "The request holds no match.")
    if len(body) > MAX_BATCH:
        raise Fault("M002", f"A request holds at most {MAX_BATCH} matches, not {len(body)}.")
    return body


@dataclass
class Verdict:
    """One match of a batch as judged: parsed (when it could be), and its problems as (code, message)."""

    index: int
    match: NewMatch | None
    errors: list[tuple[str, str]] = field(default_factory=list)
    game: Game | None = None
    external_id: str = ""
    name: str = ""

    @property
    def accepted(self) -> bool:
        return not self.errors


def by_code(problems: list[Problem]) -> list[tuple[str, str]]:
    """One (code, sentence) per code, in the order the codes first appear; "(and N more)" for the rest."""
    found: dict[str, list[str]] = {}
    for problem in problems:
        found.setdefault(problem.code, []).append(problem.sentence)
    out = []
    for code, sentences in found.items():
        text = sentences[0].rstrip(".") + "."
        if len(sentences) > 1:
            text = text[:-1] + f" (and {len(sentences) - 1} more)."
        out.append((code, text))
    return out


def judge(
    conn: Conn, group_id: int, items: list[Any], seen: set[str] | None = None, now: datetime | None = None
) -> list[Verdict]:
    """Each item of a batch, judged on its own; `seen` collects the external ids accepted so far; `now` is
    the service's clock (a date more than `FUTURE_LEEWAY` after it is M010; None: not judged)."""
    seen = set() if seen is None else seen
    verdicts = []
    for index, item in enumerate(items):
        verdict = _judge_one(conn, group_id, index, item, seen, now)
        if verdict.accepted and verdict.external_id:
            seen.add(verdict.external_id)
        verdicts.append(verdict)
    return verdicts


def _judge_one(
    conn: Conn, group_id: int, index: int, item: Any, seen: set[str], now: datetime | None
) -> Verdict:
    match, problems = read_match(item, now)
    if match is None:
        raw_id = item.get("id") if isinstance(item, dict) else None
        raw_name = item.get("name") if isinstance(item, dict) else None
        return Verdict(
            index,
            None,
            by_code(problems),
            external_id=str(raw_id) if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else "",
            name=raw_name if isinstance(raw_name, str) else "",
        )
    verdict = Verdict(index, match, external_id=match.external_id or "", name=match.name)
    if match.game is not None:
        verdict.game = games.game_by_id(conn, group_id, match.game)
        if verdict.game is None:
            problems.append(
                Problem("game", "M004", f"Game {match.game} is neither in the catalogue nor the group's.")
            )
    ids = [pid for f in match.factions for pid in f.players]
    unknown = sorted(set(ids) - players.known_ids(conn, group_id, ids))
    if unknown:
        shown = ", ".join(unknown[:5]) + (" …" if len(unknown) > 5 else "")
        problems.append(Problem("factions", "M005", f"Not a player of the group: {shown}."))
    ext = verdict.external_id
    if ext and (ext in seen or exists(conn, group_id, ext)):
        problems.append(
            Problem("external_id", "M003", f"A match with the external id {ext!r} was already accepted.")
        )
    verdict.errors = by_code(problems)
    if not problems and verdict.game is not None:
        names = players.load_players(conn, ids)
        verdict.name = match_name(match, verdict.game, [_label(f, names) for f in match.factions])
    return verdict


def exists(conn: Conn, group_id: int, external_id: str) -> bool:
    """Whether the group has an accepted match with this external id."""
    row = conn.execute(
        "SELECT 1 FROM matches WHERE group_id = ? AND external_id = ?", (group_id, external_id)
    ).fetchone()
    return row is not None


def _label(faction: NewFaction, names: dict[str, Any]) -> str:
    if faction.name:
        return faction.name
    if faction.players:
        return ", ".join(names[p].display_name if p in names else p for p in faction.players)
    return "Bot"


def match_name(match: NewMatch, game: Game, labels: list[str]) -> str:
    """The recorded name: the game's for ``default_1`` or no name, "A vs B" for ``default_2``."""
    if match.name == NAME_VERSUS and len(labels) >= 2:
        return f"{labels[0]} vs {labels[1]}"
    if match.name in ("", NAME_GAME, NAME_VERSUS):
        return game.name
    return match.name


def match_type(factions: list[NewFaction]) -> str:
    """The match type by the rule in the module docstring."""
    humans = [f for f in factions if not f.bot]
    if len(humans) < len(factions):
        return "player_vs_bot" if len(humans) == 1 and len(humans[0].players) == 1 else "faction_vs_bot"
    if any(len(f.players) > 1 for f in humans):
        return "faction_vs_faction"
    return "player_vs_player" if len(humans) == 2 else "multiplayer"


def subset_id(conn: Conn, group_id: int, key: str, *, game: Game | None, created: str) -> int:
    """The row id of the group's subset `key`, made (for a game's subset) when missing."""
    row = conn.execute("SELECT id FROM subsets WHERE group_id = ? AND key = ?", (group_id, key)).fetchone()
    if row:
        return row[0]
    kind, name = ("game", game.name) if game is not None else ("main", "Main")
    cur = conn.execute(
        "INSERT INTO subsets (group_id, key, type, name, game_id, creation_date, history_version)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (group_id, key, kind, name, game.id if game else None, created, new_history_version()),
    )
    return int(cur.fetchone()[0])


def game_subset_key(game_id: int) -> str:
    """The id of a game's subset: never all digits, so never read as a page number."""
    return f"g{game_id}"


def played_position(conn: Conn, group_id: int, date: str) -> tuple[int, int]:
    """(the number a match played at `date` takes, the group's latest number now).

    Right after the last match dated at or before `date` (1 when every match is later): numbers follow
    the dates, so that last one is found by halving the range of numbers, a lookup each time, and a match
    dated at or after the latest one (the usual case) costs one lookup.
    """
    row = conn.execute(
        "SELECT number, date FROM matches WHERE group_id = ? ORDER BY number DESC LIMIT 1", (group_id,)
    ).fetchone()
    if row is None:
        return 1, 0
    latest, latest_date = row
    if date >= latest_date:
        return latest + 1, latest
    at_or_before, after = 0, latest  # the match numbered `after` is dated after `date`; 0 stands for none
    while after - at_or_before > 1:
        middle = (at_or_before + after) // 2
        dated = conn.execute(
            "SELECT date FROM matches WHERE group_id = ? AND number = ?", (group_id, middle)
        ).fetchone()[0]
        if dated <= date:
            at_or_before = middle
        else:
            after = middle
    return at_or_before + 1, latest


class Recorder:
    """Records a batch's accepted matches in one group, each at its place in the played order (dates, then
    arrival), and rates them.

    A match dated at or after the group's latest takes the next number and is rated at once in its subsets
    (`rankings.record`: the cost does not grow with the history). One dated earlier takes the number right
    after the last match dated at or before it; every later match of the group moves one number up, with
    its ratings, subset rows and snapshots (`_make_room`). In each of its subsets where later matches were
    rated, those ratings are undone (`rankings.forget_from`) and the subset is marked to be rated again from
    that number; `finish` rates every later match of each marked subset again, in order, once for the
    whole batch. Subsets the match is not in are only renumbered. Every subset of the group moved gets its
    ``history_version`` raised, so a snapshot read before (`snapshots.SnapshotCache`) is never served again.
    """

    def __init__(self, conn: Conn, group_id: int, now: str, client_id: int | None) -> None:
        self.conn = conn
        self.group_id = group_id
        self.now = now
        self.client_id = client_id
        self.stale: dict[int, int] = {}
        """Subset id -> the first number whose ratings are to be worked out again (by `finish`)."""

    def add(self, verdict: Verdict) -> int:
        """Store an accepted match, its factions and subset rows; rate it (now, or in `finish`); its row id."""
        conn, group_id = self.conn, self.group_id
        match, game = verdict.match, verdict.game
        assert match is not None and game is not None and verdict.accepted
        date = match.date or self.now
        number, latest = played_position(conn, group_id, date)
        keys = ((MAIN_SUBSET, None), (game_subset_key(game.id), game))
        subsets = [subset_id(conn, group_id, key, game=g, created=self.now) for key, g in keys]
        if number <= latest:
            undone = [
                sid
                for sid in subsets
                if self.stale.get(sid, number + 1) > number and _has_from(conn, sid, number)
            ]
            for sid in undone:
                rankings.forget_from(conn, sid, number)
            self._make_room(number)
            for sid in subsets:
                if sid in undone or sid in self.stale:
                    self.stale[sid] = min(self.stale.get(sid, number), number)
        factions = match.factions
        names = players.load_players(conn, [p for f in factions for p in f.players])
        labels = [_label(f, names) for f in factions]
        by_rank = sorted(range(len(factions)), key=lambda i: (factions[i].rank, i))
        cur = conn.execute(
            "INSERT INTO matches (group_id, number, external_id, game_id, date, registration_date, weight,"
            " name, notes, type, draw, summary, client_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING id",
            (
                group_id,
                number,
                verdict.external_id or None,
                game.id,
                date,
                self.now,
                match.weight.value,
                verdict.name,
                match.notes,
                match_type(factions),
                int(all(f.rank == 1 for f in factions)),
                "\n".join(labels[i] for i in by_rank),
                self.client_id,
            ),
        )
        match_id = int(cur.fetchone()[0])
        sides = []
        for i, faction in enumerate(factions):
            conn.execute(
                "INSERT INTO factions (match_id, idx, rank, name, points, bot) VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, i, faction.rank, faction.name, faction.points, int(faction.bot)),
            )
            conn.executemany(
                "INSERT INTO faction_players (match_id, idx, pos, player_id) VALUES (?, ?, ?, ?)",
                [(match_id, i, pos, pid) for pos, pid in enumerate(faction.players)],
            )
            sides.append(_side(game.id, faction.rank, faction.bot, faction.players))
        for sid in subsets:
            if number > latest:
                seq = conn.execute("SELECT count_matches + 1 FROM subsets WHERE id = ?", (sid,)).fetchone()[0]
                conn.execute(
                    "UPDATE subsets SET count_matches = count_matches + 1, first_match = coalesce(first_match, ?),"
                    " last_match = ? WHERE id = ?",
                    (match_id, match_id, sid),
                )
            else:
                seq = self._insert_seq(sid, number, match_id)
            conn.execute(
                "INSERT INTO subset_matches (subset_id, number, seq, match_id) VALUES (?, ?, ?, ?)",
                (sid, number, seq, match_id),
            )
            if sid not in self.stale:
                rankings.record(conn, sid, number, seq, date, sides, match.weight.value)
        return match_id

    def _make_room(self, number: int) -> None:
        """Move every match of the group numbered `number` and after one number up, in every subset that
        holds one (its last match is one of them), and give those subsets a new ``history_version``."""
        conn, group_id = self.conn, self.group_id
        moved = conn.execute(
            "SELECT s.id FROM subsets s JOIN matches m ON m.id = s.last_match"
            " WHERE s.group_id = ? AND m.number >= ?",
            (group_id, number),
        ).fetchall()
        conn.execute(
            "UPDATE matches SET number = -(number + 1) WHERE group_id = ? AND number >= ?", (group_id, number)
        )
        conn.execute("UPDATE matches SET number = -number WHERE group_id = ? AND number < 0", (group_id,))
        for (sid,) in moved:
            conn.execute(
                "UPDATE subset_matches SET number = -(number + 1) WHERE subset_id = ? AND number >= ?",
                (sid, number),
            )
            conn.execute(
                "UPDATE subset_matches SET number = -number WHERE subset_id = ? AND number < 0", (sid,)
            )
            rankings.make_room(conn, sid, number)
            conn.execute("UPDATE subsets SET history_version = ? WHERE id = ?", (new_history_version(), sid))
            if self.stale.get(sid, 0) >= number:
                self.stale[sid] += 1

    def _insert_seq(self, sid: int, number: int, match_id: int) -> int:
        """The place in subset `sid` of a match numbered `number` that has later ones around it; the later
        ones move one place on, the subset's count and ends follow."""
        conn = self.conn
        row = conn.execute(
            "SELECT seq FROM subset_matches WHERE subset_id = ? AND number < ? ORDER BY number DESC LIMIT 1",
            (sid, number),
        ).fetchone()
        seq = row[0] + 1 if row else 1
        conn.execute(
            "UPDATE subset_matches SET seq = seq + 1 WHERE subset_id = ? AND number > ?", (sid, number)
        )
        ends = ""
        if seq == 1:
            ends += ", first_match = ?"
        if not _has_from(conn, sid, number + 1):
            ends += ", last_match = ?"
        conn.execute(
            f"UPDATE subsets SET count_matches = count_matches + 1{ends} WHERE id = ?",
            (*[match_id] * ends.count("?"), sid),
        )
        return seq

    def finish(self) -> None:
        """Rate again, in order, every match of each marked subset from its marked number on."""
        for sid, start in sorted(self.stale.items()):
            rerate(self.conn, sid, start)
        self.stale.clear()


def _has_from(conn: Conn, subset_id: int, number: int) -> bool:
    """Whether the subset holds a match numbered `number` or later."""
    row = conn.execute(
        "SELECT 1 FROM subset_matches WHERE subset_id = ? AND number >= ? LIMIT 1", (subset_id, number)
    ).fetchone()
    return row is not None


def _side(game_id: int, rank: int, bot: bool, player_ids: Sequence[str]) -> rankings.Side:
    """A faction as the ratings see it: a bot is its game's bot key, the others their players' ids."""
    return rankings.Side(rank, (rankings.bot_key(game_id),) if bot else tuple(player_ids), bot)


def rerate(conn: Conn, subset_id: int, start: int) -> None:
    """Rate every match of the subset numbered `start` and after, in order, as `rankings.record` rates a
    new one (`rankings.replay`; their ratings must have been undone: `rankings.forget_from`)."""
    tail = conn.execute(
        "SELECT s.number, s.seq, s.match_id, m.date, m.weight, m.game_id FROM subset_matches s"
        " JOIN matches m ON m.id = s.match_id WHERE s.subset_id = ? AND s.number >= ? ORDER BY s.number",
        (subset_id, start),
    ).fetchall()
    rankings.replay(conn, subset_id, _with_sides(conn, tail))


def _with_sides(
    conn: Conn, tail: Sequence[tuple]
) -> Iterator[tuple[int, int, str, list[rankings.Side], str]]:
    """(number, seq, date, sides, weight) of each match of `tail` (number, seq, id, date, weight, game id),
    their factions read `REPLAY_CHUNK` matches at a time."""
    for chunk in range(0, len(tail), REPLAY_CHUNK):
        rows = tail[chunk : chunk + REPLAY_CHUNK]
        ids = [r[2] for r in rows]
        marks = ",".join("?" * len(ids))
        factions: dict[int, list[tuple]] = {}
        for match_id, idx, rank, bot in conn.execute(
            f"SELECT match_id, idx, rank, bot FROM factions WHERE match_id IN ({marks}) ORDER BY match_id, idx",
            ids,
        ).fetchall():
            factions.setdefault(match_id, []).append((idx, rank, bool(bot)))
        members: dict[tuple[int, int], list[str]] = {}
        for match_id, idx, pid in conn.execute(
            f"SELECT match_id, idx, player_id FROM faction_players WHERE match_id IN ({marks})"
            " ORDER BY match_id, idx, pos",
            ids,
        ).fetchall():
            members.setdefault((match_id, idx), []).append(pid)
        for number, seq, match_id, date, weight, game_id in rows:
            sides = [
                _side(game_id, rank, bot, members.get((match_id, idx), []))
                for idx, rank, bot in factions[match_id]
            ]
            yield number, seq, date, sides, weight


REPLAY_CHUNK = 500
"""Matches whose factions `rerate` reads in one statement."""


def record(conn: Conn, group_id: int, verdict: Verdict, now: str, client_id: int | None) -> int:
    """Store one accepted match at its place in the played order, rate what it changes; its row id."""
    recorder = Recorder(conn, group_id, now, client_id)
    match_id = recorder.add(verdict)
    recorder.finish()
    return match_id


def renew_history_versions(conn: Conn) -> None:
    """Give every subset a ``history_version`` of its own (`new_history_version`; a migration's work:
    `schema.SCHEMA_V7`)."""
    for (sid,) in conn.execute("SELECT id FROM subsets").fetchall():
        conn.execute("UPDATE subsets SET history_version = ? WHERE id = ?", (new_history_version(), sid))


def replay_everything(conn: Conn) -> None:
    """Number every group's matches in played order (date, then arrival) and rate every subset again from
    its first match in that order (a migration's work: `schema.SCHEMA_V4`)."""
    for (group_id,) in conn.execute("SELECT id FROM groups ORDER BY id").fetchall():
        order = conn.execute(
            "SELECT id FROM matches WHERE group_id = ? ORDER BY date, id", (group_id,)
        ).fetchall()
        conn.executemany(
            "UPDATE matches SET number = ? WHERE id = ?", [(-n, r[0]) for n, r in enumerate(order, 1)]
        )
        conn.execute("UPDATE matches SET number = -number WHERE group_id = ? AND number < 0", (group_id,))
        for (sid,) in conn.execute(
            "SELECT id FROM subsets WHERE group_id = ? ORDER BY id", (group_id,)
        ).fetchall():
            rows = conn.execute(
                "SELECT m.number, m.id FROM subset_matches s JOIN matches m ON m.id = s.match_id"
                " WHERE s.subset_id = ? ORDER BY m.number",
                (sid,),
            ).fetchall()
            conn.execute("DELETE FROM subset_matches WHERE subset_id = ?", (sid,))
            conn.executemany(
                "INSERT INTO subset_matches (subset_id, number, seq, match_id) VALUES (?, ?, ?, ?)",
                [(sid, number, seq, match_id) for seq, (number, match_id) in enumerate(rows, 1)],
            )
            conn.execute(
                "UPDATE subsets SET count_matches = ?, first_match = ?, last_match = ? WHERE id = ?",
                (len(rows), rows[0][1] if rows else None, rows[-1][1] if rows else None, sid),
            )
            for table in ("rating_history", "rating_snapshot", "rating_current"):
                conn.execute(f"DELETE FROM {table} WHERE subset_id = ?", (sid,))
            rerate(conn, sid, 1)
