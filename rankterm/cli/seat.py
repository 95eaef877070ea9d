"""`rankterm seat`: the app as a guest's seat of `rankterm host` or `rankterm web`, started by them alone.

    python -m rankterm seat --desk-fd 5            the app, in guest mode
    python -m rankterm seat --desk-fd 5 --board    the scoreboard (kiosk), in guest mode

Not listed in `--help`: only a host starts it, with one end of a socketpair as `--desk-fd` (`host/desk.py`).
The seat asks the host on it what it serves (the service's address, the key, the zone and theme to show) and
for each token; it never reads config.toml and never holds the secret, so nothing a guest does on the seat
can show, send or save it. The app runs in guest mode (`RanktermApp(guest=True)`), which no key, palette
entry or environment variable turns off: it is chosen here, by the command line the host gave.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.client.auth import Token
    from rankterm.host.desk import Desk
    from rankterm.mirror import Group
    from rankterm.tui.app import RanktermApp

ORDER = 90
TABLE_DEMO = "table demo, not saved"
"""What the seats of `host --demo` and `web --demo` call their group: one demo for the table, gone at the end."""


def register(sub: argparse._SubParsersAction) -> None:
    seat = sub.add_parser("seat", add_help=False)  # no help=: not listed, only a host starts it
    _seat_arguments(seat)


def seat_parser() -> argparse.ArgumentParser:
    """`rankterm seat`'s arguments alone, so that a seat starts without building every command's parser."""
    parser = argparse.ArgumentParser(prog="rankterm seat", add_help=False)
    _seat_arguments(parser)
    return parser


def _seat_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--desk-fd", type=int, required=True)
    parser.add_argument("--board", action="store_true")
    parser.set_defaults(run=run_seat)


def seat_client(seat: dict[str, Any], desk_fd: int) -> Group:
    """A client on the service the host named, whose tokens come from the host (`--desk-fd`), never from
    `auth` with a secret; the mirror on disk for a profile, in memory for the table's demo."""
    from rankterm.client.auth import Token
    from rankterm.client.client import RankingClient
    from rankterm.config import mirror_path
    from rankterm.host.desk import DeskError, ask
    from rankterm.mirror import Group, Mirror
    from rankterm.wire.errors import ApiError, AuthError, Offline
    from rankterm.wire.ids import service_scope

    class SeatClient(RankingClient):
        async def _fetch_token(self) -> Token:
            stale = self._token.value if self._token is not None else None
            try:
                answer = await asyncio.to_thread(ask, desk_fd, {"ask": "token", "stale": stale})
            except DeskError as exc:
                if exc.kind == "offline":
                    raise Offline("auth", str(exc)) from None
                if exc.kind == "refused":  # the app says so to the guest, who can only tell the host
                    raise AuthError("auth", 401, message=str(exc)) from None
                raise ApiError("auth", None, message=str(exc)) from None
            return Token.parse(str(answer.get("token", "")))

    base_url, key = str(seat["base_url"]), str(seat["key"])
    path = None if seat.get("demo") else mirror_path(base_url, key)
    client = SeatClient(base_url, key=key, verify_tls=bool(seat.get("verify_tls", True)))
    return Group(client, Mirror(path, service_scope(base_url, key)))


def build_seat(desk_fd: int, *, board: bool) -> RanktermApp:
    """The app of a guest seat: what the host serves, asked on `desk_fd`; guest mode, always."""
    from rankterm.cli.app import make_outbox
    from rankterm.config import Config, Profile
    from rankterm.host.desk import DeskError, ask
    from rankterm.tui.app import RanktermApp

    try:
        seat = ask(desk_fd, {"ask": "seat"})
    except (DeskError, OSError, ValueError) as exc:
        raise RanktermError(f"This seat's host does not answer ({exc}).") from None
    name = str(seat.get("name") or "group")
    zone = str(seat.get("timezone") or "")
    profile = Profile(base_url=str(seat["base_url"]), key=str(seat["key"]), timezone=zone)
    config = Config(
        theme=seat.get("theme") or None,
        timezone=zone or None,
        default_profile=name,
        profiles={name: profile},
    )
    demo = bool(seat.get("demo"))
    return RanktermApp(
        config=config,
        client=seat_client(seat, desk_fd),
        outbox_factory=lambda client, _demo: make_outbox(client, demo),
        home="board" if board else "dashboard",
        kiosk=board,
        guest=True,
    )


