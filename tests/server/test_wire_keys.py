"""Every answer of the embedded service carries exactly WIRE.md's keys: no more, no fewer.

A public client (rankade-py) builds its objects straight from the answer with keyword arguments, so a key
it does not know (``totalMatches`` on a rankings page) or a key it misses breaks it; it builds a whole Match
from a Subset's ``firstMatch`` and ``lastMatch``, so those are whole Matches wherever a Subset appears. Each
endpoint is read here over real HTTP (ASGI) and every object in its answer, nested ones included, is held to
its key set, taken from the read models (`tests.wire_contract`): Game, Player, Match, Faction (read side),
Ranking row, Subset, Quota, Match status, the new-match answer and its outcomes, the exists answer, the
service status, and the three kinds of page. Booleans go out as 0/1 (WIRE.md), so the flags are held to
that too.
"""

from __future__ import annotations

from rankterm.wire.models import QUOTA_FIELDS
from tests.wire_contract import (
    ANSWER_KEYS,
    ERROR_KEYS,
    MODEL_RANKINGS_PAGE_KEYS,
    PLAYERS_PAGE_KEYS,
    QUOTA_KEYS,
    RANKINGS_PAGE_KEYS,
    SERVICE_STATUS_KEYS,
    STATUS_KEYS,
    check_game,
    check_keys,
    check_matches_page,
    check_outcome,
    check_player,
    check_rankings_page,
    check_subset,
)

from .conftest import Api, duel


def test_the_key_sets_are_the_models_and_a_rankings_page_drops_only_the_count() -> None:
    assert set(QUOTA_FIELDS) == QUOTA_KEYS
    assert {"totalMatches"} == MODEL_RANKINGS_PAGE_KEYS - RANKINGS_PAGE_KEYS
    assert RANKINGS_PAGE_KEYS < MODEL_RANKINGS_PAGE_KEYS


async def test_lists_of_the_demo_have_exactly_the_wire_keys(demo_api: Api) -> None:
    games = await demo_api.ok("games")
    assert games
    for game in games + await demo_api.ok("games/popular") + await demo_api.ok("games/search", name="ca"):
        check_game(game)

    players = await demo_api.ok("players")
    check_keys(players, PLAYERS_PAGE_KEYS, "players page")
    assert players["data"] and players["totalPlayers"] == len(players["data"])
    for player in players["data"]:
        check_player(player)
    check_keys(await demo_api.ok("players/2"), PLAYERS_PAGE_KEYS, "players page 2")

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
        check_matches_page(page, path)
        assert page["data"]
        seen += page["data"]
    assert any(f["bot"] for m in seen for f in m["factions"]), "a bot faction was checked"


async def test_a_subsets_first_and_last_match_are_those_its_matches_pages_list(demo_api: Api) -> None:
    """Whole, and equal to what a page of matches gives: the newest of its first page, the oldest of its last."""
    for subset in await demo_api.ok("subsets"):
        newest = await demo_api.ok(f"matches/{subset['id']}")
        oldest = await demo_api.ok(f"matches/{subset['id']}/{newest['totalPages']}")
        assert subset["lastMatch"] == newest["data"][0], subset["id"]
        assert subset["firstMatch"] == oldest["data"][-1], subset["id"]


async def test_every_rankings_page_has_exactly_the_wire_keys(demo_api: Api) -> None:
    """The keys rankade-py's Rankings takes: page, totalPages, rowsForPage, data, subset, match."""
    subsets = await demo_api.ok("subsets")
    paths = ["rankings/last", "rankings/150", "rankings/main/last", "rankings/main/last/1", "rankings/last/2"]
    paths += [f"rankings/{s['id']}/last" for s in subsets]
    late = max((s for s in subsets if s["type"] == "game"), key=lambda s: s["firstMatch"]["number"])
    paths.append(f"rankings/{late['id']}/{late['firstMatch']['number'] - 1}")  # before its first: empty
    for path in paths:
        page = await demo_api.ok(path)
        check_rankings_page(page, path)
    assert page["match"] is None and page["data"] == []
    assert (await demo_api.ok("rankings/last"))["data"]
    for subset in subsets:  # the same whole Subset wherever it appears; its last match is the latest page's
        latest = await demo_api.ok(f"rankings/{subset['id']}/last")
        assert latest["subset"] == subset and latest["match"] == subset["lastMatch"], subset["id"]


