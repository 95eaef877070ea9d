"""A browser's seat of `rankterm web` for benchmarks, driven from synchronous code as `ssh.SshGuest` is:
`WebGuest`, the page's websocket alone (what xterm.js would be sent, and the keys it would send) on an event
loop of its own in a thread, which the server cannot tell from a browser's and which costs the machine
nothing more; `ChromiumGuest`, the page in a real headless Chromium (Playwright), its loading and xterm.js
included. Also the Chromium flags and the page script the browser tests share."""

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


KEEP_FRAMES = """
(() => {
  window.__seat = [];
  const decoder = new TextDecoder();
  const Native = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    ws.addEventListener("message", async (event) => {
      let data = event.data;
      if (data instanceof Blob) data = await data.arrayBuffer();
      window.__seat.push(typeof data === "string" ? data : decoder.decode(data));
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();
"""
"""Kept by the page: every message its websocket receives, the bytes xterm.js paints."""
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""How the tests and benchmarks start Debian's Chromium headless."""
KEYS = {b"\r": "Enter", b"\x1b": "Escape", b"\x13": "Control+s"}


class ChromiumGuest:
    """The same seat opened in a real headless Chromium page of `browser` (a Playwright sync Browser): the
    page loads, xterm.js starts and opens the websocket; what it was sent is read as `WebGuest.seen`."""

    def __init__(self, browser, port: int, size: tuple[int, int] = (1000, 600)) -> None:
        self.context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        self.page = self.context.new_page()
        self.page.add_init_script(KEEP_FRAMES)
        self.page.goto(f"http://127.0.0.1:{port}/")
        self.closed = False

    @property
    def seen(self) -> str:
        return ESCAPES.sub("", "".join(self.page.evaluate("window.__seat")))

    def wait_for(self, text: str, limit: float) -> bool:
        end = time.monotonic() + limit
        while text not in self.seen and time.monotonic() < end:
            self.page.wait_for_timeout(20)
        return text in self.seen

    def settle(self, quiet: float = 0.5, limit: float = 20.0) -> None:
        end = time.monotonic() + limit
        size, since = len(self.seen), time.monotonic()
        while time.monotonic() < end and time.monotonic() - since < quiet:
            self.page.wait_for_timeout(50)
            if len(now := self.seen) != size:
                size, since = len(now), time.monotonic()

    def press(self, keys: bytes) -> None:
        self.page.locator(".xterm-screen").click()
        self.page.keyboard.press(KEYS.get(keys, keys.decode()))

    def close(self) -> None:
        self.context.close()