def run_seat(args: argparse.Namespace) -> int:
    app = build_seat(args.desk_fd, board=args.board)
    from rankterm.cli.hangup import app_ends_with_terminal

    app_ends_with_terminal(app)
    app.run()
    return app.return_code or 0


# ---------------------------------------------------------------------- the host's side


def seat_argvs() -> tuple[list[str], list[str]]:
    """The command of a guest's seat and of the scoreboard's, before the host adds `--desk-fd N`: this Python,
    this rankterm."""
    import sys

    app = [sys.executable, "-m", "rankterm", "seat"]
    return app, [*app, "--board"]


def table_desk(stack: contextlib.ExitStack, *, demo: bool, profile: str | None) -> tuple[Desk, str | None]:
    """The desk of `host` or `web`: on the table's one demo service (started now, ended with `stack`) or on
    `profile`; and, for the demo, the sentence saying where it lives."""
    if not demo:
        return host_desk(profile=profile), None
    from rankterm.cli.table_demo import table_demo

    url, folder = stack.enter_context(table_demo())
    lives = (
        f"the demo group: one for every seat, served by this process on {url} ({folder}), gone when it stops"
    )
    return host_desk(profile=None, demo_url=url), lives


def host_desk(*, profile: str | None, demo_url: str | None = None) -> Desk:
    """The desk a host's seats ask (`host/desk.py`): the profile's service (or the table's demo service at
    `demo_url`), a token got here with the secret, which stays in this process."""
    from rankterm.client.client import RankingClient
    from rankterm.config import load_config
    from rankterm.host.desk import Desk

    config = load_config()
    if demo_url is not None:
        from rankterm.server.seed import DEMO_KEY, DEMO_SECRET

        name, base_url, key, secret, verify = TABLE_DEMO, demo_url, DEMO_KEY, DEMO_SECRET, True
        zone = config.zone_setting(None)
        cache = None
    else:
        from rankterm.client.auth import TokenCache
        from rankterm.config import token_cache_path

        chosen = config.chosen_profile(profile)
        name, base_url, key, verify = chosen.name, chosen.base_url, chosen.key, chosen.verify_tls
        secret = chosen.resolve_secret()
        zone = config.zone_setting(chosen.name)
        cache = TokenCache(token_cache_path())
    clients: list[RankingClient] = []

    def client() -> RankingClient:
        if not clients:  # made on the host's loop, at the first question
            clients.append(
                RankingClient(base_url, key=key, secret=secret, token_cache=cache, verify_tls=verify)
            )
        return clients[0]

    async def token(stale: str | None) -> str:
        from rankterm.host.desk import DeskError
        from rankterm.wire.errors import AuthError, Offline

        try:
            held = await client().authenticate()
            if stale is not None and held.value == stale:  # the seat's token was refused: renew ours
                held = await client().authenticate(force=True)
            return held.value
        except Offline as exc:
            raise DeskError("offline", "the host cannot reach it either") from exc
        except AuthError as exc:
            raise DeskError("refused", "the service refused the host's profile; tell the host") from exc
        except RanktermError as exc:
            raise DeskError("failed", "the host could not get a token from the service") from exc

    seat = {
        "name": name,
        "base_url": base_url,
        "key": key,
        "verify_tls": verify,
        "timezone": zone,
        "theme": config.theme,
        "demo": demo_url is not None,
    }
    return Desk(seat, token)
