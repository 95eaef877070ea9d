"""Rankings over HTTP: shapes, standings after match n against the latest, deltas, subsets, paging."""

from __future__ import annotations

import pytest

from rankterm.wire import rating
from tests.wire_contract import MATCH_KEYS, PLAYER_KEYS, RANKINGS_PAGE_KEYS, ROW_KEYS, SUBSET_KEYS

from .conftest import Api, duel

NEWCOMER = rating.ree(rating.initial_skill())


def _check_rows(rows: list[dict]) -> None:
    assert [r["position"] for r in rows] == list(range(rows[0]["position"], rows[0]["position"] + len(rows)))
    assert all(set(r) == ROW_KEYS and set(r["player"]) == PLAYER_KEYS for r in rows)
    rees = [r["ree"] for r in rows]
    assert rees == sorted(rees, reverse=True)
    assert all(r > 1000 for r in rees)


async def test_latest_standings_of_the_demo(demo_api):
    page = await demo_api.ok("rankings/last")
    assert set(page) == RANKINGS_PAGE_KEYS
    assert set(page["subset"]) == SUBSET_KEYS and page["subset"]["id"] == "main"
    assert set(page["match"]) == MATCH_KEYS and page["match"]["number"] == 300
    assert (page["page"], page["totalPages"], page["rowsForPage"]) == (1, 1, 25)
    assert page["subset"]["countMatches"] == 300
    rows = page["data"]
    assert len(rows) == 10
    _check_rows(rows)
    assert rows[0]["title"] == "emperor" and rows[0]["titleLabel"] == "Emperor"
    assert all(r["belt"] and r["beltLabel"] and r["status"] and r["statusLabel"] for r in rows)
    assert await demo_api.ok("rankings/main/last") == page
    assert await demo_api.ok("rankings/300") == page
    assert await demo_api.ok("rankings/99999999999999999999999") == page


async def test_standings_after_match_n_and_their_deltas(demo_api):
    before = {r["player"]["id"]: r for r in (await demo_api.ok("rankings/149"))["data"]}
    page = await demo_api.ok("rankings/150")
    assert page["match"]["number"] == 150
    after = page["data"]
    _check_rows(after)
    played = {p["id"] for f in page["match"]["factions"] for p in f["players"]}
    assert played
    for row in after:
        pid = row["player"]["id"]
        old = before.get(pid)
        if old is None:
            assert pid in played and row["deltaPosition"] == 0
            assert row["deltaRee"] == pytest.approx(row["ree"] - NEWCOMER, abs=0.011)
            continue
        assert row["deltaRee"] == pytest.approx(row["ree"] - old["ree"], abs=0.011)
        assert row["deltaPosition"] == old["position"] - row["position"]
        if pid not in played:
            assert row["ree"] == old["ree"] and row["deltaRee"] == 0
    latest = {r["player"]["id"]: r["ree"] for r in (await demo_api.ok("rankings/last"))["data"]}
    assert latest != {r["player"]["id"]: r["ree"] for r in after}


async def test_game_subsets_rank_after_their_own_last_match(demo_api):
    subsets = [s for s in await demo_api.ok("subsets") if s["type"] == "game"]
    assert len(subsets) == 8
    late = max(subsets, key=lambda s: s["firstMatch"]["number"])
    sid, first = late["id"], late["firstMatch"]["number"]
    assert first > 1
    empty = await demo_api.ok(f"rankings/{sid}/{first - 1}")
    assert (empty["data"], empty["match"]) == ([], None)
    assert empty["subset"] == late
    page = await demo_api.ok(f"rankings/{sid}/{late['lastMatch']['number'] - 1}")
    shown = page["match"]
    assert shown["game"]["id"] == late["game"]["id"] and shown["number"] < late["lastMatch"]["number"]
    assert await demo_api.ok(f"rankings/{sid}/{shown['number']}") == page
    _check_rows(page["data"])
    last = await demo_api.ok(f"rankings/{sid}/last")
    assert last["match"]["number"] == late["lastMatch"]["number"]


async def test_bots_are_rated_but_never_listed(demo_api):
    players = {p["id"] for p in (await demo_api.ok("players"))["data"]}
    for subset in await demo_api.ok("subsets"):
        rows = (await demo_api.ok(f"rankings/{subset['id']}/last"))["data"]
        assert rows and {r["player"]["id"] for r in rows} <= players


async def test_a_fresh_group_step_by_step(api, players3):
    a, b, c = players3
    game = await api.game("Chess")
    await api.add(duel(game, a, b), duel(game, c, a))
    one = (await api.ok("rankings/1"))["data"]
    assert [r["player"]["id"] for r in one] == [a, b]
    assert one[0]["deltaRee"] > 0 > one[1]["deltaRee"]
    assert [r["deltaPosition"] for r in one] == [0, 0]
    two = await api.ok("rankings/last")
    assert two["match"]["number"] == 2
    by_id = {r["player"]["id"]: r for r in two["data"]}
    assert set(by_id) == {a, b, c}
    assert by_id[b]["deltaRee"] == 0 and by_id[b]["ree"] == one[1]["ree"]
    assert by_id[a]["ree"] < one[0]["ree"]
    assert by_id[c]["deltaPosition"] == 0
    assert by_id[a]["deltaPosition"] == 1 - by_id[a]["position"]
    _check_rows(two["data"])
    game_page = await api.ok(f"rankings/g{game}/last")
    assert game_page["subset"]["id"] == f"g{game}" and game_page["data"] == two["data"]


async def test_rankings_pages(api):
    ids = [await api.player(f"P{i:02d}") for i in range(30)]
    game = await api.game("Party Game")
    factions = [{"players": [pid], "rank": i + 1} for i, pid in enumerate(ids)]
    assert (await api.add({"game": game, "weight": "normal", "factions": factions}))["acceptedCount"] == 1
    first, second = await api.ok("rankings/last"), await api.ok("rankings/last/2")
    assert await api.ok("rankings/main/last/2") == second
    assert await api.ok("rankings/1/2") == second
    assert (first["totalPages"], second["page"], len(first["data"]), len(second["data"])) == (2, 2, 25, 5)
    _check_rows(first["data"])
    _check_rows(second["data"])
    assert [r["position"] for r in second["data"]] == [26, 27, 28, 29, 30]
    assert [r["player"]["id"] for r in first["data"] + second["data"]] == ids
    assert (await api.ok("rankings/last/3"))["data"] == []


@pytest.mark.parametrize(
    "path", ["rankings/0", "rankings/-1", "rankings/main", "rankings/main/x", "rankings/last/0"]
)
async def test_bad_ranking_paths_are_r003(api, path):
    await api.error(path, "R003", 400)


async def test_rankings_of_an_empty_group(api):
    page = await api.ok("rankings/last")
    assert set(page) == RANKINGS_PAGE_KEYS
    assert (page["data"], page["match"]) == ([], None)
    Api.check_error(await api.get("rankings/g1/last"), "R002", 404)


async def test_unicode_digits_in_a_path_are_a_bad_request_not_a_crash(demo_api):
    # "¹".isdigit() is True but int("¹") fails: these once answered R001 500.
    for path in ("players/¹", "matches/main/²", "rankings/main/³", "rankings/main/last/٣"):
        await demo_api.error(path, "R003")
