"""A private SQLite file of rankterm's own (the outbox, the drafts, the mirror), opened and brought up to date.

`LocalDb` names a kind of file: what to call it in a sentence and its `MIGRATIONS` (step ``i`` takes the file
from ``PRAGMA user_version`` i to i + 1, a SQL script or a callable, each in a transaction of its own, as
the service's schema does). `LocalDb.open` makes the file 0600 in a folder it makes 0700 (a looser file is
tightened), migrates it, and moves a file it cannot use (damaged, not a database, or written by a newer
rankterm) aside once, beside itself, handing back one sentence that says so. It imports nothing of rankterm.
See docs/design/local-files.md.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "FILE_MODE",
    "FOLDER_MODE",
    "LocalDb",
    "MovedAside",
    "Opened",
    "Step",
    "Unavailable",
    "is_damage",
    "move_aside",
    "statements",
]

FILE_MODE = 0o600
"""The mode of the file and its WAL companions: the owner reads and writes, nobody else anything."""

FOLDER_MODE = 0o700
"""The mode of a folder this module makes."""

MEMORY = ":memory:"

Step = str | Callable[[sqlite3.Connection], None]
"""One migration: a SQL script (statements separated by semicolons), or a callable given the connection
inside the migration's transaction."""


class Unavailable(Exception):
    """The file cannot be used now (a read-only or full folder, a file another process holds, a migration that
    failed: the file is kept as it was); the message is one sentence fit to show."""

    def __init__(self, sentence: str, path: Path, detail: str) -> None:
        super().__init__(sentence)
        self.path = path
        self.detail = detail
        """What the operating system or SQLite said, as a short phrase."""


@dataclass(frozen=True, slots=True)
class MovedAside:
    """A file that could not be used, moved aside (and its WAL files with it) before a fresh one was made."""

    label: str
    path: Path
    aside: Path
    why: str
    """Why it could not be used, a short phrase: SQLite's words, or the newer version it was written in."""

    @property
    def sentence(self) -> str:
        """One line: which file, why, where it went."""
        return (
            f"{_capital(self.label)} {self.path} could not be read ({self.why}): it was moved to {self.aside}"
            " and a fresh one started."
        )


@dataclass(frozen=True, slots=True)
class Opened:
    """What `LocalDb.open` gives: the connection and what it had to do to get it."""

    db: sqlite3.Connection
    path: Path | None
    """The file, or None when it is kept in memory (asked for, or the fallback for a folder that cannot be
    written)."""
    found: int
    """The version the file had before it was migrated (0: new, or made afresh)."""
    moved: MovedAside | None = None
    problem: str | None = None
    """One sentence when the file could not be used as it was (moved aside, or kept in memory instead)."""
    tightened: tuple[Path, ...] = ()
    """Files found readable by others and made the owner's only."""


