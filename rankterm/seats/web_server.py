"""`rankterm web`'s server: the app served to browsers, each tab a guest seat (a `rankterm seat` process) drawn
by xterm.js over a websocket, on textual-serve.

What this adds to textual-serve: seats that get their tokens from the desk and end with this process, at most
`max_seats` of them, the join code and its lockout (`guard.py`), same-origin websockets, addresses made from
the request, and a page that loads nothing from the internet; at most `PER_ADDRESS` connections from one
address, a page's messages read with care (a size within a screen's), and the start lines said once the port
listens. See docs/design/seats.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server

from rankterm.seats.desk import Desk
from rankterm.seats.guard import Admitted, JoinCodeGuard, new_join_code
from rankterm.seats.hosting import seat_argvs, seat_side, stop_signals, table_desk
from rankterm.seats.per_address import OpenCount, PerAddress
from rankterm.seats.warm_host import WarmParent, warm_wanted
from rankterm.seats.web_seat import end_web_seat, open_web_seat
from rankterm.server.addresses import host_port, is_loopback, reachable, url

SESSION_COOKIE = "rankterm_seat"
MAX_KEYS = 64 * 1024
"""The most characters one "stdin" message passes to a seat (a keystroke, or a paste: 64 KiB, the keys an SSH
seat buffers). A longer one is let go: a seat works through every key it is given, and a few megabytes kept
one busy, and alive after its browser had gone, for minutes."""

NO_SEAT = "No seat is free (at most {limit} at once): try again when someone leaves."

JOIN_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>rankterm · join</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ background: #0c181f; color: #e6edf3; font-family: monospace; display: flex; justify-content: center;
       align-items: center; height: 100vh; margin: 0; }}
form {{ background: #12232d; padding: 2em; border-radius: 6px; }}
input, button {{ font: inherit; font-size: 1.3em; padding: 0.3em; margin-top: 0.5em; }}
p.err {{ color: #ff7b72; }}
</style></head>
<body><form method="post" action="/join">
<h1>rankterm</h1>
<p>Type the join code shown where <code>rankterm web</code> runs.</p>
{error}
<input name="code" autocomplete="off" autofocus aria-label="join code">
<button type="submit">Join</button>
</form></body></html>
"""


def serve_web(
    *, demo: bool, profile: str | None, host: str, port: int, join_code: str | None, max_seats: int
) -> int:
    """Serve the app to browsers on `host`:`port` (the profile named `profile`, or the table's demo, started
    here) until Ctrl+C; every seat has ended when it returns. Off loopback without `join_code`, a new one."""
    secret_env = None
    if not demo:
        from rankterm.config import load_config

        secret_env = load_config().chosen_profile(profile).secret_env or None
    code = join_code or (None if is_loopback(host) else new_join_code())
    with contextlib.ExitStack() as stack:
        desk, lives = table_desk(stack, demo=demo, profile=profile)
        server = seat_server(
            seat_argvs()[0],
            host=host,
            port=port,
            join_code=code,
            title="rankterm demo" if demo else f"rankterm · {profile}",
            desk=desk,
            max_seats=max_seats,
            hidden_env=(secret_env,) if secret_env else (),
            first_lines=[lives] if lives else [],
            warm=warm_wanted(os.environ),
        )
        server.serve()
    return 0


def start_lines(title: str, host: str, port: int, join_code: str | None) -> list[str]:
    """What `rankterm web` says when it starts: where browsers open it (for a wildcard host, each address of
    this machine, never the wildcard), and the join code, or why there is none, true of `host`."""
    reached = [url(a.ip, port) for a in reachable(host)] or [url(host, port)]
    lines = [f"serving {title} on {' and '.join(reached)} (Ctrl+C stops)"]
    if join_code:
        lines.append(f"join code {join_code}  (or open {reached[0]}?code={join_code})")
    elif is_loopback(host):
        why = "localhost is this machine" if host == "localhost" else f"{host} is a loopback address"
        lines.append(f"no join code: only this machine can connect ({why})")
    else:
        lines.append(f"no join code: whoever can reach {host_port(host, port)} can connect")
    return lines


