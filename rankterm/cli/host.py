"""`rankterm host`: the app served over SSH, so the table joins with the `ssh` every laptop has.

    rankterm host                          the default profile, on ssh -p 2222 127.0.0.1 (this machine only)
    rankterm host --host 0.0.0.0           the room: a join code is printed; guests type it when ssh asks
    rankterm host --demo                   one demo group for every guest (a `rankterm serve --demo` child)
    ssh -p 2222 board@LAPTOP               the read-only scoreboard instead of the app

Each SSH session runs its own `rankterm seat` process on a pseudo-terminal: a guest seat (`cli/seat.py`),
which records and reads the group of this machine's profile and nothing else (no profiles, import, theme,
screenshot, path). It never holds the secret: this process authenticates and hands each seat its tokens on
an inherited socket (`host/desk.py`). Every seat ends with this process, even when it is killed
(`host/lifeline.py`). `rankterm web` does the same for browsers, with the same join code and lockout. Off
loopback a guest needs the join code (keyboard-interactive or password authentication) or
a key listed in `--authorized-keys`. The host key is made once, kept in the data dir and its fingerprint
printed at each start. See rankterm/host/ for the server itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rankterm.cli.common import check_port, profile_name
from rankterm.cli.web import new_join_code
from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.host.server import HostSettings

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


def served_profile(args: argparse.Namespace) -> str | None:
    """The profile that is served (None for the demo), or a clear error when there is none."""
    profile = profile_name(args)
    if args.demo:
        if profile:
            raise RanktermError("Give --demo or --profile, not both.")
        return None
    from rankterm.config import load_config

    return load_config().chosen_profile(profile).name


def check_join_code(code: str) -> str:
    code = code.strip()
    if not (4 <= len(code) <= 64 and code.isascii() and code.isalnum()):
        raise RanktermError("--join-code must be 4 to 64 letters and digits.")
    return code


def build_settings(args: argparse.Namespace) -> tuple[HostSettings, str | None]:
    """The server's settings from the command line, and the join code (None when there is none)."""
    from rankterm.cli.seat import seat_argvs
    from rankterm.config import load_config
    from rankterm.host.guard import JoinCodeGuard
    from rankterm.host.server import HostSettings
    from rankterm.server.addresses import is_loopback

    check_port(args.port)
    if args.max_seats < 1:
        raise RanktermError(f"--max-seats must be 1 or more, not {args.max_seats}.")
    profile = served_profile(args)
    keys = None
    if args.authorized_keys is not None:
        import asyncssh

        try:
            keys = asyncssh.read_authorized_keys(str(args.authorized_keys))
        except OSError as exc:
            raise RanktermError(f"Cannot read {args.authorized_keys}: {exc.strerror or exc}.") from exc
        except (ValueError, asyncssh.KeyImportError) as exc:
            raise RanktermError(f"{args.authorized_keys} is not an authorized_keys file: {exc}.") from exc
    if args.join_code:
        code: str | None = check_join_code(args.join_code)
    elif is_loopback(args.host) or keys is not None:
        code = None
    else:
        code = new_join_code()
    guard = None if code is None else JoinCodeGuard(code)
    app, board = seat_argvs()
    title = "the demo group" if args.demo else f"profile {profile}"
    env = dict(os.environ)
    secret_env = None if args.demo else load_config().chosen_profile(profile).secret_env
    if secret_env:  # the secret stays in this process: a seat gets tokens, never the secret
        env.pop(secret_env, None)
    settings = HostSettings(
        app_argv=app,
        board_argv=board,
        env=env,
        guard=guard,
        authorized_keys=keys,
        max_seats=args.max_seats,
        title=title,
    )
    return settings, code


def start_lines(
    settings: HostSettings, host: str, port: int, code: str | None, fingerprint: str
) -> list[str]:
    """What `rankterm host` says when it starts: how guests join (each address of this machine for a wildcard
    host), who may, and the host key's fingerprint, which a guest's ssh shows the first time."""
    from rankterm.host.server import BOARD_USER
    from rankterm.server.addresses import WILDCARDS, is_loopback, reachable

    addresses = [a.ip for a in reachable(host)] or [host]
    port_part = "" if port == 22 else f"-p {port} "
    joins = " or ".join(f"ssh {port_part}{a}" for a in addresses)
    lines = [f"serving {settings.title} over SSH: {joins} (Ctrl+C stops)"]
    if host in WILDCARDS:
        lines.append(f"where the network knows .local names: ssh {port_part}{socket.gethostname()}.local")
    lines.append(f"the scoreboard: ssh {port_part}{BOARD_USER}@{addresses[0]}")
    if code:
        lines.append(f"join code {code}  (typed when ssh asks for it)")
    if settings.authorized_keys is not None:
        lines.append("keys of --authorized-keys join without a code")
    if settings.open_door:
        if is_loopback(host):
            lines.append(f"no join code: only this machine can connect ({host} is loopback)")
        else:
            lines.append(f"no join code: whoever can reach {host} port {port} can connect")
    lines.append(f"host key {fingerprint} (guests' ssh shows it the first time: it should match)")
    lines.append(f"at most {settings.max_seats} seats at once")
    return lines


def run(args: argparse.Namespace) -> int:
    settings, code = build_settings(args)
    import asyncssh

    from rankterm.host.keys import fingerprint, host_key_path, load_or_make_host_key
    from rankterm.paths import data_dir

    path = host_key_path(data_dir())
    try:
        key = load_or_make_host_key(path)
    except OSError as exc:
        raise RanktermError(f"Cannot keep the host key in {path.parent}: {exc.strerror or exc}.") from exc
    except (ValueError, asyncssh.KeyImportError) as exc:
        raise RanktermError(f"{path} is not a host key ({exc}): move it away and a new one is made.") from exc
    from rankterm.cli.seat import table_desk

    with contextlib.ExitStack() as stack:
        desk, lives = table_desk(stack, demo=args.demo, profile=None if args.demo else served_profile(args))
        settings = dataclasses.replace(settings, desk=desk)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve(settings, key, args.host, args.port, code, fingerprint(key), lives))
    return 0


async def _serve(
    settings: HostSettings,
    key: object,
    host: str,
    port: int,
    code: str | None,
    fp: str,
    lives: str | None = None,
) -> None:
    from rankterm.host.server import start_server

    try:
        acceptor, table = await start_server(settings, key, host, port)  # type: ignore[arg-type]
    except OSError as exc:
        raise RanktermError(f"Cannot listen on {host} port {port}: {exc.strerror or exc}.") from exc
    bound = acceptor.get_port() or port
    for line in ([lives] if lives else []) + start_lines(settings, host, bound, code, fp):
        print(f"rankterm host: {line}")
    sys.stdout.flush()
    if settings.desk is not None:
        warming = asyncio.create_task(settings.desk.warm())  # the first guest's token, ready when they come
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        acceptor.close()
        await table.close()
        if settings.desk is not None:
            warming.cancel()
        print("rankterm host: stopped; every seat has ended")
