"""Quota over HTTP: the payload, its rounding, every Q-code with tiny limits, buckets and per-client counts;
the limits the host keeps in the database, per client, unlimited ones, and when a refusal ends (Retry-After)."""

from __future__ import annotations

import calendar
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

import pytest

from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits, parse_settings, percent
from rankterm.wire.models import QUOTA_FIELDS

from .conftest import Api, _client, duel

BIG = QuotaLimits(*([10**6] * 9))


@pytest.fixture
async def limited(store, credentials):
    """A factory of logged-in clients of an app with the given limits (others generous)."""
    _, key, secret = credentials
    opened = []

    async def make(**limits: int) -> Api:
        http = _client(create_app(store, limits=replace(BIG, **limits)))
        opened.append(http)
        api = Api(await http.__anext__(), key, secret)
        await api.login()
        return api

    yield make
    for http in opened:
        await http.aclose()


def test_percentages_round_up_but_100_means_reached():
    assert [percent(n, 3) for n in range(5)] == ["0%", "34%", "67%", "100%", "100%"]
    assert percent(1, 100_000) == "1%"
    assert percent(999, 1000) == "99%"
    assert percent(0, 0) == "100%"


async def test_quota_payload_keys_in_wire_order(api):
    quota = await api.ok("quota")
    assert list(quota) == list(QUOTA_FIELDS)
    assert all(isinstance(v, str) and v.endswith("%") for v in quota.values())
    assert quota["callsPerHour"] == "1%" and quota["matchesPerYear"] == "0%"


async def test_calls_per_hour_q002_and_the_next_hour(limited, clock):
    api = await limited(calls_per_hour=3)
    assert (await api.ok("quota"))["callsPerHour"] == "34%"
    assert (await api.ok("quota"))["callsPerHour"] == "67%"
    assert (await api.ok("quota"))["callsPerHour"] == "100%"
    await api.error("quota", "Q002", 429)
    await api.error("games", "Q002", 429)
    clock.advance(3600)
    await api.login()
    quota = await api.ok("quota")
    assert quota["callsPerHour"] == "34%"
    assert quota["callsPerYear"] == "1%"


async def test_calls_per_year_q001(limited):
    api = await limited(calls_per_year=2)
    await api.ok("games")
    await api.ok("players")
    await api.error("games", "Q001", 429)
    await api.error("quota", "Q001", 429)
    assert (await api.http.get("test")).status_code == 200
    assert (await api.http.get("auth", params={"key": api.key, "secret": api.secret})).status_code == 200


async def test_refused_and_unauthorised_calls_are_not_counted(limited, store, credentials):
    limits = replace(BIG, calls_per_year=10, calls_per_hour=2)
    api = await limited(calls_per_year=10, calls_per_hour=2)
    await api.ok("games")
    await api.ok("games")
    await api.error("games", "Q002", 429)
    await api.http.get("games")
    await api.http.get("auth", params={"key": api.key, "secret": api.secret})
    assert store.quota(1, limits).calls_per_year == "20%"


@pytest.mark.parametrize(
    ("limit", "code"),
    [("matches_per_year", "Q003"), ("matches_per_day", "Q004"), ("matches_per_hour", "Q005")],
)
async def test_matches_quota_refuses_the_whole_batch(limited, limit, code):
    api = await limited(**{limit: 3})
    a, b = await api.player("A"), await api.player("B")
    game = await api.game("Chess")
    assert (await api.add(duel(game, a, b), duel(game, b, a)))["acceptedCount"] == 2
    response = await api.post("matches/match", json=[duel(game, a, b, id="over1"), duel(game, a, b)])
    Api.check_error(response, code, 429)
    assert (await api.ok("matches/status"))["total"] == 2
    assert await api.ok("matches/match/exists", id="over1") == {"exists": False}
    assert (await api.add(duel(game, a, b), duel(game, a, a)))["acceptedCount"] == 1
    assert (await api.add(duel(game, a, b), dryrun=True))["acceptedCount"] == 1
    quota = await api.ok("quota")
    field = QUOTA_FIELDS[int(code[1:]) - 1]
    assert quota[field] == "100%"
    Api.check_error(await api.post("matches/match", json=[duel(game, a, b)]), code, 429)