def seat_server(
    command: Sequence[str] | str,
    *,
    host: str,
    port: int,
    join_code: str | None,
    title: str,
    desk: Desk | None = None,
    max_seats: int = 12,
    hidden_env: Sequence[str] = (),
    first_lines: Sequence[str] = (),
    warm: bool = False,
) -> SeatServer:
    """A textual-serve `Server` for `command` (each seat's argv; `--desk-fd N` is added with a `desk`) with the
    join code, same-origin checks and seat limit of this module; `hidden_env` are left out of every seat's
    environment (the variable holding the secret). With `warm` (for `rankterm seat` only), the seats are
    forked by a warm parent started with the server (`warm_host.py`)."""
    return SeatServer(
        shlex.split(command) if isinstance(command, str) else list(command),
        host=host,
        port=port,
        join_code=join_code,
        title=title,
        desk=desk,
        max_seats=max_seats,
        hidden_env=hidden_env,
        first_lines=first_lines,
        warm=warm,
    )


class SeatService(AppService):
    """One browser's seat: `argv` run directly (no shell) or forked by `warm`, its desk's end passed to it,
    ended with us."""

    def __init__(
        self,
        argv: Sequence[str],
        desk: Desk | None,
        hidden_env: Sequence[str],
        warm: WarmParent | None = None,
        **service: Any,
    ) -> None:
        super().__init__(" ".join(argv), **service)
        self.argv = list(argv)
        self.desk = desk
        self.hidden_env = tuple(hidden_env)
        self.warm = warm
        self.desk_task: asyncio.Task[None] | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        env = {k: v for k, v in self._build_environment(width, height).items() if k not in self.hidden_env}
        seat_argv, ours, theirs = list(self.argv), None, None
        fds: tuple[int, ...] = ()
        if self.desk is not None:
            ours, theirs = self.desk.pair()
            seat_argv += ["--desk-fd", str(theirs.fileno())]
            fds = (theirs.fileno(),)
        try:
            self._process = process = await open_web_seat(seat_argv, env, fds, self.warm)
        except BaseException:
            if ours is not None:
                ours.close()
            raise
        finally:
            if theirs is not None:
                theirs.close()  # the seat holds its end now
        if self.desk is not None and ours is not None:
            self.desk_task = asyncio.get_running_loop().create_task(self.desk.serve(ours))
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def set_terminal_size(self, width: int, height: int) -> None:
        """The browser's terminal changed size: told to the seat within what a screen shows; a size that is not
        two whole numbers is not passed on."""
        if type(width) is int and type(height) is int:
            await super().set_terminal_size(seat_side(width, 10), seat_side(height, 10))

    async def stop(self) -> None:
        """textual-serve's stop (the seat asked to quit, its output read to the end), then the seat ended."""
        await super().stop()
        if self._process is not None:
            await end_web_seat(self._process)


