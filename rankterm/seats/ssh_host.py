"""`rankterm host` at work: the SSH server's settings for what is served and to whom, what it says when it
starts, and its run until Ctrl+C or SIGTERM, every seat ended with it.

Off loopback a guest needs the join code or a key of `--authorized-keys`; the host key is made once and its
fingerprint printed at each start. The server itself is `ssh_server.py`. See docs/design/seats.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket
import sys
from pathlib import Path

import asyncssh

from rankterm.seats.guard import JoinCodeGuard, check_join_code, new_join_code
from rankterm.seats.hosting import seat_argvs, served_profile, stop_signals, table_desk
from rankterm.seats.keys import fingerprint, host_key_path, load_or_make_host_key
from rankterm.seats.ssh_server import BOARD_USER, HostSettings, seat_env, start_server
from rankterm.seats.warm_host import WarmParent, warm_wanted
from rankterm.server.addresses import WILDCARDS, is_loopback, reachable
from rankterm.wire.errors import RanktermError


def ssh_settings(
    *,
    demo: bool,
    profile: str | None,
    host: str,
    join_code: str | None,
    authorized_keys: Path | None,
    max_seats: int,
) -> tuple[HostSettings, str | None]:
    """The server's settings, and the join code: `join_code` when given, else None on loopback or with
    authorized keys, else a new one. The variable holding the profile's secret is left out of
    every seat's environment."""
    served = served_profile(demo=demo, profile=profile)
    keys = None
    if authorized_keys is not None:
        try:
            keys = asyncssh.read_authorized_keys(str(authorized_keys))
        except OSError as exc:
            raise RanktermError(f"Cannot read {authorized_keys}: {exc.strerror or exc}.") from exc
        except (ValueError, asyncssh.KeyImportError) as exc:
            raise RanktermError(f"{authorized_keys} is not an authorized_keys file: {exc}.") from exc
    if join_code:
        code: str | None = check_join_code(join_code)
    elif is_loopback(host) or keys is not None:
        code = None
    else:
        code = new_join_code()
    app, board = seat_argvs()
    env = dict(os.environ)
    if served is not None:
        from rankterm.config import load_config

        secret_env = load_config().chosen_profile(served).secret_env
        if secret_env:  # the secret stays in this process: a seat gets tokens, never the secret
            env.pop(secret_env, None)
    settings = HostSettings(
        app_argv=app,
        board_argv=board,
        env=env,
        guard=None if code is None else JoinCodeGuard(code),
        authorized_keys=keys,
        max_seats=max_seats,
        title="the demo group" if demo else f"profile {served}",
    )
    return settings, code


def start_lines(
    settings: HostSettings, host: str, port: int, code: str | None, fingerprint: str
) -> list[str]:
    """What `rankterm host` says when it starts: how guests join (each address of this machine for a wildcard
    host), who may, and the host key's fingerprint, which a guest's ssh shows the first time."""
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


def serve_ssh(
    settings: HostSettings, *, host: str, port: int, code: str | None, demo: bool, profile: str | None
) -> int:
    """Serve `settings` on `host`:`port` with the host key of the data dir, the desk on `profile` (or on the
    table's demo, started here), until Ctrl+C or SIGTERM; every seat has ended when it returns."""
    path = host_key_path()
    try:
        key = load_or_make_host_key(path)
    except OSError as exc:
        raise RanktermError(f"Cannot keep the host key in {path.parent}: {exc.strerror or exc}.") from exc
    except (ValueError, asyncssh.KeyImportError) as exc:
        raise RanktermError(f"{path} is not a host key ({exc}): move it away and a new one is made.") from exc
    with contextlib.ExitStack() as stack:
        desk, lives = table_desk(stack, demo=demo, profile=None if demo else profile)
        settings = dataclasses.replace(settings, desk=desk)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run_table(settings, key, host, port, code, [lives] if lives else []))
    return 0


async def run_table(
    settings: HostSettings,
    key: asyncssh.SSHKey,
    host: str,
    port: int,
    code: str | None,
    first_lines: list[str],
) -> None:
    """Listen, say so (after `first_lines`), and serve until a stop signal (`stop_signals`); then end every
    seat."""
    if settings.warm is None and warm_wanted(os.environ):
        # A fresh process with the seats' environment (no secret): it holds nothing of this one's memory.
        warm = WarmParent(settings.app_argv, seat_env(settings.env, None))
        warm.start()
        settings = dataclasses.replace(settings, warm=warm)
    try:
        acceptor, table = await start_server(settings, key, host, port)
    except OSError as exc:
        if settings.warm is not None:
            await settings.warm.close()
        raise RanktermError(f"Cannot listen on {host} port {port}: {exc.strerror or exc}.") from exc
    bound = acceptor.get_port() or port
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in stop_signals():  # before the lines say it serves: a signal from then on stops it cleanly
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    for line in first_lines + start_lines(settings, host, bound, code, fingerprint(key)):
        print(f"rankterm host: {line}")
    sys.stdout.flush()
    if settings.desk is not None:
        warming = asyncio.create_task(settings.desk.warm())  # the first guest's token, ready when they come
    try:
        await stop.wait()
    finally:
        acceptor.close()
        await table.close()
        if settings.warm is not None:
            await settings.warm.close()
        if settings.desk is not None:
            warming.cancel()
        print("rankterm host: stopped; every seat has ended")
