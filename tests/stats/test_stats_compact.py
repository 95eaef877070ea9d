"""The stats pages from the mirror's compact rows (`stats.compact`, `Mirror.stat_rows`) give exactly the figures
of today's path (every held match parsed into a `Match`, then the pure functions of `stats.figures`): on
random groups written the way the wire may send them (ids as numbers, a faction's one player as an object,
flags as text, names with control characters, renamed players and games, teams, bots, ties, a player in two
factions, matches recorded out of the order played), on the demo group through the client, after a backdated
match renumbered the held ones, and in a mirror file of the schema before the compact rows (filled once)."""

from __future__ import annotations

import itertools
import sqlite3
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror, stat_sql
from rankterm.mirror.file import dumps
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.stats import compact, game_figures, game_records, head_to_head, player_figures, source, tonight
from rankterm.stats.rules import faction_of
from rankterm.wire.fields import DISPLAY_SAFE
from rankterm.wire.models import Match, NewFaction, NewMatch
from rankterm.wire.text import display_safe
from tests.support.examples import examples

PEOPLE = ["a", "b", "c", "d", "e", "7"]
NAMES = ["Ada", "ada", "Bé\x1b[31m", "line\nbreak", "", "Zoë"]


def wire_id(draw: Any, pid: str) -> Any:
    """A player id as the wire may send it: "7" may come as the number 7."""
    return int(pid) if pid.isdigit() and draw(st.booleans()) else pid


def flag(draw: Any, value: bool) -> Any:
    return draw(st.sampled_from([1, True, "1", "true", "yes"] if value else [0, False, "0", "", None, "no"]))


@st.composite
def wire_match(draw: Any, number: int) -> dict[str, Any]:
    """One match as wire JSON (what the mirror stores)."""
    seated = draw(
        st.lists(st.sampled_from(PEOPLE), min_size=0, max_size=5)
    )  # a repeat: one player, two factions
    cut = draw(st.lists(st.integers(1, max(1, len(seated))), max_size=3))
    bounds = sorted({0, len(seated), *cut})
    teams = [seated[lo:hi] for lo, hi in itertools.pairwise(bounds) if hi > lo] or [[]]
    factions: list[dict[str, Any]] = []
    for team in teams:
        people = [
            {
                "id": wire_id(draw, p),
                "displayName": draw(st.sampled_from(NAMES)),
                "username": draw(st.sampled_from(["user", "", None])),
                "ghost": flag(draw, draw(st.booleans())),
            }
            for p in team
        ]
        faction: dict[str, Any] = {"rank": draw(st.sampled_from([1, 2, 3, "2"])), "bot": flag(draw, False)}
        if len(people) == 1 and draw(st.booleans()):
            faction["players"] = people[0]  # one player sent as an object, not a list
        else:
            faction["players"] = people
        factions.append(faction)
    if draw(st.booleans()):  # a bot faction, its players (if any) never count
        bot_players = [{"id": "a", "displayName": "Bot's"}] if draw(st.booleans()) else []
        factions.insert(
            draw(st.integers(0, len(factions))),
            {"rank": draw(st.integers(1, 3)), "bot": flag(draw, True), "players": bot_players},
        )
    day = draw(st.integers(0, 20))  # dates independent of numbers: recorded out of order
    body: dict[str, Any] = {
        "id": f"m{number}",
        "externalId": draw(st.sampled_from(["", "ext\x07"])),
        "number": number,
        "date": (datetime(2026, 1, 1) + timedelta(days=day, minutes=draw(st.integers(0, 3)))).strftime(
            "%Y-%m-%d %H:%M:%S"
        ),
        "factions": factions,
    }
    if draw(st.integers(0, 9)):
        game = draw(st.integers(1, 3))
        body["game"] = {
            "id": draw(st.sampled_from([game, str(game)])),
            "name": draw(st.sampled_from(["G", "g\tx"])),
        }
    return body


@st.composite
def groups(draw: Any) -> list[dict[str, Any]]:
    count = draw(st.integers(0, 30))
    return [draw(wire_match(n)) for n in range(1, count + 1)]


