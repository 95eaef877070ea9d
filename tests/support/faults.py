"""A fault harness: put a service (in-process or over a socket) behind the failures of a game-night network.

`FaultyTransport` wraps any `httpx.AsyncBaseTransport` (an `ASGITransport` on the embedded service, or an
`AsyncHTTPTransport` to `rankterm serve`) and, for the requests it is told to disturb, injects:

- `RESET_BEFORE`: the connection drops before the request reaches the service (nothing recorded);
- `RESET_AFTER`: the service handles the request (and commits), then the connection drops before the answer;
- `TIMEOUT`: the service handles it, but the answer comes later than the client waits;
- `ERROR_500`: an R001 answer without the service seeing the request;
- `QUOTA_429`: a Q002 answer without the service seeing the request.

Faults come from a script (exact, for unit tests) or at random with a seeded generator (for soak tests).
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Iterable
from enum import StrEnum

import httpx


class Fault(StrEnum):
    RESET_BEFORE = "reset_before"
    RESET_AFTER = "reset_after"
    TIMEOUT = "timeout"
    ERROR_500 = "error_500"
    QUOTA_429 = "quota_429"


def _envelope(status: int, code: str, message: str) -> httpx.Response:
    return httpx.Response(status, json={"errors": [{"code": code, "message": message}]})


class FaultyTransport(httpx.AsyncBaseTransport):
    """Injects faults into the requests that `applies_to` selects (default: all but `auth`)."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        script: Iterable[Fault | None] = (),
        rate: float = 0.0,
        kinds: Iterable[Fault] = tuple(Fault),
        seed: int = 0,
        applies_to: Callable[[httpx.Request], bool] | None = None,
        slow_seconds: float = 0.0,
    ) -> None:
        self.inner = inner
        self.script = list(script)
        self.rate = rate
        self.kinds = list(kinds)
        self.rng = random.Random(seed)
        self.applies_to = applies_to or (lambda r: not r.url.path.rstrip("/").endswith("/auth"))
        self.slow_seconds = slow_seconds
        self.injected: Counter[Fault] = Counter()
        self.enabled = True
        self.down = False
        """While True, every request (auth included) fails as if the network were gone."""

    def _next_fault(self, request: httpx.Request) -> Fault | None:
        if not self.enabled or not self.applies_to(request):
            return None
        if self.script:
            return self.script.pop(0)
        if self.rate and self.rng.random() < self.rate:
            return self.rng.choice(self.kinds)
        return None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("network is unreachable (injected)", request=request)
        fault = self._next_fault(request)
        if fault is None:
            return await self.inner.handle_async_request(request)
        self.injected[fault] += 1
        if fault is Fault.RESET_BEFORE:
            raise httpx.ConnectError("connection reset by peer (injected)", request=request)
        if fault is Fault.ERROR_500:
            return _envelope(500, "R001", "injected failure")
        if fault is Fault.QUOTA_429:
            return _envelope(429, "Q002", "injected quota limit")
        response = await self.inner.handle_async_request(request)
        await response.aread()
        await response.aclose()
        if fault is Fault.TIMEOUT:
            if self.slow_seconds:
                await asyncio.sleep(self.slow_seconds)
            raise httpx.ReadTimeout("the answer came too late (injected)", request=request)
        raise httpx.ReadError("connection reset after the request was handled (injected)", request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()
