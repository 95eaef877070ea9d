"""Many groups on one service: a client sees and writes only its own group, on every endpoint.

A property test drives random operations (players, games created by name or BGG id, matches with external ids
drawn from one small pool shared by the groups, matches naming another group's players, reads) on three
groups of one service, each group through its own client, and the same operations of each group on a service
holding that group alone. After every operation every endpoint a client reads (games, games/search,
games/popular, players, matches, matches of each subset, matches/match/exists for every external id of the
pool, matches/status, subsets, rankings, quota, status) answers the same on both, once the ids the database
numbered (players, games created, matches) are named by what they are. A duplicate external id across groups
is therefore accepted, a foreign player refused exactly as an unknown one, and no count or quota moves with
another group's calls. The whole test runs on SQLite in memory (the engine changes nothing of the SQL that
picks a group's rows; `test_a_match_naming_another_group_s_game_or_player_is_refused` runs on both).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.server import tokens
from rankterm.server.app import create_app
from rankterm.server.store import Store
from tests.support.clock import SettableClock
from tests.support.examples import examples

from .conftest import BASE_URL, Api

GROUPS = 3
NO_GAME = 10**9
READ_EVERY = 3
"""Every endpoint of every group is read and compared after every this many operations (and after the last);
in between, the operation's own answer is."""
EXTERNAL_IDS = ("x0", "x1", "x2", "x3")
GAME_NAMES = ("Azul", "Brass", "Cascadia")
CATALOGUE_BGG = (13, 230802)  # Catan and Azul are in the catalogue

players = st.tuples(st.just("player"), st.integers(0, GROUPS - 1))
created_games = st.tuples(st.just("game"), st.integers(0, GROUPS - 1), st.sampled_from(GAME_NAMES))
bgg_games = st.tuples(st.just("bgg"), st.integers(0, GROUPS - 1), st.sampled_from(CATALOGUE_BGG))
new_matches = st.tuples(
    st.just("match"),
    st.integers(0, GROUPS - 1),
    st.lists(
        st.integers(0, 4), min_size=2, max_size=3, unique=True
    ),  # players by index (past the last: none)
    st.integers(0, 9),  # the game: one of the group's by index
    st.one_of(st.none(), st.sampled_from(EXTERNAL_IDS)),
    st.integers(1, 28),  # the day of October
    st.booleans(),  # a dry run
)
foreign = st.tuples(st.just("foreign"), st.integers(0, GROUPS - 1), st.integers(1, GROUPS - 1))
operations = st.lists(
    st.one_of(players, created_games, bgg_games, new_matches, foreign), min_size=1, max_size=12
)


class Service:
    """A service on an in-memory copy of `template`, with one client per group it holds, each holding a token
    signed as ``GET auth`` signs one (the secrets are scrypt-hashed: made and checked once per process, not
    once per example; the tokens a login hands out are tested in test_app_auth)."""

    def __init__(self, clock: SettableClock, template: Store) -> None:
        self.store = template.clone()
        self.store.clock = clock
        self.app = create_app(self.store)
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url=BASE_URL)
        self.apis: list[Api] = []
        for client_id in range(1, self.store.client_count() + 1):
            client = self.store.client(client_id)
            assert client is not None
            api = Api(self.http, client.key, "")
            api.token = tokens.mint(
                self.store.signing_key,
                client.id,
                client.group_id,
                clock(),
                self.app.state.service.token_ttl,
                client.tokens_from,
                client.key,
            )
            api.headers = {"Authorization": f"Bearer {api.token}", "Accept": "application/json"}
            self.apis.append(api)

    async def close(self) -> None:
        await self.http.aclose()
        self.store.close()


@functools.cache
def template(groups: int) -> Store:
    """A store holding `groups` groups with one client each, made at the start of a fresh example's clock."""
    store = Store(clock=SettableClock())
    for i in range(groups):
        store.create_client(store.create_group(f"Group {i}"))
    return store