def held(bodies: list[dict[str, Any]]) -> Mirror:
    mirror = Mirror(None)
    half = len(bodies) // 2
    for chunk in (bodies[:half], bodies[half:]):  # held in two syncs
        mirror.held.put_matches([(b["number"], str(b.get("game", {}).get("id")), b) for b in chunk])
    return mirror


def parsed(bodies: list[dict[str, Any]], safe: bool) -> list[Match]:
    return [Match.model_validate(b, context=DISPLAY_SAFE if safe else None) for b in bodies]


def compare_everything(matches: list[Match], mirror: Mirror, safe: bool) -> None:
    """Every page's figures from the compact rows against the same figures over the parsed matches."""
    rows = mirror.stats.stat_rows
    people = sorted({str(p.id) for m in matches for f in m.factions if not f.bot for p in f.players} | {"x"})
    for a in people:
        mine = compact.compact_matches(rows(player=a), safe=safe)
        assert [m.number for m in mine] == sorted(
            m.number
            for m in matches
            if any(not f.bot and a in [str(p.id) for p in f.players] for f in m.factions)
        )
        assert player_figures(mine, a) == player_figures(matches, a)
        for b in [None, *people]:
            if b != a:
                assert head_to_head(mine, a, b) == head_to_head(matches, a, b)
    for game in {m.game.id for m in matches if m.game is not None} | {99}:
        expected = game_figures(matches, game)
        assert game_figures(compact.compact_matches(rows(game_id=game), safe=safe), game) == expected
        assert compact.game_figures_of(mirror.stats.stat_game(game), game, safe=safe) == expected
        records = {
            a: next(g for g in player_figures(matches, a).per_game if g.game_id == game)
            for a in people
            if any(g.game_id == game for g in player_figures(matches, a).per_game)
        }
        assert game_records(compact.compact_matches(rows(game_id=game), safe=safe), game) == records
        assert game_records(matches, game) == records
    for day in (0, 7, 21):
        since = datetime(2026, 1, 1) + timedelta(days=day)
        evening = compact.compact_matches(rows(since=since.strftime("%Y-%m-%d %H:%M:%S")), safe=safe)
        assert tonight(evening, since) == tonight(matches, since)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups(), st.booleans())
def test_the_compact_rows_give_the_figures_of_the_parsed_matches(bodies, safe):
    mirror = held(bodies)
    compare_everything(parsed(bodies, safe), mirror, safe)


def json_roster(bodies: list[Any], safe: bool) -> tuple[Any, ...]:
    """The pickers' roster read from the held matches' JSON (every held match, read or not): each player's
    and game's name as their newest match by number has it (a player's first faction and seat there), how
    many matches each plays in, in the order first met from the newest; the newest (date, number)."""

    def text(value: Any) -> str:
        if value is None:
            return ""
        out = str(int(value)) if isinstance(value, bool) else str(value)
        return display_safe(out) if safe else out

    def flag(value: Any) -> bool:
        if isinstance(value, str):
            return value.strip().lower() in {"1", "true", "t", "yes", "y", "on"}
        return bool(value)

    names: dict[str, str] = {}
    played: dict[str, int] = {}
    games: dict[int, str] = {}
    game_played: dict[int, int] = {}
    newest: tuple[str, int] | None = None
    for row in sorted(bodies, key=lambda b: -b["number"]):
        number, date = row["number"], row.get("date") or ""
        if newest is None or (date, number) > newest:
            newest = (date, number)
        game = row.get("game")
        if isinstance(game, dict) and game.get("id") is not None:
            gid = int(game["id"])
            games.setdefault(gid, text(game.get("name")))
            game_played[gid] = game_played.get(gid, 0) + 1
        seen: set[str] = set()
        for faction in row.get("factions") or ():
            if not isinstance(faction, dict) or flag(faction.get("bot")):
                continue
            people = faction.get("players") or ()
            for player in (people,) if isinstance(people, dict) else people:
                raw = player["id"]
                pid = raw if isinstance(raw, str) else str(raw)
                names.setdefault(pid, text(player.get("displayName")) or text(player.get("username")) or pid)
                if pid not in seen:
                    seen.add(pid)
                    played[pid] = played.get(pid, 0) + 1
    if newest is not None and safe:
        newest = (display_safe(newest[0]), newest[1])
    return list(names.items()), list(played.items()), list(games.items()), list(game_played.items()), newest


