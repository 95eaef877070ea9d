"""Players and games endpoints: exact wire shapes, paging, creation in every form, search and popularity."""

from __future__ import annotations

import re

import pytest

from tests.wire_contract import GAME_KEYS, PAGE_KEYS, PLAYER_KEYS

from .conftest import Api, duel

NASTY_NAMES = [
    "Robert'); DROP TABLE players; --",
    'O\'Brien "the" Brave',
    "\x1b[31mred\x1b[0m\x07",
    "Zoë 🎲 Ñandú",
    "%_\\ LIKE * ? ;",
    "تست",
]


async def test_create_player_answers_one_ghost(api):
    payload = Api.payload(await api.post("players/player", params={"name": "Ann"}))
    assert isinstance(payload, list) and len(payload) == 1
    player = payload[0]
    assert set(player) == PLAYER_KEYS
    assert re.fullmatch(r"[A-Za-z0-9]{11}", player["id"])
    assert player["ghost"] == 1 and player["username"] == "" and player["icon"] == ""
    assert player["displayName"] == "*Ann"


async def test_create_player_reads_query_form_and_json(api):
    await api.post("players/player", params={"name": "Query"})
    await api.post("players/player", data={"name": "Form"})
    await api.post("players/player", json={"name": "Json"})
    names = [p["displayName"] for p in (await api.ok("players"))["data"]]
    assert names == ["*Form", "*Json", "*Query"]


@pytest.mark.parametrize("name", [None, "", "   ", "x" * 51])
async def test_bad_player_names_are_r003(api, name):
    params = {"name": name} if name is not None else None
    Api.check_error(await api.post("players/player", params=params), "R003", 400)
    assert (await api.ok("players"))["totalPlayers"] == 0


async def test_a_json_body_that_is_not_json_is_r003_for_a_player(api):
    response = await api.post(
        "players/player", content=b"{nope", headers={"Content-Type": "application/json"}
    )
    Api.check_error(response, "R003", 400)


async def test_names_are_stored_verbatim_and_never_break_anything(api):
    ids = [await api.player(name) for name in NASTY_NAMES]
    assert len(set(ids)) == len(NASTY_NAMES)
    listed = {p["id"]: p["displayName"] for p in (await api.ok("players"))["data"]}
    assert listed == {pid: "*" + name for pid, name in zip(ids, NASTY_NAMES, strict=True)}
    game = await api.game("Robert'); DROP TABLE games; --")
    answer = await api.add(duel(game, ids[0], ids[1], name="'; DELETE FROM matches; --", notes="\x00\x1b[2J"))
    assert answer["acceptedCount"] == 1
    assert answer["accepted"][0]["name"] == "'; DELETE FROM matches; --"
    match = (await api.ok("matches"))["data"][0]
    assert match["notes"] == "\x00\x1b[2J"
    assert match["game"]["name"] == "Robert'); DROP TABLE games; --"
    assert match["summary"] == "*" + NASTY_NAMES[0] + "\n*" + NASTY_NAMES[1]
    assert (await api.ok("players"))["totalPlayers"] == len(NASTY_NAMES)


async def test_players_are_paged_by_name(api):
    names = [f"P{i:02d}" for i in range(30)]
    for name in reversed(names):
        await api.player(name)
    first = await api.ok("players")
    second = await api.ok("players/2")
    for page in (first, second):
        assert set(page) == PAGE_KEYS | {"totalPlayers"}
        assert page["totalPlayers"] == 30 and page["totalPages"] == 2 and page["rowsForPage"] == 25
        assert all(set(p) == PLAYER_KEYS for p in page["data"])
    assert first["page"] == 1 and second["page"] == 2
    shown = [p["displayName"] for p in first["data"] + second["data"]]
    assert shown == ["*" + n for n in names]
    assert len(first["data"]) == 25 and len(second["data"]) == 5
    third = await api.ok("players/3")
    assert third["data"] == [] and third["totalPlayers"] == 30


async def test_players_sort_ignoring_case(api):
    for name in ("bob", "Anna", "alice", "Bea"):
        await api.player(name)
    assert [p["displayName"] for p in (await api.ok("players"))["data"]] == [
        "*alice",
        "*Anna",
        "*Bea",
        "*bob",
    ]


