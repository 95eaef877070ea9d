"""How many sign-in tries (``GET auth``) an address, and a key, may make: a leaky bucket each, kept in memory.

A try takes a unit from both buckets before the secret is hashed (scrypt); one that succeeds gives both
back. An empty bucket refuses at once, unhashed (A003, 429, ``Retry-After``). See docs/design/server.md.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

from rankterm.server.wire import Fault

BURST = 20
"""Sign-in tries an address (or a key) may make at once."""

REFILL = 3.0
"""Seconds after which one more try is allowed: twenty a minute, once the burst is spent."""

KEPT = 10_000
"""Buckets of one kind kept at most."""

CODE = "A003"


@dataclass
class _Bucket:
    units: float
    at: float


class _Buckets:
    """One leaky bucket per name (an address, or a key)."""

    def __init__(self, burst: int, refill: float) -> None:
        self.burst = burst
        self.refill = refill
        self.buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def _level(self, name: str, now: float) -> _Bucket:
        bucket = self.buckets.get(name)
        if bucket is None:
            self._make_room(now)
            bucket = self.buckets[name] = _Bucket(float(self.burst), now)
        else:
            self.buckets.move_to_end(name)
            gained = max(0.0, now - bucket.at) / self.refill
            bucket.units = min(float(self.burst), bucket.units + gained)
            bucket.at = now
        return bucket

    def _make_room(self, now: float) -> None:
        if len(self.buckets) < KEPT:
            return
        full = [n for n, b in self.buckets.items() if b.units + (now - b.at) / self.refill >= self.burst]
        for name in full:
            del self.buckets[name]
        while len(self.buckets) >= KEPT:
            self.buckets.popitem(last=False)

    def wait(self, name: str, now: float) -> float:
        """Seconds until `name` may try again (0: now)."""
        bucket = self._level(name, now)
        return 0.0 if bucket.units >= 1 else (1 - bucket.units) * self.refill

    def take(self, name: str, now: float) -> None:
        self._level(name, now).units -= 1

    def give_back(self, name: str, now: float) -> None:
        bucket = self._level(name, now)
        bucket.units = min(float(self.burst), bucket.units + 1)


class SignInThrottle:
    """The sign-in buckets of one service: `admit` before the hash, `succeeded` after a good secret."""

    def __init__(self, burst: int = BURST, refill: float = REFILL) -> None:
        self._addresses = _Buckets(burst, refill)
        self._keys = _Buckets(burst, refill)
        self._lock = threading.Lock()

    def admit(self, address: str, key: str, now: float) -> None:
        """Take a try from `address`'s and `key`'s buckets; `Fault` A003 (nothing taken) when either is empty."""
        with self._lock:
            wait = max(self._addresses.wait(address, now), self._keys.wait(key, now))
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                raise Fault(
                    CODE,
                    f"Too many sign-in tries; try again in {seconds} second{'s' if seconds != 1 else ''}.",
                    retry_after=seconds,
                )
            self._addresses.take(address, now)
            self._keys.take(key, now)

    def succeeded(self, address: str, key: str, now: float) -> None:
        """Give back the try `admit` took: the secret was right."""
        with self._lock:
            self._addresses.give_back(address, now)
            self._keys.give_back(key, now)
