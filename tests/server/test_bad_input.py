"""Bad input gets a clear 4xx on both engines, never R001: lone surrogates, ids past 64 bits, dates out of
range, a token whose subject is 30 digits, names with no character that shows. Nothing is written."""

from __future__ import annotations

import json

import jwt
import pytest

from tests.server.conftest import duel


def _json(value: object) -> dict:
    return {"content": json.dumps(value), "headers": {"Content-Type": "application/json"}}


async def _count(api) -> int:
    return (await api.ok("matches/status"))["total"]


@pytest.fixture
async def game(api) -> int:
    return await api.game("Go")


@pytest.mark.parametrize(
    "where",
    ["match name", "faction name", "notes"],
)
async def test_a_lone_surrogate_in_a_match_is_m001_and_nothing_is_written(api, players3, game, where):
    match = duel(game, players3[0], players3[1])
    if where == "match name":
        match["name"] = "Go \ud800"
    elif where == "faction name":
        match["factions"][0]["name"] = "\udfff"
    else:
        match["notes"] = "a\udc00b"
    for dry in (1, 0):
        response = await api.post("matches/match", params={"dryrun": dry}, **_json([match]))
        message = api.check_error(response, "M001", 400)
        assert "lone surrogate" in message
    assert await _count(api) == 0


async def test_a_surrogate_pair_is_text_and_accepted(api, players3, game):
    answer = await api.add(duel(game, players3[0], players3[1], name="Go \U0001f3b2"))
    assert answer["acceptedCount"] == 1


@pytest.mark.parametrize("path", ["players/player", "games/game"])
async def test_a_lone_surrogate_in_a_player_or_game_name_is_r003(api, path):
    response = await api.post(path, **_json({"name": "Ann\ud83d"}))
    assert "lone surrogate" in api.check_error(response, "R003", 400)
    assert (await api.ok("players"))["data"] == []


@pytest.mark.parametrize("game_id", [2**63 - 1, 2**63, 2**64, 10**30])
async def test_a_game_id_past_64_bits_is_m004_not_a_failure(api, players3, game_id):
    for dry in (True, False):
        answer = await api.add(duel(game_id, players3[0], players3[1]), dryrun=dry)
        assert [e["code"] for e in answer["rejected"][0]["errors"]] == ["M004"]
    assert await _count(api) == 0


async def test_a_player_id_past_64_bits_is_m005(api, players3, game):
    answer = await api.add(duel(game, players3[0], str(2**64)))
    assert [e["code"] for e in answer["rejected"][0]["errors"]] == ["M005"]


async def test_a_bgg_id_past_64_bits_is_r003(api):
    response = await api.post("games/game", **_json({"bggId": 2**64}))
    assert api.check_error(response, "R003", 400) == "bggId must be a positive integer."


@pytest.mark.parametrize("date", ["0001-01-01", "0001-01-01 00:00", "1899-12-31 23:59:59"])
async def test_a_date_before_1900_is_m002_with_a_sentence(api, players3, game, date):
    for dry in (True, False):
        answer = await api.add(duel(game, players3[0], players3[1], date=date), dryrun=dry)
        [error] = answer["rejected"][0]["errors"]
        assert error == {
            "code": "M002",
            "message": "The date is before 1900-01-01: no match is dated that early.",
        }
    assert await _count(api) == 0


async def test_the_last_date_of_the_calendar_is_in_the_future(api, players3, game):
    answer = await api.add(duel(game, players3[0], players3[1], date="9999-12-31 23:59:59"))
    assert [e["code"] for e in answer["rejected"][0]["errors"]] == ["M010"]


@pytest.mark.parametrize("claims", [{"sub": "1" * 30}, {"sub": str(2**63)}, {"grp": 10**30}, {"sub": "0"}])
async def test_a_signed_token_naming_an_id_past_64_bits_is_a002(api, store, credentials, claims):
    now = int(store.clock())
    body = {"sub": "1", "grp": credentials[0], "key": credentials[1], "iat": now, "exp": now + 600, **claims}
    token = jwt.encode(body, store.signing_key, algorithm="HS256")
    response = await api.http.get("players", headers={"Authorization": f"Bearer {token}"})
    api.check_error(response, "A002", 403)


@pytest.mark.parametrize("name", ["\u200b\u200d", " \u0301 ", "\u3164", "\u2800\u00ad", "\u202e\u2066"])
@pytest.mark.parametrize("path", ["players/player", "games/game"])
async def test_a_name_with_no_character_that_shows_is_refused_like_an_empty_one(api, path, name):
    response = await api.post(path, params={"name": name})
    message = api.check_error(response, "R003", 400)
    assert message.endswith("this one has no character that shows.")
    assert (await api.ok("players"))["data"] == []


async def test_a_name_with_one_character_that_shows_is_taken(api):
    assert await api.player("\u200bZ\u200b")
