"""Every answer of the embedded service carries exactly WIRE.md's keys: no more, no fewer.

A public client (rankade-py) builds its objects straight from the answer with keyword arguments, so a key
it does not know (``totalMatches`` on a rankings page) or a key it misses breaks it. Each endpoint is read
here over real HTTP (ASGI) and every object in its answer, nested ones included, is held to its key set:
Game, Player, Match, Faction (read side), Ranking row, Subset, Quota, Match status, the new-match answer
and its outcomes, the exists answer, the service status, and the three kinds of page.
Booleans go out as 0/1 (WIRE.md), so the flags are held to that too.
"""

from __future__ import annotations

from typing import Any

from rankterm.api.models import QUOTA_FIELDS

from .conftest import (
    ANSWER_KEYS,
    FACTION_KEYS,
    GAME_KEYS,
    MATCH_KEYS,
    MATCH_REF_KEYS,
    MATCHES_PAGE_KEYS,
    OUTCOME_KEYS,
    PLAYER_KEYS,
    PLAYERS_PAGE_KEYS,
    RANKINGS_PAGE_KEYS,
    ROW_KEYS,
    SERVICE_STATUS_KEYS,
    STATUS_KEYS,
    SUBSET_KEYS,
    Api,
    duel,
)


def _keys(obj: Any, expected: set[str], what: str) -> None:
    assert isinstance(obj, dict), (what, obj)
    assert set(obj) == expected, (what, "extra:", set(obj) - expected, "missing:", expected - set(obj))


def _flag(value: Any, what: str) -> None:
    assert type(value) is int and value in (0, 1), (what, value)


def check_game(game: Any) -> None:
    _keys(game, GAME_KEYS, "game")
    assert type(game["id"]) is int
    assert game["bggIdGame"] is None or type(game["bggIdGame"]) is int


def check_player(player: Any) -> None:
    _keys(player, PLAYER_KEYS, "player")
    _flag(player["ghost"], "player.ghost")


def check_match(match: Any) -> None:
    _keys(match, MATCH_KEYS, "match")
    _flag(match["draw"], "match.draw")
    check_game(match["game"])
    assert match["factions"]
    for faction in match["factions"]:
        _keys(faction, FACTION_KEYS, "faction")
        _flag(faction["winner"], "faction.winner")
        _flag(faction["bot"], "faction.bot")
        assert faction["countPlayers"] == len(faction["players"])
        for player in faction["players"]:
            check_player(player)


def check_subset(subset: Any) -> None:
    _keys(subset, SUBSET_KEYS, "subset")
    _flag(subset["isMain"], "subset.isMain")
    _flag(subset["isCustom"], "subset.isCustom")
    if subset["game"] is not None:
        check_game(subset["game"])
    for end in ("firstMatch", "lastMatch"):
        if subset[end] is not None:
            _keys(subset[end], MATCH_REF_KEYS, f"subset.{end}")


def check_row(row: Any) -> None:
    _keys(row, ROW_KEYS, "ranking row")
    check_player(row["player"])


def check_rankings_page(page: Any) -> None:
    _keys(page, RANKINGS_PAGE_KEYS, "rankings page")
    check_subset(page["subset"])
    if page["match"] is not None:
        check_match(page["match"])
    for row in page["data"]:
        check_row(row)


def check_outcome(outcome: Any) -> None:
    _keys(outcome, OUTCOME_KEYS, "match outcome")
    for error in outcome["errors"]:
        _keys(error, {"code", "message"}, "match outcome error")


async def test_lists_of_the_demo_have_exactly_the_wire_keys(demo_api: Api) -> None:
    games = await demo_api.ok("games")
    assert games
    for game in games + await demo_api.ok("games/popular") + await demo_api.ok("games/search", name="ca"):
        check_game(game)

    players = await demo_api.ok("players")
    _keys(players, PLAYERS_PAGE_KEYS, "players page")
    assert players["data"] and players["totalPlayers"] == len(players["data"])
    for player in players["data"]:
        check_player(player)
    _keys(await demo_api.ok("players/2"), PLAYERS_PAGE_KEYS, "players page 2")

    subsets = await demo_api.ok("subsets")
    assert await demo_api.ok("subset") == subsets
    assert {s["type"] for s in subsets} == {"main", "game"}
    for subset in subsets:
        check_subset(subset)

    first = await demo_api.ok("matches")
    paths = [f"matches/{n}" for n in range(1, first["totalPages"] + 1)] + [f"matches/{subsets[1]['id']}"]
    seen = []
    for path in paths:
        page = await demo_api.ok(path)
        _keys(page, MATCHES_PAGE_KEYS, path)
        assert page["data"]
        for match in page["data"]:
            check_match(match)
        seen += page["data"]
    assert any(f["bot"] for m in seen for f in m["factions"]), "a bot faction was checked"