def roster_lists(roster: source.Roster) -> tuple[Any, ...]:
    """A roster's lists in their order (the dicts' order is what a picker built from them meets first)."""
    return (
        list(roster.players.items()),
        list(roster.played.items()),
        list(roster.games.items()),
        list(roster.game_played.items()),
        roster.newest,
    )


def seat_on(mirror: Mirror, safe: bool) -> Group:
    """A group on `mirror` that asks nothing (the roster reads the mirror alone)."""
    client = RankingClient("http://127.0.0.1:9/", key="k", secret="s")
    client.display_safe = safe
    return Group(client, mirror)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups(), groups(), st.booleans(), st.data())
def test_the_pickers_roster_from_the_compact_rows_is_the_one_the_json_gives(first, more, safe, data):
    """The roster (every held match, one with a faction whose rank cannot be read too), as a first read and
    after a sync appended matches, a backdated match rewrote the held ones, and a full read replaced them."""
    bodies = [dict(b) for b in first]
    if bodies and data.draw(st.booleans()):  # a match the figures leave out still names its players
        broken = data.draw(st.sampled_from(bodies))
        broken["factions"] = [{**broken["factions"][0], "rank": None}, *broken["factions"][1:]]
    mirror = held(bodies)
    client = seat_on(mirror, safe)
    assert roster_lists(source.held_roster(client)) == json_roster(bodies, safe)
    top = len(bodies)
    appended = [{**b, "number": b["number"] + top, "id": f"m{b['number'] + top}"} for b in more]
    mirror.held.put_matches([(b["number"], None, b) for b in appended])
    assert roster_lists(source.held_roster(client)) == json_roster(bodies + appended, safe)
    if bodies:
        cut = bodies[len(bodies) // 2]["number"]
        rest = [{**b, "number": b["number"] + 1, "id": f"r{b['number']}"} for b in bodies + appended]
        rest = [b for b in rest if b["number"] > cut]
        mirror.held.rewrite_matches_from(cut, [(b["number"], None, dumps(b)) for b in rest])
        now = [b for b in bodies if b["number"] < cut] + rest
        assert roster_lists(source.held_roster(client)) == json_roster(now, safe)
    mirror.held.stage_matches([(b["number"], None, dumps(b)) for b in more], first=True)
    mirror.held.replace_matches_with_staged()
    assert roster_lists(source.held_roster(client)) == json_roster(more, safe)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups(), groups())
