"""A browser seat given thousands of keys and then megabytes in one websocket message (a script, not a page:
xterm.js sends a keystroke or a paste) lets the megabytes go: the seat goes on answering, and when the browser
has gone the seat ends as any seat does. Before, the seat worked through every key, a CPU busy and its memory
growing (350 MB), for minutes after its browser had gone."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import aiohttp

from tests.support.web_host import web

FLOOD = 3_000_000


def seats_of(pid: int) -> set[int]:
    """The browser seats `rankterm web` (`pid`) runs now: its children but the warm parent and the demo."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"seat" in argv and b"--warm-fd" not in argv:
                found.add(int(child))
    return found


async def flood_then_leave(port: int, web_pid: int) -> tuple[str, set[int]]:
    """One seat: its first screen, then a message of `FLOOD` keys and a ping; the pong, and the seats then."""
    async with aiohttp.ClientSession() as session, session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
        shown = 0
        while shown < 2000:  # Home drawn: the seat reads its keys
            received = await asyncio.wait_for(ws.receive(), 60)
            assert received.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), received
            shown += len(received.data)
        seats = seats_of(web_pid)
        for _ in range(20_000):
            await ws.send_str('["stdin","x"]')
        await ws.send_str(json.dumps(["stdin", "x" * FLOOD]))
        await ws.send_str(json.dumps(["ping", "after"]))
        answer = ""
        while not answer.startswith('["pong"'):
            received = await asyncio.wait_for(ws.receive(), 60)
            answer = received.data if received.type == aiohttp.WSMsgType.TEXT else answer
    return answer, seats


def test_a_flood_of_keys_in_one_message_is_let_go_and_the_seat_ends_with_its_browser() -> None:
    with web(["--demo"], dict(os.environ)) as running:
        answer, seats = asyncio.run(flood_then_leave(running.port, running.process.pid))
        assert answer == json.dumps(["pong", "after"]) and len(seats) == 1
        end = time.monotonic() + 30
        while seats & seats_of(running.process.pid) and time.monotonic() < end:
            time.sleep(0.2)
        left = seats & seats_of(running.process.pid)
    assert not left, f"the seat {left} still runs 30 s after its browser left"
