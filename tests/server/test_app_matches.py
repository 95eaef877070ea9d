"""New matches (every M-code), the match read side, match exists/status, subsets and match pages."""

from __future__ import annotations

import json

import pytest

from tests.wire_contract import (
    ANSWER_KEYS,
    FACTION_KEYS,
    GAME_KEYS,
    MATCH_KEYS,
    OUTCOME_KEYS,
    PAGE_KEYS,
    PLAYER_KEYS,
    STATUS_KEYS,
    SUBSET_KEYS,
)

from .conftest import Api, duel


@pytest.fixture
async def catan(api) -> int:
    return Api.payload(await api.post("games/game", params={"bggId": 13}))[0]["id"]


def faction(*players: str, rank: int, **extra) -> dict:
    return {"players": list(players), "rank": rank, **extra}


def match(game: int, *factions: dict, **extra) -> dict:
    return {"game": game, "weight": "normal", "factions": list(factions), **extra}


async def test_accepted_answer_shape_and_ids(api, catan, players3):
    a, b, _ = players3
    answer = await api.add(duel(catan, a, b, id="ext-1"), duel(catan, b, a))
    assert set(answer) == ANSWER_KEYS
    assert (answer["total"], answer["acceptedCount"], answer["rejectedCount"]) == (2, 2, 0)
    assert answer["rejected"] == []
    assert all(set(o) == OUTCOME_KEYS and o["errors"] == [] for o in answer["accepted"])
    assert [o["index"] for o in answer["accepted"]] == [0, 1]
    assert answer["accepted"][0]["id"] == "ext-1"
    assert [o["name"] for o in answer["accepted"]] == ["Catan", "Catan"]
    listed = (await api.ok("matches"))["data"]
    assert listed[0]["id"] == answer["accepted"][1]["id"]
    assert [m["externalId"] for m in listed] == ["", "ext-1"]


async def test_one_object_body_is_one_match(api, catan, players3):
    body = duel(catan, players3[0], players3[1])
    answer = Api.payload(await api.post("matches/match", json=body))
    assert answer["total"] == 1 and answer["acceptedCount"] == 1


async def test_the_match_as_read(api, catan, players3, clock):
    a, b, c = players3
    await api.add(
        match(
            catan,
            faction(a, rank=2, points="7", name="Red"),
            faction(b, c, rank=1, score=12.5),
            weight="heavy",
            notes="close one",
            id="night-1",
        )
    )
    page = await api.ok("matches")
    assert set(page) == PAGE_KEYS | {"totalMatches"}
    read = page["data"][0]
    assert set(read) == MATCH_KEYS
    assert set(read["game"]) == GAME_KEYS and read["game"]["id"] == catan
    assert read["number"] == 1 and isinstance(read["id"], str) and read["externalId"] == "night-1"
    assert read["date"] == read["registrationDate"] == "2026-05-28 20:26:40"
    assert (read["weight"], read["weightLabel"], read["notes"]) == ("heavy", "Heavy", "close one")
    assert read["type"] == "faction_vs_faction" and read["draw"] == 0
    assert read["summary"] == "*Bob, *Cy\nRed"
    first, second = read["factions"]
    assert set(first) == set(second) == FACTION_KEYS
    assert (first["rank"], first["points"], first["winner"], first["countPlayers"], first["bot"]) == (
        1,
        12.5,
        1,
        2,
        0,
    )
    assert (second["rank"], second["points"], second["winner"], second["name"]) == (2, 7, 0, "Red")
    assert all(set(p) == PLAYER_KEYS for f in read["factions"] for p in f["players"])
    assert [p["id"] for p in first["players"]] == [b, c]


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ([["A"], ["B"]], "player_vs_player"),
        ([["A"], ["B"], ["C"]], "multiplayer"),
        ([["A", "B"], ["C"]], "faction_vs_faction"),
        ([["A"], "bot"], "player_vs_bot"),
        ([["A", "B"], "bot"], "faction_vs_bot"),
        ([["A"], ["B"], "bot"], "faction_vs_bot"),
    ],
)
async def test_match_type_rule(api, catan, players3, shape, expected):
    ids = dict(zip("ABC", players3, strict=True))
    factions = [
        {"rank": i + 1, "bot": True} if side == "bot" else faction(*(ids[x] for x in side), rank=i + 1)
        for i, side in enumerate(shape)
    ]
    assert (await api.add(match(catan, *factions)))["acceptedCount"] == 1
    assert (await api.ok("matches"))["data"][0]["type"] == expected