def test_matches_written_again_leave_no_stale_rows(first, second):
    """A full read replacing the held matches, a rewrite from a number on, and a match replaced in place
    (the ways a sync writes) leave exactly the rows of what is held."""
    mirror = held(first)
    mirror.held.stage_matches([(b["number"], None, dumps(b)) for b in second], first=True)
    mirror.held.replace_matches_with_staged()
    compare_everything(parsed(second, False), mirror, False)
    if second:
        cut = second[len(second) // 2]["number"]
        rest = [{**b, "id": f"again{b['number']}"} for b in reversed(first) if b["number"] >= cut]
        mirror.held.rewrite_matches_from(cut, [(b["number"], None, dumps(b)) for b in rest])
        now = [b for b in second if b["number"] < cut] + sorted(rest, key=lambda b: b["number"])
        compare_everything(parsed(now, False), mirror, False)


def test_a_match_whose_rank_cannot_be_read_is_left_out_as_parsing_leaves_it_out():
    good = {"number": 1, "date": "2026-01-01 20:00:00", "factions": [{"rank": 1, "players": [{"id": "a"}]}]}
    bad = {"number": 2, "date": "2026-01-02 20:00:00", "factions": [{"rank": None, "players": [{"id": "a"}]}]}
    mirror = held([good, bad, {"number": 3, "factions": "none"}])
    assert [m.number for m in compact.compact_matches(mirror.stats.stat_rows(player="a"))] == [1]
    assert player_figures(compact.compact_matches(mirror.stats.stat_rows()), "a").played == 1


@pytest.fixture
async def demo_client():
    app = create_app(demo_store())
    client = RankingClient.in_process(app, key=DEMO_KEY, secret=DEMO_SECRET)
    yield Group(client, Mirror(None))
    await client.aclose()


@pytest.mark.parametrize("safe", [False, True])
async def test_the_demo_groups_pages_are_the_same_from_the_compact_rows(demo_client, safe):
    demo_client.client.display_safe = safe
    matches = await source.group_matches(demo_client)
    people = sorted({str(p.id) for m in matches for f in m.factions for p in f.players})
    for a in people:
        mine = compact.player_matches(demo_client, a)
        assert [m.number for m in mine] == [m.number for m in matches if faction_of(m, a) is not None]
        assert player_figures(mine, a) == player_figures(matches, a)
        for b in [None, *people]:
            if b != a:
                assert head_to_head(mine, a, b) == head_to_head(matches, a, b)
    for game in {m.game.id for m in matches if m.game is not None}:
        assert game_figures(compact.game_matches(demo_client, game), game) == game_figures(matches, game)
        assert compact.held_game_figures(demo_client, game) == game_figures(matches, game)
        records = game_records(compact.game_matches(demo_client, game), game)
        assert records == {
            a: g for a in people for g in player_figures(matches, a).per_game if g.game_id == game
        }
    since = datetime.strptime(matches[-40].date, "%Y-%m-%d %H:%M:%S")
    assert tonight(compact.matches_since(demo_client, since), since) == tonight(matches, since)
    bodies = demo_client.mirror.held.matches()
    assert roster_lists(source.held_roster(demo_client)) == json_roster(bodies, safe)


async def test_a_backdated_match_rewrites_the_compact_rows(demo_client):
    """A match dated among the held ones takes its number and moves every later one up: the sync rewrites
    the held matches from there, and the compact rows follow (the new match counted, none twice)."""
    matches = await source.group_matches(demo_client)
    ada = str(matches[-1].factions[0].players[0].id)
    ben = next(str(p.id) for m in matches for f in m.factions for p in f.players if str(p.id) != ada)
    before = player_figures(compact.player_matches(demo_client, ada), ada)
    game = matches[-1].game
    assert game is not None
    earlier = matches[len(matches) // 2].date
    played_earlier = NewMatch(
        game=game.id,
        weight="normal",
        date=earlier,
        external_id="played-earlier",
        factions=[NewFaction(players=[ada], rank=1), NewFaction(players=[ben], rank=2)],
    )
    assert (await demo_client.add_matches(played_earlier)).accepted_count == 1
    after_sync = await source.group_matches(demo_client, max_age=0)
    assert any(m.external_id == "played-earlier" for m in after_sync)
    assert after_sync[-1].number == matches[-1].number + 1  # the later ones moved up one number
    mine = compact.player_matches(demo_client, ada)
    assert "played-earlier" in {m.external_id for m in mine}
    now = player_figures(mine, ada)
    assert now == player_figures(after_sync, ada) and now.played == before.played + 1
    assert head_to_head(mine, ada, ben) == head_to_head(after_sync, ada, ben)
    expected = game_figures(after_sync, game.id)
    assert game_figures(compact.game_matches(demo_client, game.id), game.id) == expected
    assert compact.held_game_figures(demo_client, game.id) == expected
    assert demo_client.mirror.stats.stat_rows() == sorted(
        demo_client.mirror.stats.stat_rows()
    )  # one row per seat


@pytest.mark.parametrize("held", ["schema 1", "other stats rows"])
def test_a_mirror_file_without_these_compact_rows_is_kept_and_its_rows_made(tmp_path, held):
    path = tmp_path / "mirror.db"
    bodies = [
        {"number": n, "date": f"2026-01-0{n} 20:00:00", "game": {"id": 1, "name": "G"},
         "factions": [{"rank": 1, "players": [{"id": "a"}]}, {"rank": 2, "players": [{"id": "b"}]}]}
        for n in (1, 2, 3)
    ]  # fmt: skip
    mirror = Mirror(path, "scope")
    mirror.held.put_matches([(b["number"], "1", b) for b in bodies])
    mirror.close()
    with sqlite3.connect(path) as db:  # as the release before left it (no compact rows), or an earlier shape
        for kind, name in db.execute(
            "SELECT type, name FROM sqlite_master WHERE name LIKE 'stat%'"
        ).fetchall():
            if kind in ("table", "trigger"):
                db.execute(f"DROP {kind} IF EXISTS {name}")
        if held == "schema 1":
            db.execute("DELETE FROM meta WHERE key = 'stats'")
            db.execute("PRAGMA user_version = 1")
        else:
            db.execute("CREATE TABLE stat_matches (number INTEGER PRIMARY KEY, date TEXT)")
            db.execute("UPDATE meta SET value = '1' WHERE key = 'stats'")
    again = Mirror(path, "scope")
    assert again.problem is None and again.held.match_numbers() == (3, 3)
    assert player_figures(compact.compact_matches(again.stats.stat_rows(player="a")), "a") == player_figures(
        parsed(bodies, False), "a"
    )
    assert compact.game_figures_of(again.stats.stat_game(1), 1) == game_figures(parsed(bodies, False), 1)
    again.close()


NICE = st.one_of(
    st.none(), st.integers(-3, 3),
    st.sampled_from(["", "2", " 2", "02", "-1", "2x", "x", "yes", " YES ", "\tyes", "On", "T", "0", "é", "İ"]),
)  # fmt: skip
SCALARS = NICE | st.booleans() | st.sampled_from([2**63, -(2**63) - 1, 1.5, 0.0, -2.0])
WILD = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["id", "rank"]), inner, max_size=2), max_leaves=4
)  # fmt: skip


