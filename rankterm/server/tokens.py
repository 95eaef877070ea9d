"""Credentials of API clients and the JWTs the service hands out for them.

Secrets are stored only as scrypt hashes. Tokens are HS256 JWTs signed with the service's own key, minted
here by hand and remembered once verified, so PyJWT is imported only for a token of another process.
See docs/design/server.md.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import string
from dataclasses import dataclass
from functools import cache

from rankterm.server.wire import MAX_ID, Fault

ALGORITHM = "HS256"
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}
_ALPHABET = string.ascii_letters + string.digits


def random_id(length: int = 11) -> str:
    """`length` random letters and digits (player ids, client keys)."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def new_secret() -> str:
    """A fresh client secret (about 190 bits)."""
    return secrets.token_urlsafe(24)


def hash_secret(secret: str) -> str:
    """The stored form of a secret: scrypt with a random salt, its parameters written beside it."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, dklen=32, maxmem=64 * 1024 * 1024, **_SCRYPT)
    return f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${salt.hex()}${digest.hex()}"


def check_secret(secret: str, stored: str) -> bool:
    """True when `secret` is the one `stored` was made from (constant-time comparison)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        actual = hashlib.scrypt(
            secret.encode(),
            salt=bytes.fromhex(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(digest) // 2,
            maxmem=64 * 1024 * 1024,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual.hex(), digest)


@cache
def dummy_hash() -> str:
    """A stored hash that no secret matches: checked for an unknown key so timing tells nothing."""
    return hash_secret(new_secret())


def new_signing_key() -> bytes:
    """A fresh HS256 signing key."""
    return secrets.token_bytes(32)


@dataclass(frozen=True, slots=True)
class Claims:
    """Who a valid token speaks for."""

    client_id: int
    group_id: int
    issued_at: int
    expires_at: int
    client_key: str = ""
    """The client's key, which is never given again: a client purged with its group whose ids SQLite gives
    to a new group and client (it reuses the highest) is not the new one."""


_HEADER = b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
"""``{"alg":"HS256","typ":"JWT"}`` in base64url, as PyJWT writes the header (sorted keys, no spaces)."""


def mint(
    key: bytes, client_id: int, group_id: int, now: float, ttl: int, not_before: int = 0, client_key: str = ""
) -> str:
    """A signed token for `client_id` of `group_id` (whose key is `client_key`), valid `ttl` seconds from
    `now` (an HS256 JWT, as ``jwt.encode`` would write it), remembered as verified. It is said issued at
    `not_before` when that is later (less than a second, just after the client's secret was rotated: the
    tokens of that second are refused)."""
    issued = max(int(now), not_before)
    claims = {
        "sub": str(client_id),
        "grp": group_id,
        "key": client_key,
        "iat": issued,
        "exp": issued + int(ttl),
    }
    payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = _HEADER + b"." + payload
    signature = _b64(hmac.new(key, signing_input, hashlib.sha256).digest())
    token = (signing_input + b"." + signature).decode("ascii")
    _remember(key, token, Claims(client_id, group_id, issued, issued + int(ttl), client_key))
    return token


def _b64(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


_REFUSED = "Authentication required: the token is missing, invalid or expired."


VERIFIED_KEPT = 4096
"""Verified tokens remembered at most; past it the memory starts afresh."""

_verified: dict[tuple[bytes, str], Claims] = {}


def verify(key: bytes, token: str, now: float) -> Claims:
    """The claims of a token this service signed and that has not expired; `Fault` A002 otherwise."""
    claims = _verified.get((key, token))
    if claims is None:
        claims = _signed_claims(key, token)
        _remember(key, token, claims)
    if now >= claims.expires_at:
        raise Fault("A002", "Authentication required: the token has expired.")
    return claims


def _remember(key: bytes, token: str, claims: Claims) -> None:
    if len(_verified) >= VERIFIED_KEPT:
        _verified.clear()
    _verified[(key, token)] = claims


def _signed_claims(key: bytes, token: str) -> Claims:
    """The claims of a token signed with `key` (HS256, every claim present and an integer); `Fault` A002 otherwise."""
    import jwt  # only for a token this process did not mint (see the module's docstring)

    try:
        header = jwt.get_unverified_header(token)
        if header.get("alg") != ALGORITHM:
            raise Fault("A002", _REFUSED)
        payload = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            options={
                "require": ["sub", "grp", "key", "iat", "exp"],
                "verify_exp": False,
                "verify_iat": False,
                "verify_nbf": False,
            },
        )
        client_id = int(payload["sub"])
        group_id = payload["grp"]
        issued, expires, client_key = payload["iat"], payload["exp"], payload["key"]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (group_id, issued, expires)):
            raise Fault("A002", _REFUSED)
        if not (0 < client_id <= MAX_ID and 0 < group_id <= MAX_ID) or not isinstance(client_key, str):
            raise Fault("A002", _REFUSED)
    except (jwt.PyJWTError, ValueError, TypeError, KeyError):
        raise Fault("A002", _REFUSED) from None
    return Claims(client_id, group_id, issued, expires, client_key)
