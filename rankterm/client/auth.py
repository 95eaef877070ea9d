"""Tokens: read a JWT's expiry, and keep tokens in a small TOML cache between runs.

The cache is a file apart from the config (the user cache dir), written atomically with mode 0600. A token
is stored with the base URL and key it was issued for, and is never handed out for any other pair.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from rankterm.wire.errors import ConfigError

RENEW_MARGIN = 60.0
"""Seconds before `exp` at which a token is treated as expired and renewed."""


def token_expiry(token: str) -> float | None:
    """The `exp` claim of a JWT, read without verifying the signature (only the service can); None if absent.

    A JWT is three base64url parts joined by dots, the middle one a JSON object of claims (RFC 7519): read
    here without PyJWT, which loads `cryptography` for its algorithms, about 10 MB more for a seat on a
    remote service for as long as it runs (benchmarks/bench_memory.py), to read one number.
    """
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error):  # ValueError covers JSON and UTF-8 that does not decode
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, int | float) and not isinstance(exp, bool) else None


@dataclass(frozen=True, slots=True)
class Token:
    value: str
    expires_at: float | None

    @classmethod
    def parse(cls, value: str) -> Token:
        return cls(value, token_expiry(value))

    def fresh(self, now: float | None = None, margin: float = RENEW_MARGIN) -> bool:
        """True while the token is more than `margin` seconds from its expiry (no `exp`: trusted until refused)."""
        if self.expires_at is None:
            return True
        return self.expires_at - (time.time() if now is None else now) > margin


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (temp file, fsync, rename), readable by the owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sendable_token(value: str) -> bool:
    """Whether `value` can go in an Authorization header: visible ASCII, nothing else (a JWT is base64url
    and dots); a token of anything else is refused where it comes in, never at the next request."""
    return bool(value) and all("!" <= c <= "~" for c in value)


class TokenCache:
    """Tokens on disk, one per (base URL, key)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def _entries(self) -> list[dict]:
        try:
            data = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
            raise ConfigError(
                self.path, f"token cache unreadable ({exc}); delete it to start afresh"
            ) from exc
        tokens = data.get("tokens", [])
        return [t for t in tokens if isinstance(t, dict)] if isinstance(tokens, list) else []

    def load(self, base_url: str, key: str) -> Token | None:
        for entry in self._entries():
            if entry.get("base_url") == base_url and entry.get("key") == key and entry.get("token"):
                value = str(entry["token"])
                return Token.parse(value) if sendable_token(value) else None
        return None

    def save(self, base_url: str, key: str, token: Token | None) -> None:
        """Store (or, with None, forget) the token for this pair, keeping the others."""
        try:
            entries = self._entries()
        except ConfigError:
            entries = []
        entries = [e for e in entries if not (e.get("base_url") == base_url and e.get("key") == key)]
        if token is not None:
            entries.append({"base_url": base_url, "key": key, "token": token.value})
        with contextlib.suppress(
            OSError
        ):  # a cache: a read-only or full cache dir only costs a sign-in later
            write_private(self.path, tomli_w.dumps({"tokens": entries}))


class HeldToken(TokenCache):
    """A token cache in memory holding one token, never written to disk (the demo's client, whose token is
    minted in-process)."""

    def __init__(self, held: Token | None) -> None:
        self.held = held

    def load(self, base_url: str, key: str) -> Token | None:
        return self.held

    def save(self, base_url: str, key: str, token: Token | None) -> None:
        self.held = token
