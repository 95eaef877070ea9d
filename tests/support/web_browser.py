"""A browser on `rankterm web`'s server served in-process (aiohttp's test server, no seat started: its program
is `true`), for tests of who it lets in and what its page says."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from aiohttp.test_utils import TestClient, TestServer

from rankterm.seats.web_server import SeatServer, seat_server


@contextlib.asynccontextmanager
async def browser_on(
    *,
    host: str = "127.0.0.1",
    join_code: str | None = None,
    set_up: Callable[[SeatServer], object] | None = None,
) -> AsyncIterator[TestClient]:
    """A client of a seat server listening (as it says) on `host`, with `join_code`; `set_up` sees the server
    before its app is made."""
    server = seat_server("true", host=host, port=8765, join_code=join_code, title="rankterm demo")
    if set_up is not None:
        set_up(server)
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()
