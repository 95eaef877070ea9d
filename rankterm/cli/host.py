"""`rankterm host`: the app served over SSH, so the table joins with the `ssh` every laptop has.

    rankterm host                          the default profile, on ssh -p 2222 127.0.0.1 (this machine only)
    rankterm host --host 0.0.0.0           the room: a join code is printed; guests type it when ssh asks
    rankterm host --demo                   one demo group for every guest (a `rankterm serve --demo` child)
    ssh -p 2222 board@LAPTOP               the read-only scoreboard instead of the app

This module parses the command line; `rankterm.seats` serves (each guest a `rankterm seat` process that never
holds the secret). See docs/design/seats.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rankterm.cli.common import check_port, profile_name
from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.seats import HostSettings

ORDER = 41
DEFAULT_PORT = 2222


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "host",
        help="serve the app over SSH: guests join with `ssh -p 2222 this-laptop`",
        description="Serve the app over SSH: each guest's `ssh` gets a seat acting with this machine's "
        "profile; the user name `board` gets the read-only scoreboard.",
    )
    parser.add_argument(
        "--demo", action="store_true", help="serve one demo group to every guest (gone when the host stops)"
    )
    parser.add_argument("--profile", dest="command_profile", metavar="PROFILE", help="profile of config.toml")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--join-code",
        help="the code guests type when ssh asks (default: a new random code when --host is not loopback)",
    )
    parser.add_argument(
        "--authorized-keys",
        type=Path,
        metavar="FILE",
        help="public keys that may join without a code (OpenSSH's authorized_keys format); off loopback "
        "these alone let guests in, unless --join-code is given too",
    )
    parser.add_argument(
        "--max-seats", type=int, default=12, help="guests at once (default 12); the next is told so"
    )
    parser.set_defaults(run=run)


def build_settings(args: argparse.Namespace) -> tuple[HostSettings, str | None]:
    """The server's settings from the command line, and the join code (None when there is none)."""
    from rankterm.seats import ssh_settings

    check_port(args.port)
    if args.max_seats < 1:
        raise RanktermError(f"--max-seats must be 1 or more, not {args.max_seats}.")
    return ssh_settings(
        demo=args.demo,
        profile=profile_name(args),
        host=args.host,
        join_code=args.join_code,
        authorized_keys=args.authorized_keys,
        max_seats=args.max_seats,
    )


def run(args: argparse.Namespace) -> int:
    settings, code = build_settings(args)
    from rankterm.seats import serve_ssh

    return serve_ssh(
        settings, host=args.host, port=args.port, code=code, demo=args.demo, profile=profile_name(args)
    )
