"""`rankterm seat`: the app as a guest's seat of `rankterm host` or `rankterm web`, started by them alone.

    python -m rankterm seat --desk-fd 5            the app, in guest mode
    python -m rankterm seat --desk-fd 5 --board    the scoreboard (kiosk), in guest mode

Not listed in `--help`: only a host starts it, with one end of a socketpair as `--desk-fd`. The seat asks the
host on it what it serves and for each token (`rankterm.seats`); it never reads config.toml and never holds
the secret. Guest mode (`RanktermApp(guest=True)`) is chosen here, by the command line the host gave, and
nothing turns it off. See docs/design/seats.md.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankterm.client.auth import Token
    from rankterm.mirror import Group
    from rankterm.tui.app import RanktermApp

ORDER = 90


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
    from rankterm.mirror import Group, Mirror
    from rankterm.seats import ask_token
    from rankterm.wire.ids import service_scope

    class SeatClient(RankingClient):
        async def _fetch_token(self) -> Token:
            stale = self._token.value if self._token is not None else None
            return Token.parse(await asyncio.to_thread(ask_token, desk_fd, stale))

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
    return RanktermApp(
        config=config,
        client=seat_client(seat, desk_fd),
        outbox_factory=lambda client, _demo: make_outbox(client, demo),
        home="board" if board else "home",
        kiosk=board,
        guest=True,
    )


def run_seat(args: argparse.Namespace) -> int:
    app = build_seat(args.desk_fd, board=args.board)
    from rankterm.seats import run_on_terminal

    return run_on_terminal(app)