async def test_bot_factions_in_every_wire_form(api, catan, players3):
    a = players3[0]
    await api.add(
        match(catan, faction(a, rank=1), {"players": ["bot"], "rank": 2, "score": 3, "name": "Virus"})
    )
    read = (await api.ok("matches"))["data"][0]
    bot = read["factions"][1]
    assert (bot["bot"], bot["players"], bot["countPlayers"], bot["name"], bot["points"]) == (
        1,
        [],
        0,
        "Virus",
        3,
    )
    ranking = await api.ok("rankings/last")
    assert [r["player"]["id"] for r in ranking["data"]] == [a]


async def test_draw_and_names(api, catan, players3):
    a, b, c = players3
    answer = await api.add(
        match(catan, faction(a, rank=1), faction(b, rank=1), name="default_2"),
        match(catan, faction(a, rank=1, name="Team A"), faction(b, c, rank=2), name="default_2"),
        match(catan, faction(a, rank=1), faction(b, rank=2), name="default_1"),
        match(catan, faction(a, rank=1), faction(b, rank=2), name="Grudge match"),
    )
    assert [o["name"] for o in answer["accepted"]] == [
        "*Ann vs *Bob",
        "Team A vs *Bob, *Cy",
        "Catan",
        "Grudge match",
    ]
    draws = [m["draw"] for m in reversed((await api.ok("matches"))["data"])]
    assert draws == [1, 0, 0, 0]


async def test_given_dates_and_numbers(api, catan, players3, clock):
    a, b, _ = players3
    await api.add(duel(catan, a, b, date="2025-12-24 18:00:00"), duel(catan, b, a, date="2025-12-25"))
    clock.advance(60)
    await api.add(duel(catan, a, b))
    data = (await api.ok("matches"))["data"]
    assert [m["number"] for m in data] == [3, 2, 1]
    assert [m["date"] for m in data] == ["2026-05-28 20:27:40", "2025-12-25 00:00:00", "2025-12-24 18:00:00"]
    assert [m["registrationDate"] for m in data] == ["2026-05-28 20:27:40"] + ["2026-05-28 20:26:40"] * 2


async def test_dry_run_saves_nothing(api, catan, players3):
    a, b, _ = players3
    for flag in ("1", "true"):
        answer = Api.payload(
            await api.post("matches/match", params={"dryrun": flag}, json=[duel(catan, a, b, id="dry")])
        )
        assert answer["dryrun"] == 1 and answer["acceptedCount"] == 1
        assert set(answer) == ANSWER_KEYS | {"dryrun"}
    assert (await api.ok("matches/status"))["total"] == 0
    assert (await api.ok("matches/match/exists", id="dry")) == {"exists": False}
    assert [s["id"] for s in await api.ok("subset")] == ["main"]
    assert (await api.ok("rankings/last"))["data"] == []
    rejected = await api.add(duel(catan, a, a), dryrun=True)
    assert rejected["rejected"][0]["errors"][0]["code"] == "M006"
    Api.check_error(await api.post("matches/match", params={"dryrun": "maybe"}, json=[]), "R003", 400)
    real = await api.add(duel(catan, a, b, id="dry"))
    assert "dryrun" not in real and real["acceptedCount"] == 1


