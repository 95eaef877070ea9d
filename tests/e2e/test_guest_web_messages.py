"""A browser seat's websocket takes what a script sends it: a message that is not one of the page's own
(not JSON, not a list, keys that are not text, a size that is not numbers) is let go, the seat goes on (it
still answers a ping), and the host's terminal shows no traceback.

Tried by hand before: each of these messages ended its seat and printed a traceback where `rankterm web`
runs."""

from __future__ import annotations

import asyncio
import json
import os

import aiohttp

from tests.support.web_host import web

NOT_THE_PAGES = [
    "not json",
    '{"a": 1}',
    "[]",
    '["stdin", 5]',
    '["stdin", "\\ud800"]',
    '["resize", 5]',
    '["resize", {"width": "x"}]',
    '["resize", {"width": 100}]',
    '["ping", {"deep": []}]',
]


async def pongs_after_each(port: int) -> list[str]:
    """What the seat answers to a ping sent after each message of `NOT_THE_PAGES`, on one websocket."""
    answers: list[str] = []
    async with aiohttp.ClientSession() as session, session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
        for number, message in enumerate(NOT_THE_PAGES):
            await ws.send_str(message)
            await ws.send_str(json.dumps(["ping", f"after {number}"]))
            answer = ""
            while not answer.startswith('["pong"'):
                received = await asyncio.wait_for(ws.receive(), 30)
                if received.type == aiohttp.WSMsgType.TEXT:
                    answer = received.data
                elif received.type != aiohttp.WSMsgType.BINARY:
                    answer = f"closed ({received.type.name})"
                    break
            answers.append(answer)
    return answers


def test_a_message_not_of_the_page_is_let_go_and_the_seat_goes_on() -> None:
    with web(["--demo"], dict(os.environ)) as running:
        answers = asyncio.run(pongs_after_each(running.port))
        running.process.terminate()
        assert running.process.stdout is not None
        said = running.process.stdout.read()
    assert answers == [json.dumps(["pong", f"after {n}"]) for n in range(len(NOT_THE_PAGES))]
    assert "Traceback" not in said, said