@pytest.mark.parametrize("page", ["0", "-1", "x", "1.5", "99999999999"])
async def test_bad_pages_are_r003(api, page):
    await api.error(f"players/{page}", "R003", 400)
    await api.error(f"matches/main/{page}", "R003", 400)
    await api.error(f"rankings/last/{page}", "R003", 400)


async def test_search_is_case_and_accent_insensitive(api):
    for query in ("CATAN", "catan", "atan"):
        found = await api.ok("games/search", name=query)
        assert found and all(set(g) == GAME_KEYS for g in found)
        assert found[0]["name"] == "Catan"
        assert all("catan" in g["name"].lower() for g in found)
    cafe = [g["name"] for g in await api.ok("games/search", name="cafe international")]
    assert "Café International" in cafe
    assert [g["name"] for g in await api.ok("games/search", name="CAFÉ INTERNATIONAL")] == cafe
    assert await api.ok("games/search", name="zzzzqqqq") == []


@pytest.mark.parametrize("name", [None, "", "a", " b "])
async def test_search_needs_two_characters(api, name):
    params = {"name": name} if name is not None else {}
    await api.error("games/search", "R003", 400, **params)


async def test_search_finds_the_groups_own_games_only_in_that_group(api, store):
    await api.game("Our Homebrew Quest")
    assert [g["name"] for g in await api.ok("games/search", name="homebrew")] == ["Our Homebrew Quest"]
    other = store.create_group("Others")
    stranger = Api(api.http, *store.create_client(other))
    await stranger.login()
    assert await stranger.ok("games/search", name="homebrew") == []


async def test_create_game_by_name_or_bgg_id_is_idempotent(api):
    created = Api.payload(await api.post("games/game", params={"name": "Kitchen Table Wars"}))
    assert len(created) == 1 and set(created[0]) == GAME_KEYS
    game = created[0]
    assert isinstance(game["id"], int) and game["bggIdGame"] is None
    assert game["weight"] == "normal" and game["weightLabel"] == "Normal"
    again = Api.payload(await api.post("games/game", data={"name": "  KITCHEN table wárs "}))
    assert again == [game]
    catan = Api.payload(await api.post("games/game", json={"bggId": 13}))[0]
    assert catan["name"] == "Catan" and catan["bggIdGame"] == 13
    assert Api.payload(await api.post("games/game", params={"bggId": "13"}))[0] == catan
    assert Api.payload(await api.post("games/game", params={"name": "catan"}))[0] == catan


async def test_create_game_with_an_unknown_bgg_id(api):
    Api.check_error(await api.post("games/game", params={"bggId": 987654321}), "R002", 404)
    game = Api.payload(await api.post("games/game", params={"bggId": 987654321, "name": "Obscure"}))[0]
    assert game["bggIdGame"] == 987654321 and game["name"] == "Obscure"
    assert Api.payload(await api.post("games/game", params={"bggId": 987654321}))[0] == game


@pytest.mark.parametrize(
    "params", [None, {"name": ""}, {"bggId": "abc"}, {"bggId": "-3"}, {"name": "x" * 101}]
)
async def test_bad_game_requests_are_r003(api, params):
    Api.check_error(await api.post("games/game", params=params), "R003", 400)


async def test_games_lists_only_games_with_a_match(api, players3):
    catan = Api.payload(await api.post("games/game", params={"bggId": 13}))[0]
    await api.game("Unplayed Homebrew")
    assert await api.ok("games") == []
    await api.add(duel(catan["id"], players3[0], players3[1]))
    assert await api.ok("games") == [catan]


async def test_popular_puts_the_groups_most_played_first(api, players3):
    wingspan = await api.game("Wingspan")
    homebrew = await api.game("Homebrew")
    catalogue_first = (await api.ok("games/popular"))[0]
    assert set(catalogue_first) == GAME_KEYS
    await api.add(duel(homebrew, players3[0], players3[1]))
    await api.add(*[duel(wingspan, players3[0], players3[1]) for _ in range(2)])
    popular = await api.ok("games/popular")
    assert [g["id"] for g in popular[:2]] == [wingspan, homebrew]
    assert popular[2] == catalogue_first or catalogue_first["id"] in (wingspan, homebrew)
    assert len({g["id"] for g in popular}) == len(popular)
