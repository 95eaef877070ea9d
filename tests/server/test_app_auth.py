"""Envelope, routing, tokens and every A…/R… error of the embedded service, over HTTP."""

from __future__ import annotations

import base64
import json

import jwt
import pytest

from rankterm.server.app import create_app
from rankterm.server.store import Store

from .conftest import Api, _client

PROTECTED = [
    "games",
    "games/popular",
    "games/search?name=catan",
    "players",
    "players/2",
    "matches",
    "matches/2",
    "matches/main/1",
    "matches/match/exists?id=x",
    "matches/status",
    "rankings/last",
    "rankings/main/last/1",
    "subset",
    "subsets",
    "quota",
    "status",
]


async def test_test_endpoint_needs_no_token(http):
    response = await http.get("test")
    assert response.status_code == 200
    assert response.json() == {"success": {"test": "ok"}}


async def test_auth_returns_a_token_with_the_documented_claims(api, credentials, store, clock):
    group, _, _ = credentials
    claims = jwt.decode(api.token, store.signing_key, algorithms=["HS256"], options={"verify_exp": False})
    assert set(claims) == {"sub", "grp", "key", "iat", "exp"}
    assert claims["grp"] == group
    assert claims["iat"] == int(clock.now)
    assert claims["exp"] - claims["iat"] == 3600
    assert jwt.get_unverified_header(api.token)["alg"] == "HS256"


async def test_token_ttl_is_configurable(store, credentials):
    _, key, secret = credentials
    async for http in _client(create_app(store, token_ttl=60)):
        token = (await http.get("auth", params={"key": key, "secret": secret})).json()["success"]["token"]
        claims = jwt.decode(token, options={"verify_signature": False})
        assert claims["exp"] - claims["iat"] == 60


@pytest.mark.parametrize(
    ("key", "secret"), [("nobody", "x"), ("KEY", "wrong"), ("KEY", "SECRET" + "x"), ("KEY ", "SECRET")]
)
async def test_bad_credentials_are_a001(http, credentials, key, secret):
    _, real_key, real_secret = credentials
    key = key.replace("KEY", real_key)
    secret = secret.replace("SECRET", real_secret)
    response = await http.get("auth", params={"key": key, "secret": secret})
    Api.check_error(response, "A001", 401)


@pytest.mark.parametrize("params", [{}, {"key": "k"}, {"secret": "s"}, {"key": "", "secret": ""}])
async def test_missing_credentials_are_r003(http, params):
    Api.check_error(await http.get("auth", params=params), "R003", 400)


@pytest.mark.parametrize("path", PROTECTED)
async def test_every_protected_endpoint_refuses_a_missing_token(http, credentials, path):
    Api.check_error(await http.get(path), "A002", 403)


@pytest.mark.parametrize("path", ["games/game", "players/player", "matches/match"])
async def test_protected_writes_refuse_a_missing_token(http, credentials, path):
    Api.check_error(await http.post(path, params={"name": "x"}, json=[]), "A002", 403)


async def test_every_protected_endpoint_answers_with_a_token(api):
    for path in PROTECTED:
        response = await api.http.get(path, headers=api.headers)
        assert response.status_code == 200, (path, response.text)
        assert set(response.json()) == {"success"}


