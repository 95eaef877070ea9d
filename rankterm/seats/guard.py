"""Who may join by a join code, at a `rankterm host` table (SSH) or a `rankterm web` one (browsers): a new code
made to be read aloud, compared in constant time, typed as people type it (case and surrounding spaces aside),
and an address that gave too many wrong codes locked out for a while (five wrong codes, ten minutes). What it
remembers is bounded, so that a script cannot make it grow: the wrong tries of at most `MAX_PEERS` addresses,
and at most `MAX_SESSIONS` browsers let in, the least recently seen forgotten first."""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable

from rankterm.wire.errors import RanktermError

WRONG_LIMIT, LOCKOUT_SECONDS = 5, 600
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a table
MAX_PEERS = 10_000
MAX_SESSIONS = 1_000


def new_join_code(length: int = 8) -> str:
    """A random code of `length` letters and digits that read unambiguously aloud (about 40 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def check_join_code(code: str) -> str:
    """A join code given by hand (`--join-code`), stripped; one sentence when it is not 4 to 64 letters and
    digits."""
    code = code.strip()
    if not (4 <= len(code) <= 64 and code.isascii() and code.isalnum()):
        raise RanktermError("--join-code must be 4 to 64 letters and digits.")
    return code


class JoinCodeGuard:
    """The join code and the wrong tries of each address, over every connection of one server."""

    def __init__(
        self,
        code: str,
        *,
        wrong_limit: int = WRONG_LIMIT,
        lockout_seconds: float = LOCKOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        max_peers: int = MAX_PEERS,
    ) -> None:
        self.code = code
        self.wrong_limit = wrong_limit
        self.lockout_seconds = lockout_seconds
        self.clock = clock
        self.max_peers = max_peers
        self.wrong: dict[str, list[float]] = {}

    def locked(self, peer: str) -> bool:
        """True while `peer` has given `wrong_limit` wrong codes in the last `lockout_seconds`."""
        now = self.clock()
        recent = [t for t in self.wrong.get(peer, []) if now - t < self.lockout_seconds]
        if recent:
            self.wrong[peer] = recent
        else:
            self.wrong.pop(peer, None)
        return len(recent) >= self.wrong_limit

    def try_code(self, peer: str, given: str) -> bool:
        """Whether `given` is the code, for `peer`; a locked-out address is refused even the right one, and a
        wrong code counts against its address."""
        if self.locked(peer):
            return False
        ok = hmac.compare_digest(given.strip().upper().encode(), self.code.upper().encode())
        if not ok:
            self.wrong.setdefault(peer, []).append(self.clock())
            if len(self.wrong) > self.max_peers:
                self._forget_peers()
        return ok

    def _forget_peers(self) -> None:
        """The tries that no longer count, then, past `max_peers` addresses still, the oldest addresses' (such
        an address may try again: at this many addresses its five tries matter less than the memory)."""
        now = self.clock()
        for peer in [p for p, times in self.wrong.items() if now - times[-1] >= self.lockout_seconds]:
            del self.wrong[peer]
        for peer in list(self.wrong)[: max(0, len(self.wrong) - self.max_peers)]:
            del self.wrong[peer]


class Admitted:
    """The browsers let in by the code, each by the token of its session cookie: at most `limit` of them, the
    least recently seen forgotten first (it types the code again)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self.tokens: OrderedDict[str, None] = OrderedDict()

    def admit(self) -> str:
        """A new token, remembered."""
        token = secrets.token_urlsafe(24)
        self.tokens[token] = None
        while len(self.tokens) > self.limit:
            self.tokens.popitem(last=False)
        return token

    def knows(self, token: object) -> bool:
        """Whether `token` is one this table gave and still remembers; seeing it makes it the most recent."""
        if not isinstance(token, str) or token not in self.tokens:
            return False
        self.tokens.move_to_end(token)
        return True
