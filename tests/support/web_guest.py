"""A browser's seat of `rankterm web` without a browser, for benchmarks: the page's websocket (what xterm.js
would be sent, and the keys it would send), driven from synchronous code as `ssh.SshGuest` is, on an event
loop of its own in a thread. The server cannot tell it from Chromium's; what it does not measure is the
browser's own painting."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import aiohttp

from tests.support.terminal import ESCAPES


class WebGuest:
    """One websocket seat of the `rankterm web` on 127.0.0.1:`port`, of `size` (columns, rows)."""

    def __init__(self, port: int, size: tuple[int, int] = (80, 24)) -> None:
        self.raw = bytearray()
        self.closed = False
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        url = f"http://127.0.0.1:{port}/ws?width={size[0]}&height={size[1]}"
        self._ws = asyncio.run_coroutine_threadsafe(self._open(url), self._loop).result(30)
        self._reading = asyncio.run_coroutine_threadsafe(self._read(), self._loop)

    async def _open(self, url: str) -> aiohttp.ClientWebSocketResponse:
        self._session = aiohttp.ClientSession()
        return await self._session.ws_connect(url)

    async def _read(self) -> None:
        async for message in self._ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                with self._lock:
                    self.raw += message.data
        self.closed = True

    @property
    def seen(self) -> str:
        with self._lock:
            return ESCAPES.sub("", self.raw.decode("utf-8", "replace"))

    def wait_for(self, text: str, limit: float) -> bool:
        end = time.monotonic() + limit
        while text not in self.seen and not self.closed and time.monotonic() < end:
            time.sleep(0.02)
        return text in self.seen

    def settle(self, quiet: float = 0.5, limit: float = 20.0) -> None:
        """Return once nothing has come for `quiet` seconds (at most `limit`)."""
        end = time.monotonic() + limit
        size, since = len(self.raw), time.monotonic()
        while time.monotonic() < end and time.monotonic() - since < quiet:
            time.sleep(0.05)
            if len(self.raw) != size:
                size, since = len(self.raw), time.monotonic()

    def press(self, keys: bytes) -> None:
        message = json.dumps(["stdin", keys.decode()])
        asyncio.run_coroutine_threadsafe(self._ws.send_str(message), self._loop).result(10)

    def close(self) -> None:
        async def close() -> None:
            await self._ws.close()
            await self._session.close()

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()
