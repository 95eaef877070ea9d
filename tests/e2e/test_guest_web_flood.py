"""A stranger who holds many idle connections to `rankterm web` (never a byte of HTTP, so no join code is
ever asked) does not keep the table's browsers out: past `PER_ADDRESS` open connections from one address,
the next is closed at once.

The server runs with a laptop's limit of open files (256 here, 1024 on most desktops); the stranger holds 400
connections from 127.0.0.2, and a browser from 127.0.0.1 still gets the page and a seat that answers. Tried
by hand before: with 1100 idle connections from one address the server accepted nothing more ("Too many open
files" on its terminal) and a browser's page never came."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource

import aiohttp

from rankterm.seats.per_address import PER_ADDRESS
from tests.e2e.test_guest_flood import HELD, OPEN_FILES, idle_connections
from tests.support.web_host import web


async def a_browser_at_the_table(port: int) -> tuple[int, str]:
    """The status of the page, and the seat's answer to a ping, for a browser on 127.0.0.1."""
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        async with session.get(f"http://127.0.0.1:{port}/") as page:
            status = page.status
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
            await ws.send_str(json.dumps(["ping", "here"]))
            while (received := await ws.receive()).type == aiohttp.WSMsgType.BINARY:
                pass
            return status, str(received.data)


def test_a_strangers_idle_connections_keep_no_browser_out() -> None:
    with web(["--demo"], dict(os.environ)) as running:
        resource.prlimit(running.process.pid, resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
        held = idle_connections(running.port, HELD)
        try:
            assert len(held) > OPEN_FILES > PER_ADDRESS
            answered = asyncio.run(a_browser_at_the_table(running.port))
        finally:
            for sock in held:
                with contextlib.suppress(OSError):
                    sock.close()
    assert answered == (200, json.dumps(["pong", "here"]))
