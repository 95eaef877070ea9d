"""`rankterm admin`: a community host's groups, API clients, quota limits and backups, on the service's
database (SQLite or PostgreSQL), while the service runs or not.

    rankterm admin group add "Thursday club" --format json    {"group", "name", "key", "secret"}
    rankterm admin group list                                 every group with its players, matches, clients
    rankterm admin group delete 3 --purge                     every row of group 3, said first, asked
    rankterm admin client add --group 3 | revoke KEY | rotate KEY
    rankterm admin quota set matchesPerHour=100 --group 3
    rankterm admin backup club.db | restore club.db

Each command is one transaction of the store; a revoked or rotated client's tokens are refused at the
service's next request, and quota limits are read again by a running service within seconds. See
docs/cli.md ("Administering a community host") and docs/seats-and-hosting.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from rankterm.cli.common import emit_json, emit_rows, positive_int
from rankterm.wire.text import display_safe

if TYPE_CHECKING:
    from rankterm.server.groups import GroupSummary
    from rankterm.server.store import Store

ORDER = 62
MAX_GROUP_NAME = 100

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class AdminError(Exception):
    """A command that cannot be done, with its one-sentence reason and exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "admin",
        help="administer the service's database: groups, API clients, quota, backups",
        description="Administer the database of `rankterm serve`: groups and their API clients, quota limits, "
        "backups. Safe while the service runs.",
    )
    parser.add_argument("--db", default=None, help="SQLite file or postgresql://… URL (default: serve's)")
    parser.set_defaults(run=_usage(parser))
    areas = parser.add_subparsers(dest="area", metavar="AREA")

    group = areas.add_parser("group", help="add, list, rename or delete groups")
    group.set_defaults(run=_usage(group))
    groups = group.add_subparsers(dest="action", metavar="ACTION")
    add = groups.add_parser("add", help="a new group and its first API client (the secret shown once)")
    add.add_argument("name")
    add.add_argument("--format", choices=("text", "json"), default="text")
    add.set_defaults(run=_run(group_add))
    listed = groups.add_parser("list", help="every group with its players, matches and API clients")
    listed.add_argument("--format", choices=("table", "csv", "json"), default="table")
    listed.set_defaults(run=_run(group_list))
    rename = groups.add_parser("rename", help="give a group a new name")
    rename.add_argument("group", type=positive_int, metavar="ID")
    rename.add_argument("name")
    rename.set_defaults(run=_run(group_rename))
    delete = groups.add_parser("delete", help="delete a group and every row of it (--purge)")
    delete.add_argument("group", type=positive_int, metavar="ID")
    delete.add_argument("--purge", action="store_true", help="required: every row of the group goes")
    delete.add_argument("--yes", action="store_true", help="do not ask (scripts)")
    delete.set_defaults(run=_run(group_delete))

    client = areas.add_parser("client", help="add, revoke or rotate API clients")
    client.set_defaults(run=_usage(client))
    clients = client.add_subparsers(dest="action", metavar="ACTION")
    cadd = clients.add_parser("add", help="a new API client of a group (the secret shown once)")
    cadd.add_argument("--group", type=positive_int, required=True, metavar="ID")
    cadd.add_argument("--format", choices=("text", "json"), default="text")
    cadd.set_defaults(run=_run(client_add))
    revoke = clients.add_parser("revoke", help="disable a client: its tokens stop at once")
    revoke.add_argument("key")
    revoke.set_defaults(run=_run(client_revoke))
    rotate = clients.add_parser("rotate", help="a new secret for a client: the old one and its tokens stop")
    rotate.add_argument("key")
    rotate.add_argument("--format", choices=("text", "json"), default="text")
    rotate.set_defaults(run=_run(client_rotate))

    quota = areas.add_parser("quota", help="set or show the quota limits")
    quota.set_defaults(run=_usage(quota))
    quotas = quota.add_subparsers(dest="action", metavar="ACTION")
    qset = quotas.add_parser("set", help="keep quota limits: for every client, a group's, or one client's")
    qset.add_argument(
        "settings",
        nargs="+",
        metavar="SETTINGS",
        help="'unlimited', 'default' or field=value,… (as `rankterm serve --quota` takes them)",
    )
    which = qset.add_mutually_exclusive_group()
    which.add_argument("--group", type=positive_int, metavar="ID", help="for every client of this group")
    which.add_argument("--client", metavar="KEY", help="for this client")
    qset.set_defaults(run=_run(quota_set))
    qshow = quotas.add_parser("show", help="every limit kept")
    qshow.set_defaults(run=_run(quota_show))

    backup = areas.add_parser("backup", help="copy the whole database into a SQLite file")
    backup.add_argument("file")
    backup.set_defaults(run=_run(backup_to))
    restore = areas.add_parser("restore", help="replace the whole database with a backup (asked first)")
    restore.add_argument("file")
    restore.add_argument("--yes", action="store_true", help="do not ask (scripts)")
    restore.set_defaults(run=_run(restore_from))


