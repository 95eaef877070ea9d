"""`rankterm web` on loopback (no join code: only this machine reaches it) answers only requests that name
this machine (127.0.0.1, localhost, ::1). A page elsewhere that has its own name point at 127.0.0.1 (DNS
rebinding) gets nothing: not the page, and not a seat's websocket, whose Origin would otherwise match the
Host it names.

Tried by hand before: a request naming `evil.example` got the page (200), and its websocket with that Origin
opened a seat (101): any website the host's owner visited could record into the group."""

from __future__ import annotations

import asyncio
import os

import aiohttp
import pytest

from tests.support.web_host import web


async def answers(port: int) -> dict[str, int]:
    """The status of the page and of the websocket's handshake for requests naming each host."""
    said: dict[str, int] = {}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        for name in ("127.0.0.1", "localhost", "[::1]", "evil.example", "127.0.0.1.evil.example"):
            host = f"{name}:{port}"
            async with session.get(f"http://127.0.0.1:{port}/", headers={"Host": host}) as page:
                said[f"page {name}"] = page.status
            try:
                async with session.ws_connect(
                    f"http://127.0.0.1:{port}/ws", headers={"Host": host, "Origin": f"http://{host}"}
                ):
                    said[f"seat {name}"] = 101
            except aiohttp.WSServerHandshakeError as refused:
                said[f"seat {name}"] = refused.status
    return said


@pytest.fixture(scope="module")
def said() -> dict[str, int]:
    with web(["--demo"], dict(os.environ)) as running:
        return asyncio.run(answers(running.port))


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]"])
def test_this_machines_names_get_the_page_and_a_seat(said: dict[str, int], name: str) -> None:
    assert (said[f"page {name}"], said[f"seat {name}"]) == (200, 101)


@pytest.mark.parametrize("name", ["evil.example", "127.0.0.1.evil.example"])
def test_another_name_gets_neither_the_page_nor_a_seat(said: dict[str, int], name: str) -> None:
    assert (said[f"page {name}"], said[f"seat {name}"]) == (403, 403)
