"""``rankterm serve``: host the embedded ranking service for every laptop in the room.

The database is one SQLite file (by default ``service.db`` in platformdirs' user data directory for
rankterm). On the first start, when it has no API client yet, the service makes the group and one client
and prints the key and secret once, with the ``config.toml`` snippet that points a rankterm profile at it.
``--new-client`` makes another client, prints it and exits; ``--demo`` seeds the demo group into an empty
database. The server (uvicorn) listens on loopback unless ``--host`` says otherwise.

``--db postgresql://user:password@host/dbname`` keeps the data on PostgreSQL instead (`pg`), and then
``--workers N`` runs N server processes on the one address (uvicorn's supervisor; each worker builds its
app with `worker_app` from the environment and has its own connection pool on the shared database); the
workers end when the supervisor does, however it ends. Connections and requests are taken as `listener`
says (per-address cap, deadlines on headers and bodies). A
database whose engine is one process's (a SQLite file, `engine.Engine.many_processes`) refuses
``--workers`` above 1 with one line.

``--quota SETTINGS`` sets the clients' quota limits and keeps them in the database (`quota.parse_settings`:
``unlimited``, ``default``, or ``field=value,…`` with the fields of the quota payload), for every client or,
with ``--client KEY``, for one; it may be given several times. The service reads the limits as it starts and
prints them (`quota_lines`); a running service reads them again every few seconds (``rankterm admin quota
set`` changes them while it runs); ``--show-quota`` sets
what ``--quota`` says, prints the limits and exits, without serving.

Behind a reverse proxy, ``--forwarded-allow-ips`` names the proxies whose forwarded headers uvicorn believes;
``--metrics-allow`` opens ``GET metrics`` beyond loopback; ``--access-log FILE`` writes one JSON line per
request (`ops`). Groups, clients and backups are ``rankterm admin``'s.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import uvicorn

from rankterm.paths import process_folder, service_db_path
from rankterm.server import listener, ops, quota
from rankterm.server.addresses import WILDCARDS, Address, host_port, is_loopback, reachable, url
from rankterm.server.app import create_app
from rankterm.server.db import SchemaTooNew
from rankterm.server.db.engines import engine_type, shown
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, seed_demo
from rankterm.server.store import Store

ENV_DB = "RANKTERM_SERVE_DB"
ENV_TOKEN_TTL = "RANKTERM_SERVE_TOKEN_TTL"
ENV_SUPERVISOR = "RANKTERM_SERVE_SUPERVISOR"
ENV_METRICS_ALLOW = "RANKTERM_SERVE_METRICS_ALLOW"
ENV_ACCESS_LOG = "RANKTERM_SERVE_ACCESS_LOG"

WORKER_GRACE = 10
"""Seconds a worker told to stop gives the requests in flight before it ends anyway."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_GROUP = "Game group"


def default_db() -> Path:
    """Where the service keeps its data unless ``--db`` says otherwise."""
    return service_db_path()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankterm serve", description="Run the embedded ranking service over HTTP."
    )
    parser.add_argument(
        "--db",
        default=None,
        help=f"SQLite file, or a postgresql://… URL (default: {default_db()})",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes sharing the address and the database (PostgreSQL only; default: 1)",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to listen on (default: %(default)s)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="port, 0 for any free one (default: %(default)s)"
    )
    parser.add_argument(
        "--new-client", action="store_true", help="create another API client, print it, and exit"
    )
    parser.add_argument("--demo", action="store_true", help="seed the demo group when the database is empty")
    parser.add_argument(
        "--token-ttl", type=int, default=3600, metavar="SECONDS", help="token lifetime (default: %(default)s)"
    )
    parser.add_argument(
        "--quota",
        action="append",
        default=[],
        metavar="SETTINGS",
        help="set and keep the quota limits: 'unlimited', 'default' or field=value,… (e.g."
        " matchesPerHour=5000,callsPerHour=unlimited; 'matches=unlimited' sets all three matches fields);"
        " for every client, or the one of --client",
    )
    parser.add_argument(
        "--client", metavar="KEY", default=None, help="the API client (its key) that --quota is for"
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="ADDRS",
        help="proxies (addresses or networks, comma-separated, or *) whose X-Forwarded-For and"
        " X-Forwarded-Proto are believed: the reverse proxy in front (default: none, the peer's own address)",
    )
    parser.add_argument(
        "--metrics-allow",
        action="append",
        default=[],
        metavar="ADDRS",
        help="addresses or networks (comma-separated, or 'any') that may read GET metrics besides this"
        " machine's loopback",
    )
    parser.add_argument(
        "--access-log",
        default=None,
        metavar="FILE",
        help="write one JSON line per request to FILE ('-' for stderr): request id, endpoint, group,"
        " status, time; never a key, secret or token",
    )
    parser.add_argument(
        "--show-quota",
        action="store_true",
        help="set what --quota says, print every client's quota limits, and exit",
    )
    return parser