FLAGS = st.sampled_from(
    [None, True, False, 0, 1, 2, -1, "yes", " YES ", "\tyes", "On", "T", "0", "", "x", "İ"]
)
RANKS = st.sampled_from([None, 1, 2, 3, -1, "2", " 2", "02", "-1", "2x", "x", ""])


def mostly(usual: Any) -> Any:
    """`usual` nine times in ten, else any JSON value."""
    return st.integers(0, 9).flatmap(lambda k: WILD if k == 0 else usual)


@st.composite
def wild_faction(draw: Any) -> Any:
    player = mostly(
        st.fixed_dictionaries(
            {}, optional={"id": mostly(NICE), "displayName": mostly(NICE), "username": mostly(NICE)}
        )
    )
    people = mostly(st.lists(player, max_size=3) | player)
    return draw(
        mostly(
            st.fixed_dictionaries(
                {}, optional={"rank": mostly(RANKS), "bot": mostly(FLAGS), "players": people}
            )
        )
    )


@st.composite
def wild_body(draw: Any) -> str:
    """A held match's JSON text of any form: the wire's, values of other types, or text that is not JSON."""
    if not draw(st.integers(0, 15)):
        return draw(st.sampled_from(["", "{", "[]", "3", '{"factions": [{"rank": NaN}]}', "null"]))
    game = mostly(st.fixed_dictionaries({}, optional={"id": mostly(RANKS), "name": mostly(NICE)}))
    body = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "id": mostly(NICE),
                "externalId": mostly(NICE),
                "date": mostly(NICE),
                "game": game,
                "factions": mostly(st.lists(wild_faction(), max_size=4)),
            },
        )
    )
    return dumps(body)