class Seen:
    """What one group's client has been told of the ids the database numbered, and the labels that name them
    on either service (the same operations give the same labels)."""

    def __init__(self) -> None:
        self.players: list[str] = []
        self.games: list[int] = []
        self.labels: dict[str, str] = {}

    def name(self, raw: Any, label: str) -> None:
        self.labels[str(raw)] = label


async def step(api: Api, seen: Seen, op: tuple, number: int, foreign_player: str | None) -> Any:
    """Do one operation through `api`; its answer (ids named by `seen`'s labels later)."""
    kind = op[0]
    if kind == "player":
        answer = await api.post("players/player", params={"name": f"P{number}"})
        body = answer.json()
        if answer.status_code == 200:
            pid = body["success"][0]["id"]
            seen.players.append(pid)
            seen.name(pid, f"player P{number}")
        return body
    if kind in ("game", "bgg"):
        params = {"name": op[2]} if kind == "game" else {"bggId": str(op[2])}
        answer = await api.post("games/game", params=params)
        body = answer.json()
        if answer.status_code == 200:
            game = body["success"][0]
            if game["id"] not in seen.games:
                seen.games.append(game["id"])
            seen.name(game["id"], f"game {game['name']}")
            seen.name(f"g{game['id']}", f"subset {game['name']}")
        return body
    if kind == "match":
        _, _, who, game, external, day, dryrun = op
        chosen = [(seen.players[i] if i < len(seen.players) else foreign_player or f"nobody{i}") for i in who]
        match: dict[str, Any] = {
            "game": seen.games[game % len(seen.games)] if seen.games else NO_GAME,
            "weight": "normal",
            "date": f"2025-10-{day:02d} 20:00:00",
            "factions": [{"players": [p], "rank": r + 1} for r, p in enumerate(chosen)],
        }
        if external is not None:
            match["id"] = external
        params = {"dryrun": "1"} if dryrun else None
        return (await api.post("matches/match", params=params, json=[match])).json()
    raise AssertionError(kind)


async def everything(api: Api, seen: Seen) -> dict[str, Any]:
    """Every answer a client of the group can read, by endpoint."""
    out: dict[str, Any] = {}
    for path in (
        "games",
        "games/popular",
        "players",
        "matches",
        "matches/status",
        "subsets",
        "rankings/last",
        "quota",
        "status",
    ):
        out[path] = (await api.get(path)).json()
    for name in ("a", "Cas", "Catan"):
        out[f"games/search {name}"] = (await api.get("games/search", name=name)).json()
    for external in EXTERNAL_IDS:
        out[f"exists {external}"] = (await api.get("matches/match/exists", id=external)).json()
    for subset in out["subsets"].get("success", []):
        out[f"matches/{subset['name']}"] = (await api.get(f"matches/{subset['id']}")).json()
        out[f"rankings/{subset['name']}/last"] = (await api.get(f"rankings/{subset['id']}/last")).json()
    for page in out["matches"].get("success", {}).get("data", []):
        seen.name(f"match:{page['id']}", f"match {page['number']}")
    return out


def named(value: Any, labels: dict[str, str], key: str = "", in_match: bool = False) -> Any:
    """`value` with every id the database numbered replaced by its label: any value of an ``id``, and any
    other text that is one (a player's id, a subset's); never a count that happens to equal a row id. A
    match's id (the ``id`` of an object with a ``number``, or of a batch's outcome, with an ``index``) is
    looked up among the matches' labels only, and a match's label never names anything else: a match and a
    catalogue game may share a number."""
    if isinstance(value, dict):
        is_match = "number" in value or "index" in value
        return {k: named(v, labels, k, is_match and k == "id") for k, v in value.items()}
    if isinstance(value, list):
        return [named(v, labels, key) for v in value]
    if in_match:
        return labels.get(f"match:{value}", value)
    if isinstance(value, bool) or not isinstance(value, str | int) or str(value) not in labels:
        return value
    if key == "id" or (isinstance(value, str) and not value.isdigit()):
        return labels[str(value)]
    return value