@pytest.mark.parametrize(
    "body",
    [b"", b"{", b"[1,", b"[{'game': 1}]", b"\xff\xfe", b"[NaN]", b'{"a": Infinity}', b"[" * 100_000],
)
async def test_malformed_json_is_m001(api, body):
    response = await api.post("matches/match", content=body, headers={"Content-Type": "application/json"})
    Api.check_error(response, "M001", 400)
    assert (await api.ok("matches/status"))["total"] == 0


@pytest.mark.parametrize("body", [3, "match", None, True, []])
async def test_a_body_that_is_no_match_is_m002(api, body):
    response = await api.post(
        "matches/match", content=json.dumps(body), headers={"Content-Type": "application/json"}
    )
    Api.check_error(response, "M002", 400)


async def test_more_than_100_matches_is_m002_and_nothing_is_saved(api, catan, players3):
    a, b, _ = players3
    Api.check_error(await api.post("matches/match", json=[duel(catan, a, b)] * 101), "M002", 400)
    assert (await api.ok("matches/status"))["total"] == 0
    assert (await api.add(*[duel(catan, a, b)] * 100))["acceptedCount"] == 100


def _codes(answer: dict) -> list[list[str]]:
    return [[e["code"] for e in r["errors"]] for r in answer["rejected"]]


async def test_every_rejection_code(api, catan, players3):
    a, b, _ = players3
    cases = {
        "M002": [
            {"game": catan, "weight": "enormous", "factions": [faction(a, rank=1), faction(b, rank=2)]},
            match(catan, faction(a, rank=1), faction(b, rank=2), weight=None),
            match(catan, faction(a, rank=1, points="lots"), faction(b, rank=2)),
            match("abc", faction(a, rank=1), faction(b, rank=2)),
            {"game": catan, "weight": "normal", "factions": "everyone"},
            match(catan, faction(a, rank=1), faction(b, rank=2), date="yesterday"),
            "not a match",
            [1, 2],
        ],
        "M004": [
            match(99999, faction(a, rank=1), faction(b, rank=2)),
            match(None, faction(a, rank=1), faction(b, rank=2)),
        ],
        "M005": [match(catan, faction(a, rank=1), faction("NoSuchPlayr", rank=2))],
        "M006": [
            match(catan, faction(a, rank=1), faction(b, a, rank=2)),
            match(catan, faction(a, a, rank=1), faction(b, rank=2)),
        ],
        "M007": [
            match(catan, faction(a, b, rank=1)),
            match(catan, faction(a, rank=1), faction(rank=2)),
            match(catan),
        ],
        "M008": [
            match(catan, faction(a, rank=0), faction(b, rank=2)),
            match(catan, faction(a, rank=-1), faction(b, rank=2)),
            match(catan, faction(a, rank="first"), faction(b, rank=2)),
            match(catan, faction(a, rank=1.5), faction(b, rank=2)),
        ],
        "M009": [
            match(catan, faction(a, rank=1), {"players": [b], "rank": 2, "bot": True}),
            match(catan, faction(a, rank=1), {"rank": 2, "bot": True}, {"rank": 3, "bot": 1}),
        ],
    }
    for code, items in cases.items():
        answer = await api.add(*items)
        assert answer["acceptedCount"] == 0 and answer["rejectedCount"] == len(items), (code, answer)
        for outcome, codes in zip(answer["rejected"], _codes(answer), strict=True):
            assert code in codes, (code, outcome)
            assert all(set(e) == {"code", "message"} and e["message"] for e in outcome["errors"])
    assert (await api.ok("matches/status"))["total"] == 0
    assert (await api.ok("players"))["totalPlayers"] == 3


async def test_a_bad_match_does_not_reject_the_others(api, catan, players3):
    a, b, _ = players3
    answer = await api.add(duel(catan, a, b), duel(catan, a, a, id="bad", name="Oops"), duel(catan, b, a))
    assert [o["index"] for o in answer["accepted"]] == [0, 2]
    assert [(o["index"], o["id"], o["name"]) for o in answer["rejected"]] == [(1, "bad", "Oops")]
    assert (await api.ok("matches/status"))["total"] == 2