@pytest.mark.parametrize(
    ("limit", "code"),
    [
        ("ranking_calls_per_year", "Q006"),
        ("ranking_calls_per_day", "Q007"),
        ("ranking_calls_per_hour", "Q008"),
    ],
)
async def test_ranking_calls_quota(limited, limit, code):
    api = await limited(**{limit: 2})
    await api.ok("rankings/last")
    await api.ok("rankings/main/last")
    await api.error("rankings/last", code, 429)
    assert (await api.ok("quota"))[QUOTA_FIELDS[int(code[1:]) - 1]] == "100%"
    assert (await api.ok("games")) == []


async def test_created_games_quota_q009(limited):
    api = await limited(api_created_games=1)
    await api.game("Homebrew One")
    assert (await api.ok("quota"))["apiCreatedGames"] == "100%"
    await api.game("homebrew one")
    Api.payload(await api.post("games/game", params={"bggId": 13}))
    Api.check_error(await api.post("games/game", params={"name": "Homebrew Two"}), "Q009", 429)
    assert await api.ok("games/search", name="homebrew two") == []


@pytest.fixture
def other_client(store, credentials) -> tuple[str, str]:
    """(key, secret) of a second client of the same group."""
    return store.create_client(credentials[0])


async def _logged_in(http, key: str, secret: str) -> Api:
    api = Api(http, key, secret)
    await api.login()
    return api


@asynccontextmanager
async def _both_logged_in(store, credentials, other_client) -> AsyncIterator[tuple[Api, Api]]:
    """The group's first client and `other_client`, logged in to an app on `store` with the limits it keeps."""
    async for http in _client(create_app(store)):
        yield await _logged_in(http, *credentials[1:]), await _logged_in(http, *other_client)


async def test_each_client_has_its_own_counters(limited, other_client):
    api = await limited(calls_per_hour=1)
    await api.ok("games")
    await api.error("games", "Q002", 429)
    other = await _logged_in(api.http, *other_client)
    assert await other.ok("games") == []


async def test_each_client_has_the_limits_the_host_kept_for_it(store, credentials, other_client):
    store.set_quota(parse_settings("callsPerHour=4"))
    store.set_quota(parse_settings("callsPerHour=2"), other_client[0])
    async with _both_logged_in(store, credentials, other_client) as (api, other):
        assert (await api.ok("quota"))["callsPerHour"] == "25%"
        assert (await other.ok("quota"))["callsPerHour"] == "50%"
        await other.ok("games")
        await other.error("games", "Q002", 429)
        for _ in range(3):
            await api.ok("games")
        await api.error("games", "Q002", 429)


async def test_an_unlimited_client_is_never_refused_and_its_usage_reads_0(store, credentials, other_client):
    _, key, secret = credentials
    store.set_quota(parse_settings("calls=1,matches=1,rankingCalls=1,apiCreatedGames=1"))
    store.set_quota(parse_settings("unlimited"), key)
    async with _both_logged_in(store, credentials, other_client) as (api, other):
        a, b = await api.player("A"), await api.player("B")
        games = [await api.game(name) for name in ("Azul", "Brass", "Catan")]
        for game in games:
            assert (await api.add(duel(game, a, b), duel(game, b, a)))["acceptedCount"] == 2
            await api.ok("rankings/last")
        assert set((await api.ok("quota")).values()) == {"0%"}
        await other.ok("games")
        await other.error("games", "Q001", 429)
    mine = store.authenticate(key, secret).id
    with store._read() as conn:
        assert (
            conn.execute("SELECT count(*) FROM quota_counters WHERE client_id = ?", (mine,)).fetchone()[0]
            == 0
        )


@pytest.mark.parametrize(
    ("limit", "code"), [("calls_per_hour", "Q002"), ("calls_per_year", "Q001"), ("api_created_games", "Q009")]
)
async def test_a_refusal_says_when_its_period_ends(limited, clock, limit, code):
    api = await limited(**{limit: 1})
    await api.game("Homebrew")
    response = await api.post("games/game", params={"name": "Homebrew Two"})
    Api.check_error(response, code, 429)
    now = int(clock())
    if code == "Q002":
        assert response.headers["retry-after"] == str(3600 - now % 3600)
    elif code == "Q001":
        next_year = calendar.timegm((time.gmtime(now).tm_year + 1, 1, 1, 0, 0, 0))
        assert response.headers["retry-after"] == str(next_year - now)
    else:
        assert "retry-after" not in response.headers  # a lifetime count never ends