class SeatServer(Server):
    """textual-serve's server with this module's seats, join code, same-origin websockets and page."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        host: str,
        port: int,
        join_code: str | None,
        title: str,
        desk: Desk | None,
        max_seats: int,
        hidden_env: Sequence[str],
        first_lines: Sequence[str],
        warm: bool = False,
    ) -> None:
        super().__init__(" ".join(argv), host=host, port=port, title=title)
        self.argv = list(argv)
        self.desk = desk
        self.hidden_env = tuple(hidden_env)
        self.first_lines = list(first_lines)
        self.join_code = join_code
        self.guard = None if join_code is None else JoinCodeGuard(join_code)
        self.sessions = Admitted()
        self.max_seats = max_seats
        self.seats: set[SeatService] = set()
        """The seats running now, whoever opened them: what `max_seats` counts."""
        self.sockets: set[web.WebSocketResponse] = set()
        """The seats' websockets open now: closed first when the server stops, so that each seat ends."""
        self.warm: WarmParent | None = None
        if warm:  # a fresh process with the seats' environment (no secret): nothing of this one's memory
            env = {k: v for k, v in os.environ.items() if k not in self.hidden_env}
            self.warm = WarmParent(self.argv, env)

    def initialize_logging(self) -> None:
        """textual-serve's Rich log handler is left out: one plain line per start is said instead."""

    async def on_startup(self, app: web.Application) -> None:
        if self.warm is not None:
            self.warm.start()
        if self.desk is not None:  # the first browser's token, ready when it comes
            self.warming = asyncio.get_running_loop().create_task(self.desk.warm())

    def serve(self, debug: bool = False) -> None:
        """textual-serve's `serve` (aiohttp's `run_app`), with two changes: each connection is counted by its
        address (`PerAddress`), and the start lines are said once the port listens, so a browser opened on
        them is never refused (textual-serve says them from `on_startup`, before aiohttp listens)."""
        self.debug = debug
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for signum in stop_signals():  # textual-serve's own are Ctrl+C and SIGTERM
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, self.request_exit)
        main = loop.create_task(self._listen())
        try:
            loop.run_until_complete(main)
        except (GracefulExit, KeyboardInterrupt):
            pass
        finally:
            main.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(main)
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _listen(self) -> None:
        """Serve until cancelled: aiohttp's runner for the app, on a listener of our own."""
        runner = web.AppRunner(await self._make_app(), handle_signals=False, keepalive_timeout=75.0)
        await runner.setup()
        handlers = runner.server
        assert handlers is not None
        open_from = OpenCount()
        try:
            listening = await asyncio.get_running_loop().create_server(
                lambda: PerAddress(handlers(), open_from), self.host, self.port, reuse_address=True
            )
            try:
                self.say_listening()
                await asyncio.Event().wait()
            finally:
                listening.close()
        finally:
            await runner.cleanup()

    def say_listening(self) -> None:
        """Where browsers open the seats, the join code and the seat limit: said once the port listens."""
        lines = [*self.first_lines, *start_lines(self.title, self.host, self.port, self.join_code)]
        lines.append(f"at most {self.max_seats} seats at once")
        for line in lines:
            print(f"rankterm web: {line}")
        sys.stdout.flush()

    async def on_shutdown(self, app: web.Application) -> None:
        """Every seat's websocket closed (its seat then ends), then the warm parent: else aiohttp waits for each
        open seat's handler before it ends them (about 20 s with one browser tab open)."""
        await asyncio.gather(
            *(
                ws.close(code=WSCloseCode.GOING_AWAY, message=b"rankterm web stopped")
                for ws in list(self.sockets)
            ),
            return_exceptions=True,
        )
        if self.warm is not None:
            await self.warm.close()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        aiohttp_jinja2.setup(
            app, loader=jinja2.DictLoader({"app_index.html": offline_page(self.templates_path)})
        )
        app.middlewares.append(self.let_in)
        app.router.add_post("/join", self.handle_join)
        return app

    # -------------------------------------------------------------- the seats

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A browser's seat, when one is free; else the browser is told why, and the socket closed."""
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        self.sockets.add(websocket)
        try:
            return await self._seat_on(websocket, request)
        finally:
            self.sockets.discard(websocket)

    async def _seat_on(self, websocket: web.WebSocketResponse, request: web.Request) -> web.WebSocketResponse:
        """A seat for the browser on `websocket`, when one is free, until either side ends."""
        if len(self.seats) >= self.max_seats:
            await websocket.send_bytes(f"\r\n{NO_SEAT.format(limit=self.max_seats)}\r\n".encode())
            await websocket.close()
            return websocket
        seat = SeatService(
            self.argv,
            self.desk,
            self.hidden_env,
            self.warm,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
            debug=self.debug,
        )
        self.seats.add(seat)
        try:
            await seat.start(_size(request, "width", 80), _size(request, "height", 24))
            try:
                await self._process_messages(websocket, seat)
            finally:
                await seat.stop()
        finally:
            self.seats.discard(seat)
            await websocket.close()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """textual-serve's reading of the page's messages, but one that is not a well-formed message of its
        kinds (not JSON, not a list, keys that are not text, a size that is not numbers) is let go: before,
        each ended its seat with a traceback on the host's terminal. So are keys over `MAX_KEYS` at once."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str) and len(data) <= MAX_KEYS:
                await app_service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                width, height = data.get("width"), data.get("height")
                if type(width) is int and type(height) is int:
                    await app_service.set_terminal_size(width, height)
            elif kind == "ping" and isinstance(data, str | int | float):
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    # -------------------------------------------------------------- who may come in

    def _by_code(self, request: web.Request, given: object) -> web.Response:
        """Admit the browser of `request` when `given` is the code, unless its address is locked out."""
        assert self.guard is not None
        peer = request.remote or "?"
        if self.guard.locked(peer):
            return self._join_page("Too many wrong codes: wait ten minutes.", status=429)
        if isinstance(given, str) and self.guard.try_code(peer, given):
            return self._admit("/")
        return self._join_page("That is not the code.", status=403)

    def _admit(self, location: str) -> web.Response:
        token = self.sessions.admit()
        response = web.Response(status=303, headers={"Location": location})
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="Strict", path="/")
        return response

    def _join_page(self, error: str = "", status: int = 200) -> web.Response:
        shown = f'<p class="err">{error}</p>' if error else ""
        return web.Response(text=JOIN_PAGE.format(error=shown), content_type="text/html", status=status)

    async def handle_join(self, request: web.Request) -> web.StreamResponse:
        if self.guard is None:
            raise web.HTTPSeeOther("/")
        return self._by_code(request, (await request.post()).get("code"))

    @web.middleware
    async def let_in(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if is_loopback(self.host) and not is_loopback(request.url.host or ""):
            # A name that is not this machine's, on a server only this machine reaches: a page elsewhere that
            # had its name point here (DNS rebinding), whose websocket would pass the same-origin check.
            raise web.HTTPForbidden(text="This seat answers only this machine's own addresses (127.0.0.1).")
        if request.path == "/ws" and not _same_origin(request):
            raise web.HTTPForbidden(text="The seat's websocket only answers the page this server serves.")
        if self.guard is None or request.path.startswith("/static/") or request.path == "/join":
            return await handler(request)
        if self.sessions.knows(request.cookies.get(SESSION_COOKIE)):
            return await handler(request)
        if request.path == "/" and "code" in request.query:
            return self._by_code(request, request.query["code"])
        if request.path == "/":
            return self._join_page(status=401)
        raise web.HTTPForbidden(text="Join first: open / and type the code.")

    # -------------------------------------------------------------- the page

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        """textual-serve's page, with every address made from the host the browser used."""
        base = f"{request.scheme}://{request.host}"
        ws_scheme = "wss" if request.scheme == "https" else "ws"
        return {
            "font_size": _font_size(request),
            "app_websocket_url": f"{ws_scheme}://{request.host}/ws",
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
        }