async def test_external_ids_are_unique_across_requests_and_within_a_batch(api, catan, players3):
    a, b, _ = players3
    first = await api.add(duel(catan, a, b, id="x1"), duel(catan, b, a, id="x1"), duel(catan, a, b, id=42))
    assert [o["id"] for o in first["accepted"]] == ["x1", "42"]
    assert _codes(first) == [["M003"]] and first["rejected"][0]["index"] == 1
    again = await api.add(duel(catan, a, b, id="x1"), duel(catan, a, b, id="42"), duel(catan, a, b, id="x2"))
    assert _codes(again) == [["M003"], ["M003"]]
    assert [o["id"] for o in again["accepted"]] == ["x2"]
    # A match rejected for another reason does not take its external id.
    third = await api.add(duel(catan, a, a, id="x3"), duel(catan, a, b, id="x3"))
    assert _codes(third) == [["M006"]] and third["accepted"][0]["id"] == "x3"


async def test_match_exists_and_status(api, catan, players3):
    a, b, _ = players3
    assert await api.ok("matches/match/exists", id="e1") == {"exists": False}
    await api.add(duel(catan, a, b, id="e1"), duel(catan, a, b))
    assert await api.ok("matches/match/exists", id="e1") == {"exists": True}
    await api.error("matches/match/exists", "R003", 400)
    await api.error("matches/match/exists", "R003", 400, id="  ")
    status = await api.ok("matches/status")
    assert set(status) == STATUS_KEYS
    assert status == {"queued": 0, "waiting": 0, "added": 0, "processed": 2, "total": 2}
    service = await api.ok("status")
    assert set(service) == STATUS_KEYS | {"status", "version", "serverTime"}
    assert service["status"] == "ok" and service["serverTime"] == "2026-05-28 20:26:40"
    assert service["total"] == 2


async def test_subsets_and_pages_of_matches(api, catan, players3):
    a, b, _ = players3
    wingspan = await api.game("Wingspan")
    await api.add(*[duel(catan, a, b) for _ in range(20)])
    await api.add(*[duel(wingspan, b, a) for _ in range(10)])
    subsets = {s["id"]: s for s in await api.ok("subsets")}
    assert await api.ok("subset") == list(subsets.values())
    assert list(subsets) == ["main", f"g{catan}", f"g{wingspan}"]
    assert all(set(s) == SUBSET_KEYS for s in subsets.values())
    main, catan_subset = subsets["main"], subsets[f"g{catan}"]
    assert (main["type"], main["isMain"], main["isCustom"], main["game"]) == ("main", 1, 0, None)
    assert main["countMatches"] == 30 and catan_subset["countMatches"] == 20
    assert (catan_subset["type"], catan_subset["isMain"], catan_subset["game"]["id"]) == ("game", 0, catan)
    assert set(main["firstMatch"]) == set(main["lastMatch"]) == MATCH_KEYS
    assert (main["firstMatch"]["number"], main["lastMatch"]["number"]) == (1, 30)
    assert (catan_subset["firstMatch"]["number"], catan_subset["lastMatch"]["number"]) == (1, 20)
    assert not any(s.isdigit() for s in subsets)

    page1, page2 = await api.ok("matches"), await api.ok("matches/2")
    assert await api.ok("matches/main/2") == page2
    assert (page1["totalMatches"], page1["totalPages"], page2["page"]) == (30, 2, 2)
    assert [m["number"] for m in page1["data"] + page2["data"]] == list(range(30, 0, -1))
    game_page = await api.ok(f"matches/g{wingspan}")
    assert game_page["totalMatches"] == 10 and game_page["totalPages"] == 1
    assert {m["game"]["id"] for m in game_page["data"]} == {wingspan}
    assert (await api.ok(f"matches/g{catan}/2"))["data"] == []
    await api.error("matches/nosuchsubset", "R002", 404)
    await api.error("matches/g99999/1", "R002", 404)
    await api.error("rankings/nosuchsubset/last", "R002", 404)
