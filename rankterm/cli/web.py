"""`rankterm web`: the same app, served to browsers on the room's network, acting with this machine's profile.

    rankterm web                        the default profile, on http://127.0.0.1:8765/ (this machine only)
    rankterm web --host 0.0.0.0         every laptop and phone on the network; a join code is printed
    rankterm web --demo                 one demo group for every browser (a `rankterm serve --demo` child)

This module parses the command line; `rankterm.seats` serves (each browser tab a `rankterm seat` process that
never holds the secret, behind the join code off loopback). See docs/design/seats.md.
"""

from __future__ import annotations

import argparse

from rankterm.cli.common import check_port, profile_name
from rankterm.wire.errors import RanktermError

ORDER = 40


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("web", help="serve the app to browsers on the local network")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    parser.add_argument(
        "--demo", action="store_true", help="serve one demo group to every browser (gone when this stops)"
    )
    parser.add_argument("--profile", dest="command_profile", help="profile of config.toml to serve")
    parser.add_argument(
        "--join-code",
        help="the code browsers must type (default: a new random code when --host is not loopback)",
    )
    parser.add_argument(
        "--max-seats",
        type=int,
        default=12,
        help="seats at once on this server (default 12); the next is told",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rankterm.seats import served_profile

    profile = served_profile(demo=args.demo, profile=profile_name(args))
    check_port(args.port)
    if args.max_seats < 1:
        raise RanktermError(f"--max-seats must be 1 or more, not {args.max_seats}.")
    from rankterm.seats import serve_web

    return serve_web(
        demo=args.demo,
        profile=profile,
        host=args.host,
        port=args.port,
        join_code=args.join_code,
        max_seats=args.max_seats,
    )