def base_urls(host: str, port: int, addresses: list[Address] | None = None) -> list[tuple[str, Address]]:
    """Where the service on `host`:`port` is reached, as (URL, address): `host` itself, or for a wildcard
    this machine's addresses (`addresses.reachable`), others' first; never the wildcard."""
    return [(url(a.ip, port), a) for a in reachable(host, addresses)]


def where_text(host: str, port: int, reached: list[tuple[str, Address]]) -> str:
    """One sentence on who can use the URLs `reached`, or "" when there is nothing to add."""
    if is_loopback(host):
        return (
            f"({url(host, port)} answers this machine only: `rankterm serve --host 0.0.0.0` serves the other"
            " laptops.)"
        )
    if host not in WILDCARDS:
        return ""
    shown = [f"{u} ({a.interface})" if not a.loopback else f"{u} (this machine only)" for u, a in reached]
    if not any(not a.loopback for _, a in reached):
        return (
            "(On the other laptops, put this machine's address in base_url: no other address was found here.)"
        )
    return (
        f"This machine is reached at {', '.join(shown)}: on another laptop use the address of the network"
        " it shares with this one."
    )


def profile_block(name: str, base_url: str, key: str, secret: str) -> str:
    """The lines of a profile to paste into rankterm's config.toml."""
    return f'[profiles.{name}]\nbase_url = "{base_url}"\nkey = "{key}"\nsecret = "{secret}"\n'


def print_client(
    out: TextIO,
    key: str,
    secret: str,
    host: str,
    port: int,
    *,
    note: str,
    profile: str = "home",
    once: bool = True,
) -> None:
    """Print a client's credentials (`once`: the secret is shown only this once), with the profile to paste
    into rankterm's config.toml: its base_url an address others can reach (never a wildcard)."""
    print(note, file=out)
    if once:
        print(f"  key:    {key}\n  secret: {secret}   (shown only this once)\n", file=out)
    print("Paste this profile into rankterm's config.toml (`rankterm locate` says where it is):\n", file=out)
    reached = base_urls(host, port)
    base_url = reached[0][0] if reached else url("127.0.0.1" if ":" not in host else "::1", port)
    print(profile_block(profile, base_url, key, secret), file=out)
    where = where_text(host, port, reached)
    if where:
        print(where + "\n", file=out)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, made with IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets whose
    protocol says TCP, and with Nagle on every keep-alive answer waited ~40 ms for the client's delayed ACK."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)
    except OSError:
        sock.close()
        raise
    return sock


