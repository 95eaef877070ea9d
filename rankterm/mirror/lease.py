"""The sync lease: one seat at a time syncs the matches of a mirror file that several processes share (a
wall-clock lease in the file's meta table, taken in a BEGIN IMMEDIATE transaction), and how many syncs were
completed on the file."""

from __future__ import annotations

import json
import sqlite3

from rankterm.mirror.file import MirrorFile, dumps


def take_lease(db: sqlite3.Connection, holder: str, now: float, seconds: float) -> bool:
    """Within a write: take or renew the sync lease for `holder` unless another holds it."""
    row = db.execute("SELECT value FROM meta WHERE key = 'sync-lease'").fetchone()
    held = json.loads(row[0]) if row else {}
    if held.get("holder") not in (None, holder) and float(held.get("until", 0)) > now:
        return False
    lease = dumps({"holder": holder, "until": now + seconds})
    db.execute("INSERT OR REPLACE INTO meta VALUES ('sync-lease', ?)", (lease,))
    return True


class SyncLease:
    """The right to sync the held matches, shared through the mirror file."""

    def __init__(self, file: MirrorFile) -> None:
        self._file = file

    # ------------------------------------------------------------------ syncing: one seat at a time, held history

    def take_sync_lease(self, holder: str, now: float, seconds: float) -> bool:
        """Take or renew the right to sync the matches until `now` + `seconds` (wall-clock seconds: other
        processes share the file); False while another holder has it. Taken in a BEGIN IMMEDIATE
        transaction, so two seats never both hold it; one that stops answering loses it when it runs out.
        True when the file cannot be written (`_guard`): nothing is shared through it then."""

        def write() -> bool:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                return take_lease(self._file.db, holder, now, seconds)

        return self._file.guard(write, True)

    def sync_leased_elsewhere(self, holder: str, now: float) -> bool:
        """Whether another seat than `holder` holds the sync lease at `now` (its sync is under way)."""

        def read() -> bool:
            row = self._file.db.execute("SELECT value FROM meta WHERE key = 'sync-lease'").fetchone()
            held = json.loads(row[0]) if row else {}
            return held.get("holder") not in (None, holder) and float(held.get("until", 0)) > now

        return self._file.guard(read, False)

    def release_sync_lease(self, holder: str, *, synced: bool) -> None:
        """Give the lease back (if `holder` has it); `synced`: a sync was completed (`syncs_done` counts it)."""

        def write() -> None:
            with self._file.db:
                self._file.db.execute("BEGIN IMMEDIATE")
                row = self._file.db.execute("SELECT value FROM meta WHERE key = 'sync-lease'").fetchone()
                if row is None or json.loads(row[0]).get("holder") != holder:
                    return
                self._file.db.execute("DELETE FROM meta WHERE key = 'sync-lease'")
                if synced:
                    self._file.db.execute(
                        "INSERT INTO meta VALUES ('syncs', '1')"
                        " ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                    )

        self._file.guard(write, None)

    def syncs_done(self) -> int:
        """How many syncs of the matches were completed on this file, by any seat."""
        row = self._file.guard(
            lambda: self._file.db.execute("SELECT value FROM meta WHERE key = 'syncs'").fetchone(), None
        )
        return int(row[0]) if row else 0