def _forge(claims: dict, header: dict) -> str:
    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    return f"{part(header)}.{part(claims)}."


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
async def test_expired_forged_and_foreign_tokens_are_a002(api, store, credentials, clock):
    group, key, _ = credentials
    other_group = store.create_group("Others")
    other_key, _ = store.create_client(other_group)
    other_client = store.client(2)
    assert other_client is not None and other_client.key == other_key
    now = int(clock.now)
    good = {"sub": "1", "grp": group, "key": key, "iat": now, "exp": now + 600}
    signed_by_hand = jwt.encode(good, store.signing_key, algorithm="HS256")
    assert (
        await api.http.get("games", headers={"Authorization": f"Bearer {signed_by_hand}"})
    ).status_code == 200
    tokens = {
        "no client key": jwt.encode(
            {k: v for k, v in good.items() if k != "key"}, store.signing_key, algorithm="HS256"
        ),
        "another client's key": jwt.encode({**good, "key": other_key}, store.signing_key, algorithm="HS256"),
        "no claims": jwt.encode({}, store.signing_key, algorithm="HS256"),
        "wrong key": jwt.encode(good, b"k" * 32, algorithm="HS256"),
        "alg none": _forge(good, {"alg": "none", "typ": "JWT"}),
        "alg HS512": jwt.encode(good, store.signing_key, algorithm="HS512"),
        "expired": jwt.encode({**good, "exp": now - 1}, store.signing_key, algorithm="HS256"),
        "other group": jwt.encode({**good, "grp": other_group}, store.signing_key, algorithm="HS256"),
        "unknown client": jwt.encode({**good, "sub": "99"}, store.signing_key, algorithm="HS256"),
        "sub not a number": jwt.encode({**good, "sub": "x"}, store.signing_key, algorithm="HS256"),
        "tampered": api.token[:-3] + ("AAA" if not api.token.endswith("AAA") else "BBB"),
        "garbage": "not-a-jwt",
    }
    for name, token in tokens.items():
        response = await api.http.get("games", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 403, name
        Api.check_error(response, "A002", 403)
    for header in ({"Authorization": api.token}, {"Authorization": "Basic " + api.token}):
        Api.check_error(await api.http.get("games", headers=header), "A002", 403)
    # The genuine token still works, then expires with the clock.
    assert (await api.get("games")).status_code == 200
    clock.advance(3600)
    Api.check_error(await api.get("games"), "A002", 403)


async def test_a_disabled_client_cannot_authenticate_and_its_tokens_stop(api, store, credentials):
    _, key, secret = credentials
    assert (await api.get("games")).status_code == 200
    store.set_client_disabled(key)
    Api.check_error(await api.get("games"), "A002", 403)
    Api.check_error(await api.http.get("auth", params={"key": key, "secret": secret}), "A001", 401)
    store.set_client_disabled(key, False)
    assert (await api.get("games")).status_code == 200


async def test_a_group_sees_only_its_own_data(api, store):
    await api.player("Mine")
    other = store.create_group("Others")
    key, secret = store.create_client(other)
    stranger = Api(api.http, key, secret)
    await stranger.login()
    assert (await stranger.ok("players"))["totalPlayers"] == 0
    assert (await api.ok("players"))["totalPlayers"] == 1


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "BREW"])
async def test_unknown_paths_are_r002_for_any_method(api, method):
    for path in ("nope", "", "games/nope/deeper", "players/1/2", "matches/main/1/2", "rankings", "auth/x"):
        response = await api.http.request(method, path, headers=api.headers)
        assert response.status_code == 404, (method, path)
        if method != "HEAD":
            Api.check_error(response, "R002", 404)


async def test_a_known_path_with_the_wrong_method_is_r002(api):
    Api.check_error(await api.get("players/player"), "R002", 404)
    Api.check_error(await api.get("matches/match"), "R002", 404)
    Api.check_error(await api.post("games"), "R002", 404)
    Api.check_error(await api.http.post("auth", params={"key": "k", "secret": "s"}), "R002", 404)


async def test_an_unexpected_exception_is_r001_and_never_a_traceback(api, store, monkeypatch, caplog):
    def boom(*args, **kw):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(Store, "games", boom)
    response = await api.get("games")
    message = Api.check_error(response, "R001", 500)
    assert "secret internals" not in response.text and "Traceback" not in response.text
    assert message
    assert any("secret internals" in r.getMessage() or r.exc_info for r in caplog.records)


async def test_bodies_over_the_limit_are_refused_before_reading(store, credentials):
    _, key, secret = credentials
    async for http in _client(create_app(store, max_body=1000)):
        api = Api(http, key, secret)
        await api.login()
        big = b'{"name": "' + b"x" * 2000 + b'"}'
        response = await http.post(
            "players/player", content=big, headers={**api.headers, "Content-Type": "application/json"}
        )
        Api.check_error(response, "R003", 413)

        async def chunks():
            for _ in range(20):
                yield b" " * 100

        response = await http.post("matches/match", content=chunks(), headers=api.headers)
        Api.check_error(response, "R003", 413)
        assert (await api.ok("players"))["totalPlayers"] == 0
        assert (await api.ok("matches/status"))["total"] == 0
