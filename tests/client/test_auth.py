"""Token expiry from the JWT, and the token cache's rules."""

import stat
import time

import jwt
import pytest

from rankterm.client.auth import Token, TokenCache, token_expiry
from rankterm.wire.errors import ConfigError


def test_expiry_read_without_the_key():
    exp = int(time.time()) + 100
    token = jwt.encode({"exp": exp}, "secret-only-the-service-knows" * 2, algorithm="HS256")
    assert token_expiry(token) == exp
    assert Token.parse(token).fresh() and not Token.parse(token).fresh(now=exp - 30)


def test_no_exp_or_garbage():
    assert token_expiry(jwt.encode({"sub": "x"}, "k" * 32, algorithm="HS256")) is None
    assert token_expiry("not-a-jwt") is None
    assert Token.parse("not-a-jwt").fresh()


def test_cache_keyed_by_url_and_key(tmp_path):
    cache = TokenCache(tmp_path / "sub" / "tokens.toml")
    cache.save("http://a/", "k", Token.parse("t1"))
    cache.save("http://b/", "k", Token.parse("t2"))
    cache.save("http://a/", "k", Token.parse("t3"))
    assert cache.load("http://a/", "k").value == "t3"
    assert cache.load("http://b/", "k").value == "t2"
    assert cache.load("http://a/", "other") is None
    assert stat.S_IMODE(cache.path.stat().st_mode) == 0o600
    cache.save("http://a/", "k", None)
    assert cache.load("http://a/", "k") is None and cache.load("http://b/", "k").value == "t2"


def test_corrupt_cache_is_a_clear_error_and_can_be_overwritten(tmp_path):
    path = tmp_path / "tokens.toml"
    path.write_text("tokens = [[[")
    cache = TokenCache(path)
    with pytest.raises(ConfigError) as info:
        cache.load("http://a/", "k")
    assert str(path) in str(info.value)
    cache.save("http://a/", "k", Token.parse("t"))
    assert cache.load("http://a/", "k").value == "t"


def test_token_expiry_reads_the_claims_without_a_jwt_library():
    """Read by hand: padding left off as JWTs do, odd inputs give None rather than an error."""
    for exp in (1_700_000_000, 1_700_000_001, 1_700_000_002):  # payload lengths that need 0, 1 and 2 "="
        token = jwt.encode({"exp": exp, "sub": "x" * (exp % 3)}, "k" * 32, algorithm="HS256")
        assert token_expiry(token) == exp
    assert token_expiry(jwt.encode({"exp": True}, "k" * 32, algorithm="HS256")) is None
    for odd in ("a.b.c", "a.!!!.c", "a.bnVsbA.c", "a.W10.c", "a." + "/w" + ".c", ""):
        assert token_expiry(odd) is None


def test_a_token_cache_that_cannot_be_written_costs_only_a_sign_in_later(tmp_path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache's folder would be", encoding="utf-8")
    cache = TokenCache(blocked / "tokens.toml")
    token = Token.parse(jwt.encode({"exp": 2_000_000_000}, "k" * 32, algorithm="HS256"))
    cache.save("http://svc/", "k", token)  # no exception: the token lives on in the client's memory
    assert not (blocked / "tokens.toml").exists()


def test_a_cached_token_no_header_can_carry_is_left_and_a_new_one_asked_for(tmp_path):
    path = tmp_path / "tokens.toml"
    path.write_text('[[tokens]]\nbase_url = "http://a/"\nkey = "k"\ntoken = "\\u0080abc"\n', encoding="utf-8")
    assert TokenCache(path).load("http://a/", "k") is None