def _usage(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: say what to do (see --help).", file=sys.stderr)
        return EXIT_USAGE

    return run


def _run(command: Callable[[Store, argparse.Namespace, IO[str]], int]) -> Callable[[argparse.Namespace], int]:
    """The command on the store of ``--db`` (opened, then closed), its errors one line on stderr."""

    def run(args: argparse.Namespace) -> int:
        try:
            store = _open(args.db, create=command is restore_from)
        except AdminError as exc:
            print(f"rankterm admin: {exc}", file=sys.stderr)
            return exc.code
        try:
            return command(store, args, sys.stdout)
        except AdminError as exc:
            print(f"rankterm admin: {exc}", file=sys.stderr)
            return exc.code
        finally:
            store.close()

    return run


def _open(db: str | None, *, create: bool) -> Store:
    """The store of `db` (serve's default file when None), never made anew unless `create`."""
    from rankterm.server.db import SchemaTooNew
    from rankterm.server.db.engines import engine_type, shown
    from rankterm.server.serve import default_db
    from rankterm.server.store import Store

    path = db if db is not None else str(default_db())
    try:
        engine = engine_type(path)
    except ImportError as exc:
        raise AdminError(f"cannot open {shown(path)}: {exc}", EXIT_FAILED) from None
    if engine.name == "sqlite" and not create and (path == ":memory:" or not os.path.isfile(path)):
        raise AdminError(
            f"no service database at {shown(path)}: give --db, or start `rankterm serve` once to make it."
        )
    unopened: tuple[type[Exception], ...] = (OSError, SchemaTooNew, *engine.errors)
    try:
        return Store(path)
    except unopened as exc:
        raise AdminError(f"cannot open {shown(path)}: {' '.join(str(exc).split())}", EXIT_FAILED) from None


def _group_name(text: str) -> str:
    name = " ".join(text.split())
    if not name:
        raise AdminError("a group's name cannot be empty.")
    if len(name) > MAX_GROUP_NAME:
        raise AdminError(f"a group's name has at most {MAX_GROUP_NAME} characters, not {len(name)}.")
    if not name.isprintable():
        raise AdminError("a group's name cannot hold control characters.")
    return name


def _summary(store: Store, group_id: int) -> GroupSummary:
    found = store.group_summaries(group_id)
    if not found:
        raise AdminError(f"there is no group {group_id} (`rankterm admin group list` lists them).")
    return found[0]


def _credentials(out: IO[str], fmt: str, document: dict[str, Any], note: str) -> None:
    if fmt == "json":
        emit_json(document, out=out)
        return
    print(note, file=out)
    print(f"  key:    {document['key']}\n  secret: {document['secret']}   (shown only this once)", file=out)


# ---------------------------------------------------------------------- groups


def group_add(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    name = _group_name(args.name)
    group_id = store.create_group(name)
    key, secret = store.create_client(group_id)
    document = {"group": group_id, "name": name, "key": key, "secret": secret}
    _credentials(
        out, args.format, document, f"Group {group_id} ({display_safe(name)}) and its first API client:"
    )
    return EXIT_OK


def group_list(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    found = store.group_summaries()
    if args.format == "json":
        emit_json([g.to_json() for g in found], out=out)
        return EXIT_OK
    emit_rows(
        args.format,
        ["id", "name", "players", "matches", "clients"],
        [(g.id, g.name, g.players, g.matches, g.clients) for g in found],
        out=out,
    )
    return EXIT_OK


def group_rename(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    name = _group_name(args.name)
    if not store.rename_group(args.group, name):
        raise AdminError(f"there is no group {args.group} (`rankterm admin group list` lists them).")
    print(f"Group {args.group} is now {display_safe(name)}.", file=out)
    return EXIT_OK


def group_delete(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    group = _summary(store, args.group)
    if not args.purge:
        raise AdminError(f"deleting group {group.id} deletes every row of it for good: say so with --purge.")
    print(
        f"Group {group.id} ({display_safe(group.name)}) holds {group.players} players, {group.matches} matches"
        f" and {group.clients} API clients: --purge deletes every row of it, for good, and its clients'"
        " tokens stop at once.",
        file=out,
    )
    if not args.yes and not _asked(f"Type the group's id ({group.id}) to delete it: ", str(group.id), out):
        print("Nothing was deleted.", file=out)
        return EXIT_FAILED
    gone = store.purge_group(group.id)
    print(f"Deleted group {group.id}: {sum(gone.values())} rows.", file=out)
    return EXIT_OK


def _asked(question: str, answer: str, out: IO[str]) -> bool:
    """Whether the line read from stdin after `question` is `answer`."""
    print(question, end="", file=out, flush=True)
    line = sys.stdin.readline()
    return line.strip() == answer


# ---------------------------------------------------------------------- clients


def client_add(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    group = _summary(store, args.group)
    key, secret = store.create_client(group.id)
    document = {"group": group.id, "key": key, "secret": secret}
    _credentials(
        out, args.format, document, f"New API client of group {group.id} ({display_safe(group.name)}):"
    )
    return EXIT_OK


def client_revoke(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    if not store.set_client_disabled(args.key):
        raise AdminError(f"no API client has the key {display_safe(args.key)!r}.")
    print(f"Revoked {display_safe(args.key)}: its tokens are refused from now on.", file=out)
    return EXIT_OK


def client_rotate(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    secret = store.rotate_client(args.key)
    if secret is None:
        raise AdminError(f"no API client has the key {display_safe(args.key)!r}.")
    _credentials(
        out,
        args.format,
        {"key": args.key, "secret": secret},
        "New secret; the old one and every token issued before are refused from now on:",
    )
    return EXIT_OK


# ---------------------------------------------------------------------- quota


def quota_set(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    from rankterm.server import quota

    settings: dict[str, Any] = {}
    try:
        for text in args.settings:
            settings.update(quota.parse_settings(text))
    except ValueError as exc:
        raise AdminError(str(exc).replace("--quota", "quota set")) from None
    try:
        store.set_quota(settings, args.client, group_id=args.group)
    except KeyError:
        if args.group is not None:
            raise AdminError(
                f"there is no group {args.group} (`rankterm admin group list` lists them)."
            ) from None
        raise AdminError(f"no API client has the key {display_safe(args.client)!r}.") from None
    return quota_show(store, args, out)


def quota_show(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    from rankterm.server import quota

    book = store.quota_book()
    names = dict(store.groups())
    keys = dict(store.client_keys())
    print(f"Every client: {quota.describe(book.every)}.", file=out)
    for group_id, limits in sorted(book.groups.items()):
        print(
            f"  group {group_id} ({display_safe(names.get(group_id, '?'))}): {quota.describe(limits)}.",
            file=out,
        )
    for client_id, limits in sorted(book.clients.items()):
        if client_id in keys:
            print(f"  client {keys[client_id]}: {quota.describe(limits)}.", file=out)
    print("(A running service reads them again within 10 s.)", file=out)
    return EXIT_OK


# ---------------------------------------------------------------------- backups


def backup_to(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    from rankterm.server.db.engines import copy_errors

    started = time.perf_counter()
    try:
        store.backup_to(args.file)
    except copy_errors() as exc:
        raise AdminError(f"cannot write {args.file}: {' '.join(str(exc).split())}", EXIT_FAILED) from None
    groups = store.group_summaries()
    print(
        f"Backed up {len(groups)} groups, {sum(g.matches for g in groups)} matches to {args.file}"
        f" in {time.perf_counter() - started:.1f} s.",
        file=out,
    )
    return EXIT_OK


def restore_from(store: Store, args: argparse.Namespace, out: IO[str]) -> int:
    from rankterm.server.db.copying import NotABackup, open_backup

    try:
        open_backup(args.file).close()
    except NotABackup as exc:
        raise AdminError(str(exc)) from None
    now = store.group_summaries()
    if now:
        print(
            f"The database holds {len(now)} groups and {sum(g.matches for g in now)} matches: restoring"
            f" {args.file} replaces all of it. Stop the service first, and start it again after.",
            file=out,
        )
        if not args.yes and not _asked("Type 'restore' to go on: ", "restore", out):
            print("Nothing was restored.", file=out)
            return EXIT_FAILED
    started = time.perf_counter()
    try:
        store.restore_from(args.file)
    except NotABackup as exc:
        raise AdminError(str(exc)) from None
    groups = store.group_summaries()
    print(
        f"Restored {len(groups)} groups, {sum(g.matches for g in groups)} matches from {args.file}"
        f" in {time.perf_counter() - started:.1f} s.",
        file=out,
    )
    return EXIT_OK