def _size(request: web.Request, name: str, default: int) -> int:
    """A terminal size the page asked for (`?width=`, `?height=`), within what a screen can show."""
    text = request.query.get(name, "")
    return seat_side(int(text), 10) if text.isascii() and text.isdigit() and len(text) < 6 else default


def _font_size(request: web.Request) -> int:
    """The page's font size in pixels (`?fontsize=`): whole, within 6..72, else 16. (`"²".isdigit()` holds but
    `int("²")` raises: an address typed so ended in a 500 and a traceback on the host's terminal.)"""
    text = request.query.get("fontsize", "")
    return min(max(int(text), 6), 72) if text.isascii() and text.isdigit() and len(text) < 6 else 16


FONT_FACE = """<style>
@font-face { font-family: "Roboto Mono"; src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf"); }
</style>"""


def offline_page(templates: object) -> str:
    """textual-serve's page (the template in `templates`) without what it loads from the internet (its font,
    from Google): the same font is named from the copy textual-serve serves itself."""
    page = (Path(str(templates)) / "app_index.html").read_text(encoding="utf-8")
    page, found = re.subn(r"<link[^>]*https?://[^>]*>", "", page)
    return page.replace("</head>", FONT_FACE + "\n</head>", 1) if found else page


def _same_origin(request: web.Request) -> bool:
    """The websocket's Origin names this server (scheme and host as the browser used them)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not a browser (a script on this machine): the join code still guards it
    return origin in (f"http://{request.host}", f"https://{request.host}")
