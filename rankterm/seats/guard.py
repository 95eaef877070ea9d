"""Who may join by a join code, at a `rankterm host` table (SSH) or a `rankterm web` one (browsers): a new code
made to be read aloud, compared in constant time, typed as people type it (case and surrounding spaces aside),
and an address that gave too many wrong codes locked out for a while (five wrong codes, ten minutes)."""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable

from rankterm.wire.errors import RanktermError

WRONG_LIMIT, LOCKOUT_SECONDS = 5, 600
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a table


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
    ) -> None:
        self.code = code
        self.wrong_limit = wrong_limit
        self.lockout_seconds = lockout_seconds
        self.clock = clock
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
        return ok
