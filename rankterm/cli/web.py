"""`rankterm web`: the same app, served to a browser on the room's network, acting with this machine's profile.

    rankterm web                        the default profile, on http://127.0.0.1:8765/ (this machine only)
    rankterm web --host 0.0.0.0         every laptop and phone on the network; a join code is printed
    rankterm web --demo                 each browser gets its own in-process demo group

Built on textual-serve: each browser tab runs its own `rankterm` process (the host's config, token cache,
mirror and outbox), drawn in the page by xterm.js over a websocket. What textual-serve does not do, this
module adds in front of it (an aiohttp middleware):

- **A join code** whenever the app is reachable from other machines (`--host` other than loopback), or
  when `--join-code` sets one: a browser types it once (or opens the printed link with `?code=`) and gets a
  session cookie (HttpOnly, SameSite=Strict). Five wrong codes from one address lock that address out for
  ten minutes (`rankterm.host.guard`, the rule `rankterm host` keeps too). Without the code nothing but the join page is served: nobody on the café Wi-Fi records into
  your league.
- **Same-origin websockets**: the websocket that drives the app must come from the page this server served
  (its Origin is this server's host), so a web page elsewhere cannot drive a seat through the browser of
  someone at the table.
- **Addresses from the request**: the page tells the browser to connect back to the host it used, so
  `--host 0.0.0.0` works from other machines without a `--public-url`.
"""

from __future__ import annotations

import argparse
import secrets
import shlex
import sys
from typing import TYPE_CHECKING, Any

from rankterm.cli.common import check_port, profile_name

if TYPE_CHECKING:
    from aiohttp import web

ORDER = 40

SESSION_COOKIE = "rankterm_seat"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a table

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


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("web", help="serve the app to browsers on the local network")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    parser.add_argument("--demo", action="store_true", help="serve the demo group (one per browser)")
    parser.add_argument("--profile", dest="command_profile", help="profile of config.toml to serve")
    parser.add_argument(
        "--join-code",
        help="the code browsers must type (default: a new random code when --host is not loopback)",
    )
    parser.set_defaults(run=run)


def new_join_code(length: int = 8) -> str:
    """A random code of `length` letters and digits that read unambiguously aloud (about 40 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def seat_command(*, demo: bool, profile: str | None) -> str:
    """The shell command each browser tab runs: this Python, this rankterm, the chosen group."""
    parts = [sys.executable, "-m", "rankterm"]
    if demo:
        parts.append("demo")
    elif profile:
        parts += ["--profile", profile]
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    profile = profile_name(args)
    if not args.demo:
        from rankterm.config import load_config

        profile = load_config().chosen_profile(profile).name
    check_port(args.port)
    from rankterm.server.addresses import is_loopback  # here: the command line alone loads no server code

    code = args.join_code or (None if is_loopback(args.host) else new_join_code())
    server = seat_server(
        seat_command(demo=args.demo, profile=profile),
        host=args.host,
        port=args.port,
        join_code=code,
        title="rankterm demo" if args.demo else f"rankterm · {profile}",
    )
    server.serve()
    return 0


def start_lines(title: str, host: str, port: int, join_code: str | None) -> list[str]:
    """What `rankterm web` says when it starts: where browsers open it (for a wildcard host, each address of
    this machine, never the wildcard), and the join code, or why there is none, true of `host`."""
    from rankterm.server.addresses import host_port, is_loopback, reachable, url

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


def seat_server(command: str, *, host: str, port: int, join_code: str | None, title: str) -> Any:
    """A textual-serve `Server` for `command` with the join code and same-origin checks of this module."""
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    from rankterm.host.guard import JoinCodeGuard

    class SeatServer(Server):
        def __init__(self) -> None:
            super().__init__(command, host=host, port=port, title=title)
            self.join_code = join_code
            self.guard = None if join_code is None else JoinCodeGuard(join_code)
            self.sessions: set[str] = set()

        def initialize_logging(self) -> None:
            """textual-serve's Rich log handler is left out: one plain line per start is said instead."""

        async def on_startup(self, app: web.Application) -> None:
            for line in start_lines(title, host, port, self.join_code):
                print(f"rankterm web: {line}")
            sys.stdout.flush()

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(self.let_in)
            app.router.add_post("/join", self.handle_join)
            return app

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
            token = secrets.token_urlsafe(24)
            self.sessions.add(token)
            response = web.HTTPSeeOther(location)
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
            if request.path == "/ws" and not _same_origin(request):
                raise web.HTTPForbidden(text="The seat's websocket only answers the page this server serves.")
            if self.guard is None or request.path.startswith("/static/") or request.path == "/join":
                return await handler(request)
            if request.cookies.get(SESSION_COOKIE) in self.sessions:
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
            font_size = request.query.get("fontsize", "16")
            return {
                "font_size": int(font_size) if font_size.isdigit() else 16,
                "app_websocket_url": f"{ws_scheme}://{request.host}/ws",
                "config": {"static": {"url": f"{base}/static/"}},
                "application": {"name": title},
            }

    return SeatServer()


def _same_origin(request: web.Request) -> bool:
    """The websocket's Origin names this server (scheme and host as the browser used them)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not a browser (a script on this machine): the join code still guards it
    return origin in (f"http://{request.host}", f"https://{request.host}")
