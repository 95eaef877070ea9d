"""Random and hostile answers (wrong types, missing keys, huge numbers, non-JSON, HTML) give a typed error.

Whatever comes back, every client method either returns its model or raises a RanktermError: never a
KeyError, TypeError, ValidationError or anything else a screen would show as a traceback.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.wire.errors import RanktermError
from tests.fake_service import make_token
from tests.support.examples import examples

TOKEN = make_token()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["1", "0", "2", "12%", "", "null", "page", "\x1b[2J"]),
)
KEYS = [
    "id",
    "name",
    "page",
    "totalPages",
    "data",
    "player",
    "ree",
    "rank",
    "factions",
    "players",
    "game",
    "exists",
    "token",
    "success",
    "errors",
    "code",
    "message",
    "accepted",
    "rejected",
    "index",
]
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)
    ),
    max_leaves=25,
)
bodies = st.one_of(
    json_values.map(lambda v: json.dumps({"success": v}).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=64),
    st.just(b"<html><head><title>502 Bad Gateway</title></head></html>"),
    st.just(b'{"success": '),
    st.just(b'{"errors": [{"code": 5}]}'),
)
statuses = st.sampled_from([200, 200, 200, 202, 400, 401, 403, 404, 429, 500, 502, 503])

METHODS = [
    lambda c: Group(c).games(refresh=True),
    lambda c: c.popular_games(),
    lambda c: c.search_games("cat"),
    lambda c: Group(c).create_game(name="X"),
    lambda c: Group(c).players_page(1),
    lambda c: Group(c).players(refresh=True),
    lambda c: Group(c).create_player("Zed"),
    lambda c: Group(c).matches_page(2, subset="main"),
    lambda c: Group(c).rankings_page(1, match=3),
    lambda c: Group(c).subsets(refresh=True),
    lambda c: c.match_exists("e1"),
    lambda c: c.match_status(),
    lambda c: c.quota(),
    lambda c: c.status(),
    lambda c: c.test(),
]


async def _exercise(status: int, body: bytes, auth_body: bytes | None) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/auth"):
            if auth_body is not None:
                return httpx.Response(status, content=auth_body)
            return httpx.Response(200, json={"success": {"token": TOKEN}})
        return httpx.Response(status, content=body)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = RankingClient("http://h.test/", key="k", secret="s", http=http, retries=0, backoff=0)
    for method in METHODS:
        try:
            await method(client)
        except RanktermError as exc:
            text = str(exc)
            assert text and "\n" not in text and "\x1b" not in text
    await http.aclose()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(status=statuses, body=bodies)
def test_any_answer_is_a_model_or_a_typed_error(status, body):
    asyncio.run(_exercise(status, body, None))


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(status=statuses, body=bodies)
def test_any_auth_answer_is_a_token_or_a_typed_error(status, body):
    asyncio.run(_exercise(status, body, body))


@pytest.mark.parametrize("token", ["\u0080", "tok en", "ab\ncd", "é.é.é", "\x00"])
def test_an_auth_answer_whose_token_no_header_can_carry_is_a_typed_error(token):
    asyncio.run(
        _exercise(200, json.dumps({"success": token}).encode(), json.dumps({"success": token}).encode())
    )
