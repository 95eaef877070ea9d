"""``rankterm serve``: host the embedded ranking service for every laptop in the room.

The database is one SQLite file (by default ``service.db`` in platformdirs' user data directory for
rankterm). On the first start, when it has no API client yet, the service makes the group and one client
and prints the key and secret once, with the ``config.toml`` snippet that points a rankterm profile at it.
``--new-client`` makes another client, prints it and exits; ``--demo`` seeds the demo group into an empty
database. The server (uvicorn) listens on loopback unless ``--host`` says otherwise.
"""

from __future__ import annotations

import argparse
import socket
import sqlite3
import sys
from pathlib import Path
from typing import TextIO

import platformdirs
import uvicorn

from rankterm.server.app import create_app
from rankterm.server.schema import SchemaTooNew
from rankterm.server.seed import seed_demo
from rankterm.server.store import Store

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_GROUP = "Game group"


def default_db() -> Path:
    """Where the service keeps its data unless ``--db`` says otherwise."""
    return Path(platformdirs.user_data_dir("rankterm")) / "service.db"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankterm serve", description="Run the embedded ranking service over HTTP."
    )
    parser.add_argument("--db", type=Path, default=None, help=f"SQLite file (default: {default_db()})")
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
    return parser


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def print_client(out: TextIO, key: str, secret: str, base_url: str, *, note: str) -> None:
    """Print a client's credentials once, with the profile snippet for rankterm's config.toml."""
    print(note, file=out)
    print(f"  key:    {key}\n  secret: {secret}   (shown only this once)\n", file=out)
    print("Add it to a rankterm profile (config.toml):\n", file=out)
    print(f'[profiles.home]\nbase_url = "{base_url}"\nkey = "{key}"\nsecret = "{secret}"\n', file=out)
    if any(wild in base_url for wild in ("0.0.0.0", "[::]")):
        print("(On the other laptops, put this machine's address in base_url.)\n", file=out)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, reuse_port=False)


def main(argv: list[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run ``rankterm serve`` with `argv` (without the program and sub-command names); the exit status."""
    out = out or sys.stdout
    parser = _parser()
    args = parser.parse_args(argv)
    if args.token_ttl < 1:
        parser.error("--token-ttl must be at least 1 second")
    if not 0 <= args.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    path = args.db if args.db is not None else default_db()
    try:
        store = Store(path)
    except (OSError, sqlite3.Error, SchemaTooNew) as exc:  # one line, never a traceback
        print(f"rankterm serve: cannot open {path}: {exc}", file=sys.stderr)
        return 1
    try:
        return _serve(store, args, path, out)
    finally:
        store.close()


def _serve(store: Store, args: argparse.Namespace, path: Path, out: TextIO) -> int:
    if args.demo and not store.groups():
        key, secret = seed_demo(store)
        print(f"Seeded the demo group into {path} (client key {key!r}, secret {secret!r}).", file=out)
    groups = store.groups()
    group = groups[0][0] if groups else store.create_group(DEFAULT_GROUP)
    url = _url(args.host, args.port)
    if args.new_client:
        key, secret = store.create_client(group)
        print_client(out, key, secret, url, note=f"New API client for the group in {path}.")
        return 0
    try:
        sock = _bind(args.host, args.port)
    except OSError as exc:
        print(f"rankterm serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    url = _url(args.host, sock.getsockname()[1])
    if store.client_count() == 0:
        key, secret = store.create_client(group)
        print_client(out, key, secret, url, note=f"First start: made the group and its API client in {path}.")
    print(f"rankterm service on {url} (database {path}); Ctrl+C to stop.", file=out, flush=True)
    app = create_app(store, token_ttl=args.token_ttl)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    server.run(sockets=[sock])
    return 0