def _plain(answer: Any) -> Any:
    """An answer without the ids the database numbered (compared whole once every endpoint was read and the
    ids are named): its codes, counts and names."""
    if isinstance(answer, dict):
        return {k: _plain(v) for k, v in answer.items() if k not in ("id", "message")}
    if isinstance(answer, list):
        return [_plain(v) for v in answer]
    return answer


async def scenario(ops: list[tuple]) -> None:
    clock = SettableClock()
    shared = Service(clock, template(GROUPS))
    alone = [Service(clock, template(1)) for _ in range(GROUPS)]
    try:
        seen_shared = [Seen() for _ in range(GROUPS)]
        seen_alone = [Seen() for _ in range(GROUPS)]
        seeded = [
            op
            for g in range(GROUPS)
            for op in (("player", g), ("player", g), ("player", g), ("game", g, "Brass"))
        ]
        for number, op in enumerate(seeded + ops):
            if op[0] == "foreign":  # a match of one group naming another group's player (or nobody's)
                _, group, step_over = op
                other = (group + step_over) % GROUPS
                victim = seen_shared[other].players[0] if seen_shared[other].players else "nobody"
                op = ("match", group, [0, 4], 0, None, 1, False)
            else:
                group, victim = op[1], "nobody"
            clock.advance(61)
            said = await step(shared.apis[group], seen_shared[group], op, number, victim)
            alone_said = await step(alone[group].apis[0], seen_alone[group], op, number, victim)
            if number < len(seeded) or (number % READ_EVERY and number != len(seeded) + len(ops) - 1):
                assert _plain(said) == _plain(alone_said), op
                continue
            shared_all = [await everything(api, s) for api, s in zip(shared.apis, seen_shared, strict=True)]
            alone_all = [await everything(s.apis[0], a) for s, a in zip(alone, seen_alone, strict=True)]
            assert named(said, seen_shared[group].labels) == named(alone_said, seen_alone[group].labels), op
            for g in range(GROUPS):
                got = named(shared_all[g], seen_shared[g].labels)
                expected = named(alone_all[g], seen_alone[g].labels)
                assert got == expected, (g, op, [k for k in got if got[k] != expected.get(k)])
    finally:
        for service in (shared, *alone):
            await service.close()


@settings(max_examples=examples(12), deadline=None)
@given(operations)
def test_each_group_of_a_shared_service_answers_as_a_service_holding_it_alone(ops: list[tuple]) -> None:
    asyncio.run(scenario(ops))


async def test_a_match_naming_another_group_s_game_or_player_is_refused(store: Store, clock) -> None:
    app = create_app(store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as http:
        apis = []
        for name in ("Ours", "Theirs"):
            group = store.create_group(name)
            apis.append(Api(http, *store.create_client(group)))
            await apis[-1].login()
        ours, theirs = apis
        mine = [await ours.player("Ann"), await ours.player("Bob")]
        their_player = await theirs.player("Eve")
        their_game = await theirs.game("Their own game")
        duel = {
            "weight": "normal",
            "factions": [{"players": [mine[0]], "rank": 1}, {"players": [mine[1]], "rank": 2}],
        }
        refused = await ours.add({**duel, "game": their_game})
        assert refused["acceptedCount"] == 0 and refused["rejected"][0]["errors"]
        game = await ours.game("Our own game")
        stolen = {
            **duel,
            "game": game,
            "factions": [{"players": [their_player], "rank": 1}, duel["factions"][1]],
        }
        refused = await ours.add(stolen)
        assert refused["acceptedCount"] == 0 and refused["rejected"][0]["errors"]
        assert (await ours.add({**duel, "game": game}))["acceptedCount"] == 1
        assert (await theirs.ok("matches/status"))["total"] == 0
        assert [p["id"] for p in (await theirs.ok("players"))["data"]] == [their_player]
