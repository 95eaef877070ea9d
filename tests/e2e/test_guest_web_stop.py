"""`rankterm web` stopped (SIGTERM, as Ctrl+C) with a browser's seat open ends at once, its seat with it:
the seats' websockets are closed first, so aiohttp has no open handler to wait for.

Tried by hand before: with one seat open, `rankterm web` took about 20 s to end after SIGTERM, whether the
browser answered or not."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import aiohttp

from tests.support.ssh import children_of, is_service, is_warm_parent
from tests.support.web_host import web

STOPS_WITHIN = 10.0
"""Seconds: under the ~20 s aiohttp waited for an open seat, with room for a loaded machine."""


async def with_a_seat_open(port: int, pid: int) -> tuple[list[int], float, str]:
    """Open a seat, wait for it to draw; then stop the server (SIGTERM): the seat's pids, the seconds the
    server took to end, and how the websocket ended."""
    async with aiohttp.ClientSession() as session, session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
        drawn = b""
        while b"Home" not in drawn:
            received = await asyncio.wait_for(ws.receive(), 60)
            assert received.type == aiohttp.WSMsgType.BINARY, received
            drawn += received.data
        seats = [p for p in children_of(pid) if not is_service(p) and not is_warm_parent(p)]
        os.kill(pid, signal.SIGTERM)
        start = time.monotonic()
        async for _ in ws:  # the browser goes on reading, and answering pings, until the server closes it
            pass
        while time.monotonic() - start < 30 and _alive(pid):
            await asyncio.sleep(0.05)
        return seats, time.monotonic() - start, f"{ws.close_code}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_stop_with_a_seat_open_ends_the_server_and_the_seat_at_once() -> None:
    with web(["--demo"], dict(os.environ)) as running:
        pid = running.process.pid
        seats, seconds, close_code = asyncio.run(with_a_seat_open(running.port, pid))
        running.process.wait(30)
    assert len(seats) == 1
    assert seconds < STOPS_WITHIN, f"rankterm web took {seconds:.1f} s to end"
    assert close_code == str(int(aiohttp.WSCloseCode.GOING_AWAY))
    assert not any(_alive(seat) for seat in seats)