async def test_answers_of_a_fresh_group_have_exactly_the_wire_keys(api: Api) -> None:
    check_matches_page(await api.ok("matches"), "empty matches page")
    check_keys(await api.ok("players"), PLAYERS_PAGE_KEYS, "empty players page")
    empty = await api.ok("rankings/last")
    check_rankings_page(empty)
    assert (empty["match"], empty["data"]) == (None, [])
    no_match = empty["subset"]
    assert (no_match["countMatches"], no_match["firstMatch"], no_match["lastMatch"]) == (0, None, None)

    created_game = await api.post("games/game", params={"name": "Catan"})
    [game] = api.payload(created_game)
    check_game(game)
    check_game(api.payload(await api.post("games/game", params={"bggId": "13"}))[0])
    [ann] = api.payload(await api.post("players/player", params={"name": "Ann"}))
    check_player(ann)
    assert ann["displayName"].startswith("*") and ann["username"] == "" and ann["ghost"] == 1
    bob = await api.player("Bob")

    answer = await api.add(duel(game["id"], ann["id"], bob, id="x1"), duel(game["id"], ann["id"], "nobody"))
    check_keys(answer, ANSWER_KEYS, "new-match answer")
    assert (answer["acceptedCount"], answer["rejectedCount"]) == (1, 1)
    for outcome in answer["accepted"] + answer["rejected"]:
        check_outcome(outcome)
    assert answer["rejected"][0]["errors"]
    dry = await api.add(duel(game["id"], bob, ann["id"]), dryrun=True)
    check_keys(dry, ANSWER_KEYS | {"dryrun"}, "dry-run answer")
    assert dry["dryrun"] == 1
    again = await api.add(duel(game["id"], ann["id"], bob, id="x1"))
    check_keys(again, ANSWER_KEYS, "answer with a duplicate")
    check_outcome(again["rejected"][0])
    assert [e["code"] for e in again["rejected"][0]["errors"]] == ["M003"]

    check_keys(await api.ok("matches/match/exists", id="x1"), {"exists"}, "exists answer")
    check_keys(await api.ok("matches/status"), STATUS_KEYS, "match status")
    check_keys(await api.ok("status"), SERVICE_STATUS_KEYS, "service status")
    quota = await api.ok("quota")
    check_keys(quota, QUOTA_KEYS, "quota")
    assert all(isinstance(v, str) and v.endswith("%") for v in quota.values())

    check_rankings_page(await api.ok("rankings/last"))
    one = await api.ok(f"rankings/g{game['id']}/1")
    check_rankings_page(one)
    assert one["subset"]["firstMatch"] == one["subset"]["lastMatch"] == one["match"]  # its only match
    check_matches_page(await api.ok("matches"))
    for subset in await api.ok("subsets"):
        check_subset(subset)


async def test_auth_test_and_errors_have_exactly_their_keys(http, credentials) -> None:
    _, key, secret = credentials
    token = await http.get("auth", params={"key": key, "secret": secret})
    check_keys(Api.payload(token), {"token"}, "auth answer")
    check_keys(Api.payload(await http.get("test")), {"test"}, "test answer")
    for response in (
        await http.get("auth", params={"key": key, "secret": "wrong"}),
        await http.get("games"),
        await http.get("nowhere"),
    ):
        body = response.json()
        check_keys(body, {"errors"}, "error envelope")
        for error in body["errors"]:
            check_keys(error, ERROR_KEYS, "error")