TRICKY = [
    dumps({"id": 5, "game": {"id": "02", "name": "G"}, "factions": [
        {"rank": " 2", "bot": "\tyes", "players": {"id": 7}},
        {"rank": "2x", "bot": " YES ", "players": []},
        {"rank": 1, "bot": "İ", "players": [{"id": "a", "displayName": "Ada"}, "x"]},
        {"rank": 1, "bot": 2, "players": [{"id": "b"}]},
        {"rank": "-1", "bot": "T"},
    ]}),
    dumps({"date": "2026-01-01", "factions": [{"rank": 1.5, "bot": False}, 3]}),
    dumps({"factions": None, "game": None}),
    dumps({"game": "G", "factions": []}),
    "not json",
]  # fmt: skip
HOW = st.sampled_from(["put", "older", "staged", "rewrite"])


@example(TRICKY, "put")
@example(TRICKY, "staged")
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(wild_body(), max_size=6), HOW)
def test_the_stats_rows_written_with_the_matches_are_the_ones_the_sql_makes_of_their_json(bodies, how):
    """Whatever a held match's JSON holds, the stats rows each write makes are the rows the SQL fill (a file
    upgraded to these rows) makes of the same JSON: the same values and types, row for row."""
    mirror = Mirror(None)
    rows = [(n, None, body) for n, body in enumerate(bodies, 1)]
    if how == "put":
        mirror.held.put_matches(rows, dumped=True)
    elif how == "older":
        mirror.held.put_older_matches(rows, held_from=1, holder="h", now=0, lease=60)
    elif how == "staged":
        mirror.held.put_matches(
            [(n, None, {"factions": [{"rank": 1, "players": [{"id": "z"}]}]}) for n in range(1, 9)]
        )
        mirror.held.stage_matches(rows[:2], first=True)
        mirror.held.stage_matches(rows[2:])
        mirror.held.replace_matches_with_staged()
    else:
        mirror.held.put_matches(
            [(n, None, {"factions": [{"rank": 1, "players": [{"id": "z"}]}]}) for n in range(1, 9)]
        )
        mirror.held.rewrite_matches_from(1, rows)
    db = mirror.file.db
    tables = ("stat_matches", "stat_seats")

    def held() -> list[Any]:
        return [
            db.execute(
                f"SELECT *, {', '.join(f'typeof({c})' for c in cols)} FROM {t} ORDER BY 1, 2, 3"
            ).fetchall()
            for t, cols in ((t, [r[1] for r in db.execute(f"PRAGMA table_info({t})")]) for t in tables)
        ]

    written = held()
    db.executescript(
        f"BEGIN; DELETE FROM stat_matches; DELETE FROM stat_seats; {stat_sql.STATS_FILL} COMMIT;"
    )
    assert written == held()


def test_a_mirror_file_whose_stats_rows_were_kept_by_triggers_keeps_its_rows_and_drops_the_triggers(tmp_path):
    """A file of the release before (the same stats rows, kept by triggers on `matches`) is opened without
    its rows being made again, and from then on only the mirror's writes make them."""
    path = tmp_path / "mirror.db"
    mirror = Mirror(path, "scope")
    mirror.held.put_matches(
        [(n, "1", {"number": n, "factions": [{"rank": 1, "players": [{"id": "a"}]}]}) for n in (1, 2)]
    )
    mirror.close()
    with sqlite3.connect(path) as db:  # as that release left it: its shape, and a trigger per write
        db.execute("UPDATE meta SET value = '2' WHERE key = 'stats'")
        db.execute("UPDATE stat_seats SET display_name = 'kept' WHERE number = 1")
        db.execute(
            "CREATE TRIGGER stat_rows_added AFTER INSERT ON matches BEGIN"
            " INSERT OR REPLACE INTO stat_seats VALUES (NEW.number, 9, 9, 1, 0, 'ghost', '', ''); END"
        )
    again = Mirror(path, "scope")
    assert again.problem is None
    again.held.put_matches([(3, "1", {"number": 3, "factions": [{"rank": 2, "players": [{"id": "b"}]}]})])
    rows = again.stats.stat_rows()
    assert [(r.number, r.player, r.display_name) for r in rows] == [
        (1, "a", "kept"),
        (2, "a", ""),
        (3, "b", ""),
    ]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall() == []
        assert db.execute("SELECT value FROM meta WHERE key = 'stats'").fetchone() == (
            str(stat_sql.STATS_SHAPE),
        )
    again.close()