def main(argv: list[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run ``rankterm serve`` with `argv` (without the program and sub-command names); the exit status."""
    out = out or sys.stdout
    parser = _parser()
    args = parser.parse_args(argv)
    if args.token_ttl < 1:
        parser.error("--token-ttl must be at least 1 second")
    if not 0 <= args.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    try:
        settings = _quota_settings(args)
        gate = ops.MetricsGate.parse(args.metrics_allow)
    except ValueError as exc:
        print(f"rankterm serve: {exc}", file=sys.stderr)
        return 2
    path = str(args.db) if args.db is not None else str(default_db())
    shown_db = shown(path)
    try:
        engine = engine_type(path)
    except ImportError as exc:
        print(f"rankterm serve: cannot open {shown_db}: {exc}", file=sys.stderr)
        return 1
    if args.workers > 1 and not engine.many_processes:
        print(
            "rankterm serve: --workers needs a PostgreSQL database (--db postgresql://…);"
            f" {shown_db} is served by one process",
            file=sys.stderr,
        )
        return 2
    unopened: tuple[type[Exception], ...] = (OSError, SchemaTooNew, *engine.errors)
    try:
        store = Store(path, notice=lambda text: print(f"rankterm serve: {text}", file=sys.stderr, flush=True))
    except unopened as exc:  # one line, never a traceback
        reason = " ".join(str(exc).split())
        print(f"rankterm serve: cannot open {shown_db}: {reason}", file=sys.stderr)
        return 1
    try:
        if settings:
            try:
                store.set_quota(settings, args.client)
            except KeyError:
                print(
                    f"rankterm serve: --client: no API client has the key {args.client!r} in {shown_db}.",
                    file=sys.stderr,
                )
                return 2
        return _serve(store, args, shown_db, out, gate)
    finally:
        store.close()


def _quota_settings(args: argparse.Namespace) -> dict[str, quota.Setting]:
    """The --quota settings, merged in order; `ValueError` with one sentence when one cannot be read."""
    if args.client is not None and not args.quota:
        raise ValueError("--client says which client --quota is for: give --quota too.")
    settings: dict[str, quota.Setting] = {}
    for text in args.quota:
        settings.update(quota.parse_settings(text))
    return settings


def quota_lines(store: Store) -> list[str]:
    """What `serve` says of the quota limits at start: those of every client, then each client's own."""
    book = store.quota_book()
    keys = dict(store.client_keys())
    lines = [f"Quota limits of every client: {quota.describe(book.every)}."]
    for client_id, limits in sorted(book.clients.items()):
        if client_id in keys:
            lines.append(f"  client {keys[client_id]}: {quota.describe(limits)}.")
    return lines


def worker_app() -> object:
    """The app of one worker of ``--workers N``: its own store (pool) on the database in the environment.
    The worker ends with its supervisor, even one killed with SIGKILL (`listener.end_with_parent`)."""
    if ENV_SUPERVISOR in os.environ:
        listener.end_with_parent(int(os.environ[ENV_SUPERVISOR]))
    start_access_log(os.environ.get(ENV_ACCESS_LOG) or None)
    store = Store(os.environ[ENV_DB])
    gate = ops.MetricsGate.parse([os.environ.get(ENV_METRICS_ALLOW, "")])
    return create_app(store, token_ttl=int(os.environ.get(ENV_TOKEN_TTL, "3600")), metrics_gate=gate)


def start_access_log(target: str | None) -> None:
    """Give the access log (`ops.access_log`) its handler: one JSON line per request to the file `target`
    (appended to), or to stderr for ``-``; nothing for None. `OSError` when the file cannot be opened."""
    if target is None:
        return
    handler: logging.Handler = (
        logging.StreamHandler(sys.stderr) if target == "-" else logging.FileHandler(target, encoding="utf-8")
    )
    handler.setFormatter(logging.Formatter("%(message)s"))
    ops.access_log.addHandler(handler)
    ops.access_log.setLevel(logging.INFO)
    ops.access_log.propagate = False


def _proxy_options(args: argparse.Namespace) -> dict[str, object]:
    """uvicorn's options for a reverse proxy in front: whose forwarded headers are believed."""
    if args.forwarded_allow_ips is None:
        return {"proxy_headers": False}  # uvicorn would believe any process of this machine (127.0.0.1)
    return {"proxy_headers": True, "forwarded_allow_ips": args.forwarded_allow_ips}


def _serve(store: Store, args: argparse.Namespace, shown_db: str, out: TextIO, gate: ops.MetricsGate) -> int:
    if args.show_quota:
        print(
            f"Quota limits in {shown_db} (a running service reads them again within 10 s):",
            file=out,
        )
        print("\n".join(quota_lines(store)), file=out)
        return 0
    seeded = args.demo and not store.groups()
    if seeded:
        seed_demo(store)
    groups = store.groups()
    group = groups[0][0] if groups else store.create_group(DEFAULT_GROUP)
    if args.new_client:
        key, secret = store.create_client(group)
        print_client(
            out, key, secret, args.host, args.port, note=f"New API client for the group in {shown_db}."
        )
        return 0
    try:
        start_access_log(args.access_log)
    except OSError as exc:
        print(
            f"rankterm serve: cannot write the access log {args.access_log}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 1
    try:
        sock = _bind(args.host, args.port)
    except OSError as exc:
        print(f"rankterm serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    port = sock.getsockname()[1]
    if args.demo:
        _print_demo(out, store, seeded, shown_db, args.host, port)
    if store.client_count() == 0:
        key, secret = store.create_client(group)
        print_client(
            out,
            key,
            secret,
            args.host,
            port,
            note=f"First start: made the group and its API client in {shown_db}.",
        )
    print("\n".join(quota_lines(store)), file=out)
    with StopOnInterrupt() as stop:  # before the line that says so: a Ctrl+C may follow it at once
        print(start_line(args.host, port, shown_db, args.workers), file=out, flush=True)
        if args.workers > 1:
            return _serve_workers(store, args, sock, stop)
        app = create_app(store, token_ttl=args.token_ttl, metrics_gate=gate)
        server = uvicorn.Server(listener.config(app, **_proxy_options(args)))
        stop.then(lambda: setattr(server, "should_exit", True))
        server.run(sockets=[sock])
    return 0


class StopOnInterrupt:
    """Ctrl+C from the line that says "Ctrl+C to stop" until uvicorn takes its own signals, and after it gives
    them back (it raises the one it stopped on again): a stop asked for, never a KeyboardInterrupt. Python's
    own handler would raise one wherever start-up stood (a traceback), and asyncio's would cancel uvicorn's
    task before it ran (CancelledError)."""

    def __init__(self) -> None:
        self.asked = False
        self._then: Callable[[], None] | None = None
        self._previous: Any = None

    def __enter__(self) -> StopOnInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_interrupt)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def then(self, action: Callable[[], None]) -> None:
        """Run `action` on the stop: at once if it was already asked for, else when it is."""
        self._then = action
        if self.asked:
            action()

    def _on_interrupt(self, signum: int, frame: object) -> None:
        self.asked = True
        if self._then is not None:
            self._then()


def _print_demo(out: TextIO, store: Store, seeded: bool, shown_db: str, host: str, port: int) -> None:
    """`--demo`: the demo group's profile to paste (its key and secret are public), at every start; or why
    there is none."""
    if not store.has_client(DEMO_KEY):
        print(f"--demo: {shown_db} already holds a group, so the demo group was not seeded.\n", file=out)
        return
    note = f"Seeded the demo group into {shown_db}." if seeded else f"The demo group is in {shown_db}."
    print_client(out, DEMO_KEY, DEMO_SECRET, host, port, note=note, profile="demo", once=False)


def start_line(host: str, port: int, database: str, workers: int = 1) -> str:
    """The line said when the service starts: where it is reached (for a wildcard, at each address of this
    machine, never the wildcard), its database, its workers."""
    facts = [f"database {database}"] + ([f"{workers} workers"] if workers > 1 else [])
    where = url(host, port)
    if host in WILDCARDS:
        where = " and ".join(u for u, _ in base_urls(host, port)) or where
        facts.insert(0, f"listening on {host_port(host, port)}")
    return f"rankterm service on {where} ({', '.join(facts)}); Ctrl+C to stop."


METRICS_PREFIX = "rankterm-metrics-"


def metrics_folder(parent: str | None = None) -> str:
    """A new folder for the workers' metrics files, named after this supervisor's pid; the folders of
    supervisors that are gone are removed first (`paths.process_folder`)."""
    return process_folder(METRICS_PREFIX, parent)


def _serve_workers(store: Store, args: argparse.Namespace, sock: socket.socket, stop: StopOnInterrupt) -> int:
    """Run `args.workers` uvicorn processes on `sock`, each with its own `worker_app`, until stopped."""
    from uvicorn.supervisors import Multiprocess

    os.environ[ENV_DB] = store.path
    os.environ[ENV_TOKEN_TTL] = str(args.token_ttl)
    os.environ[ENV_SUPERVISOR] = str(os.getpid())
    os.environ[ENV_METRICS_ALLOW] = ",".join(args.metrics_allow)
    os.environ[ENV_ACCESS_LOG] = (
        os.path.abspath(args.access_log) if args.access_log not in (None, "-") else (args.access_log or "")
    )
    store.close()  # the workers open their own pools; the supervisor keeps no connection
    metrics_dir = metrics_folder()
    os.environ[ops.ENV_METRICS_DIR] = metrics_dir  # every worker's counts, added up by whichever is asked
    config = listener.config(
        "rankterm.server.serve:worker_app",
        factory=True,
        workers=args.workers,
        timeout_graceful_shutdown=WORKER_GRACE,
        **_proxy_options(args),
    )
    try:
        supervisor = Multiprocess(config, sockets=[sock])  # takes SIGINT from here on
        if not stop.asked:
            supervisor.run()
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0
