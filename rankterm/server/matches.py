"""New matches: judged one by one (M-codes), then recorded with their subsets and ratings in one go.

`judge` reads every item of a batch with `read_match` (the client's own judge, so both sides read the wire
and the rules of a valid match the same way: M002, M004, M006 … M009, see rankterm/api/new_match.py) and
adds what only the store can tell; `record` stores an accepted match, puts it in the main subset and in its
game's subset (made with the game's first match), and rates it in both.

Codes the store adds (WIRE.md; M004… are ours):

- M003 a match with the same external id was already accepted (earlier, or earlier in the same batch);
- M004 a game neither in the catalogue nor the group's;
- M005 a player id that is not a player of the group.

Match type (ours): with a bot faction, ``player_vs_bot`` when the humans are one single player, else
``faction_vs_bot``; without, ``faction_vs_faction`` when any faction has several players, else
``player_vs_player`` for two factions and ``multiplayer`` for three or more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rankterm.api.models import NAME_GAME, NAME_VERSUS, Game, NewFaction, NewMatch
from rankterm.api.new_match import Problem, read_match
from rankterm.server import games, players, rankings
from rankterm.server.conn import Conn
from rankterm.server.wire import Fault

MAX_BATCH = 100
MAIN_SUBSET = "main"


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


def judge(conn: Conn, group_id: int, items: list[Any], seen: set[str] | None = None) -> list[Verdict]:
    """Each item of a batch, judged on its own; `seen` collects the external ids accepted so far."""
    seen = set() if seen is None else seen
    verdicts = []
    for index, item in enumerate(items):
        verdict = _judge_one(conn, group_id, index, item, seen)
        if verdict.accepted and verdict.external_id:
            seen.add(verdict.external_id)
        verdicts.append(verdict)
    return verdicts


def _judge_one(conn: Conn, group_id: int, index: int, item: Any, seen: set[str]) -> Verdict:
    match, problems = read_match(item)
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
        "INSERT INTO subsets (group_id, key, type, name, game_id, creation_date) VALUES (?, ?, ?, ?, ?, ?)",
        (group_id, key, kind, name, game.id if game else None, created),
    )
    return int(cur.lastrowid or 0)


def game_subset_key(game_id: int) -> str:
    """The id of a game's subset: never all digits, so never read as a page number."""
    return f"g{game_id}"


def record(conn: Conn, group_id: int, verdict: Verdict, now: str, client_id: int | None) -> int:
    """Store an accepted match, its subsets and ratings; return its row id (its wire `id`)."""
    match, game = verdict.match, verdict.game
    assert match is not None and game is not None and verdict.accepted
    number = conn.execute(
        "SELECT coalesce(max(number), 0) + 1 FROM matches WHERE group_id = ?", (group_id,)
    ).fetchone()[0]
    date = match.date or now
    factions = match.factions
    names = players.load_players(conn, [p for f in factions for p in f.players])
    labels = [_label(f, names) for f in factions]
    by_rank = sorted(range(len(factions)), key=lambda i: (factions[i].rank, i))
    cur = conn.execute(
        "INSERT INTO matches (group_id, number, external_id, game_id, date, registration_date, weight, name,"
        " notes, type, draw, summary, client_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            group_id,
            number,
            verdict.external_id or None,
            game.id,
            date,
            now,
            match.weight.value,
            verdict.name,
            match.notes,
            match_type(factions),
            int(all(f.rank == 1 for f in factions)),
            "\n".join(labels[i] for i in by_rank),
            client_id,
        ),
    )
    match_id = int(cur.lastrowid or 0)
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
        keys = (rankings.bot_key(game.id),) if faction.bot else tuple(faction.players)
        sides.append(rankings.Side(faction.rank, keys, faction.bot))
    for key, subset_game in ((MAIN_SUBSET, None), (game_subset_key(game.id), game)):
        sid = subset_id(conn, group_id, key, game=subset_game, created=now)
        seq = conn.execute("SELECT count_matches + 1 FROM subsets WHERE id = ?", (sid,)).fetchone()[0]
        conn.execute(
            "INSERT INTO subset_matches (subset_id, number, seq, match_id) VALUES (?, ?, ?, ?)",
            (sid, number, seq, match_id),
        )
        conn.execute(
            "UPDATE subsets SET count_matches = count_matches + 1, first_match = coalesce(first_match, ?),"
            " last_match = ? WHERE id = ?",
            (match_id, match_id, sid),
        )
        rankings.record(conn, sid, number, seq, date, sides, match.weight.value)
    return match_id