@dataclass(frozen=True, slots=True)
class LocalDb:
    """One kind of local file: `label` (as a sentence names it, "the outbox") and its migrations."""

    label: str
    migrations: tuple[Step, ...]
    synchronous: Literal["OFF", "NORMAL", "FULL", "EXTRA"] = "FULL"
    """SQLite's `synchronous` for the file: FULL for what must survive a power cut, NORMAL for a cache."""
    check: bool = False
    """Run `PRAGMA quick_check` on open, so a damaged page is found now rather than at the first read of it
    (it reads the whole file)."""
    timeout: float = 5.0
    """Seconds a connection waits for another process's write before SQLite says it is busy."""

    @property
    def version(self) -> int:
        """The version a file of this kind has once migrated."""
        return len(self.migrations)

    def open(
        self,
        path: Path | str | None,
        *,
        memory_fallback: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> Opened:
        """Open (making, tightening, migrating or replacing) the file at `path`; None keeps it in memory.

        Args:
            path: the file.
            memory_fallback: when the file cannot be used, keep it in memory for this run (the sentence
                in `Opened.problem` says so) instead of raising `Unavailable`.
            clock: the time the name of a file moved aside is stamped with.

        Raises:
            Unavailable: the file or its folder cannot be used, and `memory_fallback` is False.
        """
        if path is None:
            db = self._connect(MEMORY)
            return Opened(db, None, self._migrate(db))
        path = Path(path)
        try:
            return self._open_file(path, clock)
        except Unavailable as exc:
            if not memory_fallback:
                raise
            sentence = f"{exc.args[0][:-1]}; it is kept in memory for this run."
            db = self._connect(MEMORY)
            return Opened(db, None, self._migrate(db), problem=sentence)

    def _open_file(self, path: Path, clock: Callable[[], float]) -> Opened:
        try:
            tightened = _private(path)
            db = self._connect(str(path))
        except (OSError, sqlite3.Error) as exc:
            raise self._unavailable(path, exc) from exc
        try:
            found = self._version(
                db
            )  # read before anything is written: a newer file is moved aside untouched
            if found > self.version:
                db.close()
                why = f"written by a newer rankterm, version {found}; this one knows {self.version}"
                return self._afresh(path, why, clock, tightened)
            self._prepare(db)
            self._migrate(db)
        except sqlite3.Error as exc:
            db.close()
            if not is_damage(exc):  # busy, full, read-only, or a step that failed: kept as it is
                raise self._unavailable(path, exc) from exc
            return self._afresh(path, str(exc), clock, tightened)
        except BaseException:
            db.close()
            raise
        return Opened(db, path, found, tightened=tightened)

    def _afresh(
        self, path: Path, why: str, clock: Callable[[], float], tightened: tuple[Path, ...]
    ) -> Opened:
        """Move the file at `path` aside and open a fresh one there."""
        try:
            aside = move_aside(path, clock)
            _private(path)
            db = self._connect(str(path))
        except (OSError, sqlite3.Error) as exc:
            raise self._unavailable(path, exc) from exc
        try:
            self._prepare(db)
            self._migrate(db)
        except sqlite3.Error as exc:
            db.close()
            raise self._unavailable(path, exc) from exc
        moved = MovedAside(self.label, path, aside, why)
        return Opened(db, path, 0, moved, moved.sentence, tightened)

    def _connect(self, target: str) -> sqlite3.Connection:
        return sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=self.timeout)

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Set a file's journal and sync and, when asked, check its pages (a damaged file raises
        `sqlite3.DatabaseError` here, not at the first read of it)."""
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {self.synchronous}")
        if self.check:
            problems = [row[0] for row in db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError(f"database disk image is malformed: {problems[0]}")

    @staticmethod
    def _version(db: sqlite3.Connection) -> int:
        return int(db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self, db: sqlite3.Connection) -> int:
        """Apply the steps the file has not seen, one transaction each (the version read again inside it, so
        two processes opening the same file migrate it once). Gives the version found first."""
        found = version = self._version(db)
        while version < self.version:
            db.execute("BEGIN IMMEDIATE")
            try:
                version = self._version(db)
                if version < self.version:
                    step = self.migrations[version]
                    if isinstance(step, str):
                        for statement in statements(step):
                            db.execute(statement)
                    else:
                        step(db)
                    version += 1
                    db.execute(f"PRAGMA user_version = {version}")
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        return found

    def _unavailable(self, path: Path, exc: BaseException) -> Unavailable:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return Unavailable(f"{_capital(self.label)} {path} cannot be used ({detail}).", path, detail)


def statements(script: str) -> list[str]:
    """The statements of a SQL script, each whole (a trigger's body and a quoted semicolon stay inside), without
    their closing semicolon."""
    out: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if statement := pending[:-1].strip():
                out.append(statement)
            pending = ""
    if statement := pending[:-1].strip():
        out.append(statement)
    return out


def is_damage(exc: BaseException) -> bool:
    """Whether `exc` says the file itself is broken (not a database, malformed), not that it cannot be
    written or is busy."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", "")
    return (
        name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "malformed" in str(exc) or "not a database" in str(exc)
    )


def move_aside(path: Path, clock: Callable[[], float] = time.time) -> Path:
    """Move the file at `path` (and its WAL and shared-memory files) to a timestamped name beside it, to be
    looked at later (``outbox.db.damaged-20261128T101500Z``); gives the new name."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for suffix in ("-wal", "-shm"):
        companion = Path(f"{path}{suffix}")
        if companion.exists():
            os.replace(companion, f"{aside}{suffix}")
    os.replace(path, aside)
    return aside


def _private(path: Path) -> tuple[Path, ...]:
    """Make `path`'s folder (0700) and the file (0600) if they are missing; make the file and its WAL files
    the owner's only if they are not. Gives the files tightened."""
    if not path.parent.is_dir():
        path.parent.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    if not path.exists():  # closing any descriptor of a file open here drops SQLite's locks on it
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, FILE_MODE))
    tightened = []
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
        except FileNotFoundError:
            continue
        if mode & ~FILE_MODE:
            file.chmod(FILE_MODE)
            tightened.append(file)
    return tuple(tightened)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
