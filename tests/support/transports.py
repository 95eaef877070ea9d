"""Two small httpx transports that wrap another (the embedded service in-process, or a real one) for tests:
`CountingTransport` notes the path of every request, `LateTransport` answers every request `delay` seconds late
(a slow café Wi-Fi), or holds the answers until the test lets them go. For the failures of a network, see `tests.support.faults`."""

from __future__ import annotations

import asyncio

import httpx


class CountingTransport(httpx.AsyncBaseTransport):
    """Notes the path of each request (without the leading and trailing "/") in `paths`."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path.strip("/"))
        return await self.inner.handle_async_request(request)

    def calls_to(self, prefix: str) -> int:
        """How many requests asked a path starting with `prefix` (e.g. "rankings")."""
        return sum(1 for path in self.paths if path.startswith(prefix))


class LateTransport(httpx.AsyncBaseTransport):
    """Answers every request `delay` seconds late (set `delay` at any time); while `answers` is cleared, a
    request is held until it is set again (a late answer that does not depend on how loaded the machine is)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, delay: float = 0.0) -> None:
        self.inner = inner
        self.delay = delay
        self.answers = asyncio.Event()
        self.answers.set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(self.delay)
        await self.answers.wait()
        return await self.inner.handle_async_request(request)
