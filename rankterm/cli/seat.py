"""`rankterm seat`: the app as a guest's seat of `rankterm host` or `rankterm web`, started by them alone.

    python -m rankterm seat --desk-fd 5            the app, in guest mode
    python -m rankterm seat --desk-fd 5 --board    the scoreboard (kiosk), in guest mode
    python -m rankterm seat --warm-fd 6            the warm parent of `rankterm host`, which forks the seats

Not listed in `--help`: only a host starts it, with one end of a socketpair as `--desk-fd`. The seat asks the
host on it what it serves and for each token (`rankterm.seats`); it never reads config.toml and never holds
the secret. Guest mode (`RanktermApp(guest=True)`) is chosen here, by the command line the host gave, and
nothing turns it off. See docs/design/seats.md.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import pkgutil
import secrets
from typing import TYPE_CHECKING, Any

from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.client.auth import Token
    from rankterm.mirror import Group
    from rankterm.tui.app import RanktermApp

ORDER = 90

WARM_MODULES = (
    "rankterm.cli.app",
    "rankterm.config",
    "rankterm.client.auth",
    "rankterm.client.client",
    "rankterm.mirror",
    "rankterm.outbox.outbox",
    "rankterm.seats.desk",
    "rankterm.seats.hangup",
    "rankterm.wire.ids",
    "rankterm.tui.app",
    "rankterm.tui.live",
    "rankterm.wire.names",
    "textual.drivers.linux_driver",
    "textual.drivers.web_driver",
    "textual._xterm_parser",
    "textual.layouts.factory",
    "textual.layouts.horizontal",
    "textual.layouts.stream",
    "textual.scrollbar",
    "concurrent.futures.thread",
    "statistics",
    "anyio._backends._asyncio",  # httpx's first request
    "anyio.streams.tls",
    "anyio.to_thread",
    "openskill.models",  # the rankings' models
    "textual.pilot",  # imported by the app as it runs
    "textual.drivers.headless_driver",
)
"""What a seat imports before its first screen and on the rankings, players and matches (`-X importtime` of a
seat, and a forked seat's `sys.modules` against its warm parent's), imported once by the warm parent."""
WARM_PACKAGES = ("rankterm.tui.screens", "rankterm.tui.dialogs", "rankterm.tui.widgets")
"""Every module of these too: the screens a guest opens, their dialogs and widgets."""


def register(sub: argparse._SubParsersAction) -> None:
    seat = sub.add_parser("seat", add_help=False)  # no help=: not listed, only a host starts it
    _seat_arguments(seat)


def seat_parser() -> argparse.ArgumentParser:
    """`rankterm seat`'s arguments alone, so that a seat starts without building every command's parser."""
    parser = argparse.ArgumentParser(prog="rankterm seat", add_help=False)
    _seat_arguments(parser)
    return parser


def _seat_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--desk-fd", type=int)
    parser.add_argument("--board", action="store_true")
    parser.add_argument("--warm-fd", type=int)
    parser.add_argument("--room", default="")  # the warm parent's padding, over which a seat writes its own
    parser.set_defaults(run=run_seat)


def seat_client(seat: dict[str, Any], desk_fd: int) -> Group:
    """A client on the service the host named, whose tokens come from the host (`--desk-fd`), never from
    `auth` with a secret; the mirror on disk for a profile, in memory for the table's demo."""
    from rankterm.client.auth import Token
    from rankterm.client.client import RankingClient
    from rankterm.config import mirror_path
    from rankterm.mirror import Group, Mirror
    from rankterm.seats import ask_token
    from rankterm.wire.ids import service_scope

    class SeatClient(RankingClient):
        async def fetch_token(self, held: str | None = None) -> Token:
            return Token.parse(await asyncio.to_thread(ask_token, desk_fd, held))

    base_url, key = str(seat["base_url"]), str(seat["key"])
    path = None if seat.get("demo") else mirror_path(base_url, key)
    client = SeatClient(base_url, key=key, verify_tls=bool(seat.get("verify_tls", True)))
    return Group(client, Mirror(path, service_scope(base_url, key)))


def build_seat(desk_fd: int, *, board: bool) -> RanktermApp:
    """The app of a guest seat: what the host serves, asked on `desk_fd`; guest mode, always."""
    from rankterm.cli.app import make_outbox
    from rankterm.config import Config, Profile, read_seasons
    from rankterm.seats import ask_seat
    from rankterm.tui.app import RanktermApp

    seat = ask_seat(desk_fd)
    name = str(seat.get("name") or "group")
    zone = str(seat.get("timezone") or "")
    profile = Profile(
        base_url=str(seat["base_url"]),
        key=str(seat["key"]),
        timezone=zone,
        seasons=read_seasons(seat.get("seasons", []), "the host's seasons")[0],
    )
    config = Config(
        theme=seat.get("theme") or None,
        timezone=zone or None,
        default_profile=name,
        profiles={name: profile},
    )
    demo = bool(seat.get("demo"))
    mark = secrets.token_hex(8)  # this seat's entries in the outbox the table's seats share
    return RanktermApp(
        config=config,
        client=seat_client(seat, desk_fd),
        outbox_factory=lambda client, _demo: make_outbox(client, demo, seat=mark),
        home="board" if board else "home",
        kiosk=board,
        guest=True,
    )


def warm_up() -> None:
    """Import what a seat needs (`WARM_MODULES`, `WARM_PACKAGES`), so that seats forked from here share it."""
    for name in WARM_MODULES:
        importlib.import_module(name)
    for package in WARM_PACKAGES:
        path = importlib.import_module(package).__path__
        for info in pkgutil.walk_packages(path, prefix=f"{package}."):
            importlib.import_module(info.name)
    from rich.cells import cell_len

    cell_len("é·—漢")  # loads the table of character widths the first screen needs


def run_warm_parent(fd: int) -> int:
    """The warm parent: warm up, then fork seats until the host closes `fd`; in each seat forked, the seat."""
    from rankterm.seats.warm import serve

    warm_up()
    before = dict(os.environ)
    request = serve(fd)
    if request is None:
        return 0
    read_textual_settings_again(before)
    return run_seat(seat_parser().parse_args(request.args))


def read_textual_settings_again(before: dict[str, str]) -> None:
    """In a seat forked warm: Textual read its settings (`textual.constants`, the driver among them:
    `TEXTUAL_DRIVER`, which textual-serve sets for a browser seat) from the warm parent's environment when it
    was imported; they are read again from the seat's, when that differs. Code that copied a setting at its
    own import (`from textual.constants import DEBUG`) keeps the warm parent's."""
    import textual.constants

    def settings(env: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in env.items() if k.startswith("TEXTUAL") or k == "ESCDELAY"}

    if settings(before) != settings(dict(os.environ)):
        importlib.reload(textual.constants)


def run_seat(args: argparse.Namespace) -> int:
    if args.warm_fd is not None:
        return run_warm_parent(args.warm_fd)
    if args.desk_fd is None:
        raise RanktermError("rankterm seat is started by rankterm host or web, with --desk-fd.")
    app = build_seat(args.desk_fd, board=args.board)
    from rankterm.seats import run_on_terminal

    return run_on_terminal(app)