async def test_every_rankings_page_has_exactly_the_wire_keys(demo_api: Api) -> None:
    """The keys rankade-py's Rankings takes: page, totalPages, rowsForPage, data, subset, match."""
    subsets = await demo_api.ok("subsets")
    paths = ["rankings/last", "rankings/150", "rankings/main/last", "rankings/main/last/1", "rankings/last/2"]
    paths += [f"rankings/{s['id']}/last" for s in subsets]
    late = max((s for s in subsets if s["type"] == "game"), key=lambda s: s["firstMatch"]["number"])
    paths.append(f"rankings/{late['id']}/{late['firstMatch']['number'] - 1}")  # before its first: empty
    for path in paths:
        page = await demo_api.ok(path)
        check_rankings_page(page)
    assert page["match"] is None and page["data"] == []
    assert (await demo_api.ok("rankings/last"))["data"]


async def test_answers_of_a_fresh_group_have_exactly_the_wire_keys(api: Api) -> None:
    _keys(await api.ok("matches"), MATCHES_PAGE_KEYS, "empty matches page")
    _keys(await api.ok("players"), PLAYERS_PAGE_KEYS, "empty players page")
    empty = await api.ok("rankings/last")
    check_rankings_page(empty)
    assert (empty["match"], empty["data"]) == (None, [])

    created_game = await api.post("games/game", params={"name": "Catan"})
    [game] = api.payload(created_game)
    check_game(game)
    check_game(api.payload(await api.post("games/game", params={"bggId": "13"}))[0])
    [ann] = api.payload(await api.post("players/player", params={"name": "Ann"}))
    check_player(ann)
    assert ann["displayName"].startswith("*") and ann["username"] == "" and ann["ghost"] == 1
    bob = await api.player("Bob")

    answer = await api.add(duel(game["id"], ann["id"], bob, id="x1"), duel(game["id"], ann["id"], "nobody"))
    _keys(answer, ANSWER_KEYS, "new-match answer")
    assert (answer["acceptedCount"], answer["rejectedCount"]) == (1, 1)
    for outcome in answer["accepted"] + answer["rejected"]:
        check_outcome(outcome)
    assert answer["rejected"][0]["errors"]
    dry = await api.add(duel(game["id"], bob, ann["id"]), dryrun=True)
    _keys(dry, ANSWER_KEYS | {"dryrun"}, "dry-run answer")
    assert dry["dryrun"] == 1
    again = await api.add(duel(game["id"], ann["id"], bob, id="x1"))
    _keys(again, ANSWER_KEYS, "answer with a duplicate")
    check_outcome(again["rejected"][0])
    assert [e["code"] for e in again["rejected"][0]["errors"]] == ["M003"]

    _keys(await api.ok("matches/match/exists", id="x1"), {"exists"}, "exists answer")
    _keys(await api.ok("matches/status"), STATUS_KEYS, "match status")
    _keys(await api.ok("status"), SERVICE_STATUS_KEYS, "service status")
    quota = await api.ok("quota")
    _keys(quota, set(QUOTA_FIELDS), "quota")
    assert all(isinstance(v, str) and v.endswith("%") for v in quota.values())

    check_rankings_page(await api.ok("rankings/last"))
    check_rankings_page(await api.ok(f"rankings/g{game['id']}/1"))
    for match in (await api.ok("matches"))["data"]:
        check_match(match)
    for subset in await api.ok("subsets"):
        check_subset(subset)


async def test_auth_test_and_errors_have_exactly_their_keys(http, credentials) -> None:
    _, key, secret = credentials
    token = await http.get("auth", params={"key": key, "secret": secret})
    _keys(Api.payload(token), {"token"}, "auth answer")
    _keys(Api.payload(await http.get("test")), {"test"}, "test answer")
    for response in (
        await http.get("auth", params={"key": key, "secret": "wrong"}),
        await http.get("games"),
        await http.get("nowhere"),
    ):
        body = response.json()
        _keys(body, {"errors"}, "error envelope")
        for error in body["errors"]:
            _keys(error, {"code", "message"}, "error")
