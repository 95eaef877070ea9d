"""The demo's held matches and tonight's story, kept between runs beside the day's demo (`rankterm demo`).

Every `rankterm demo` opens a fresh copy of the day's demo group (kept in the cache dir by server/seed.py).
For Home's tonight lines the app would read its 300 matches into a mirror in memory and walk them all for
the story of what changed. That gives the same rows at every start of the day. So the first start of the day
keeps such a mirror in a file beside the demo, and later starts copy it into their mirror in memory
(`demo_group`). The file's name carries the name of the demo's seeding (its day, a hash of the service's code
and one of the seeding's own signing key: a demo seeded again has new ids) and a hash of the code that reads
and tells the matches (client, mirror, stats). Another day, another seeding or other code never reads it. What it holds is checked as any mirror's content is: the first sync compares the
service's newest page with the held matches, and the story's note names the held matches it was told of.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rankterm.paths import DEMO_MIRROR_GLOB, demo_mirror_path
from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:  # imported when the demo is opened: every command's parser imports this module
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group

__all__ = ["demo_group", "mirror_file"]

_READERS = ("rankterm.client", "rankterm.mirror", "rankterm.stats")
"""The packages whose code makes what the kept mirror holds (the service's and the wire's are in `demo_stem`)."""

_UNUSABLE = (OSError, sqlite3.Error, RanktermError)


def _readers_digest() -> str:
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent
    for package in (name.removeprefix("rankterm.") for name in _READERS):
        for path in sorted((root / package).glob("*.py")):
            digest.update(f"{package}/{path.name}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def mirror_file(now: float) -> Path:
    """Where the mirror of the demo of the day of `now` is kept (see the module's docstring)."""
    from rankterm.server.seed import demo_seeding

    return demo_mirror_path(f"{demo_seeding(now)}-{_readers_digest()}")


def demo_group(make_client: Callable[[], RankingClient]) -> Group:
    """A group on a fresh demo client (`make_client`) whose mirror in memory starts as the kept one: the held
    matches synced and the story told. The first call of the day (or of new code) makes that file first, on a
    client of its own; a file that cannot be made or read only means the app reads and walks the matches."""
    from rankterm.mirror import Group

    client = make_client()
    client.display_safe = True  # as the app reads: the story's note is told of display-safe names
    group = Group(client)
    try:
        path = mirror_file(client.clock())
        if not path.exists():
            _keep(path, make_client)
        if _restore(group, path):
            return group
    except _UNUSABLE:
        pass
    return Group(client)  # a mirror in memory that a failed copy left in no known state is not used


def _restore(group: Group, path: Path) -> bool:
    """Copy the kept mirror at `path` into `group`'s mirror in memory; False when it is not one for it."""
    from rankterm.mirror.file import SCHEMA_VERSION

    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        version = source.execute("PRAGMA user_version").fetchone()[0]
        scope = source.execute("SELECT value FROM meta WHERE key = 'scope'").fetchone()
        if version != SCHEMA_VERSION or scope is None or scope[0] != group.client.scope:
            return False
        source.backup(group.mirror.file.db)
        return True
    finally:
        source.close()


def _keep(path: Path, make_client: Callable[[], RankingClient]) -> None:
    """Make the kept mirror: a demo client of its own, its matches synced and the story told, written to
    `path` (owner-only); other days' and other code's kept mirrors are removed."""
    from rankterm.mirror import Group
    from rankterm.mirror.call_share import NOTE as CALL_SHARE_NOTE

    with contextlib.suppress(RuntimeError):
        asyncio.get_running_loop()
        return  # called on an event loop: it is not blocked to make the file (the app reads the matches)
    client = make_client()
    client.display_safe = True
    group = Group(client)
    try:
        asyncio.run(_told(group))
        group.set_note(CALL_SHARE_NOTE, None)  # this run's calls count against no one else's hour
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        os.close(os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600))
        try:
            target = sqlite3.connect(tmp)
            try:
                group.mirror.file.db.backup(target)
            finally:
                target.close()
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    finally:
        group.mirror.close()
    for old in path.parent.glob(DEMO_MIRROR_GLOB):
        if old != path:
            old.unlink(missing_ok=True)


async def _told(group: Group) -> None:
    from rankterm.stats.kept import held_changes

    try:
        await group.sync_matches()
        held_changes(group)
    finally:
        await group.client.aclose()
