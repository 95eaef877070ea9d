"""`Mirror`: the group on disk, one SQLite file per profile (or in memory), as its parts: the file
(`MirrorFile`: open, repair), the list cache, the held matches, the sync lease, the stats rows, the rankings
cache and the notes. Storage only: no HTTP, no models, the wire-form JSON the service sent (the `Group`
parses it under the client's display rules). See docs/design/mirror.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rankterm.mirror.file import MirrorFile
from rankterm.mirror.held import HeldMatches
from rankterm.mirror.lease import SyncLease
from rankterm.mirror.lists import ListCache
from rankterm.mirror.notes import Notes
from rankterm.mirror.rankings import RankingsCache
from rankterm.mirror.stat_rows import StatRows


class Mirror:
    """The mirror of one group (one service scope): its parts over one file."""

    def __init__(
        self, path: Path | str | None, scope: str = "", *, clock: Callable[[], float] = time.time
    ) -> None:
        self.file = MirrorFile(path, scope, clock=clock)
        self.lists = ListCache(self.file)
        self.held = HeldMatches(self.file)
        self.lease = SyncLease(self.file)
        self.stats = StatRows(self.file)
        self.rankings = RankingsCache(self.file)
        self.notes = Notes(self.file)

    @property
    def path(self) -> Path | None:
        """The file (None: in memory, or the file could not be used and the mirror is kept in memory)."""
        return self.file.path

    @property
    def problem(self) -> str | None:
        """One sentence when the file could not be used as it was (replaced, or kept in memory instead)."""
        return self.file.problem

    def close(self) -> None:
        self.file.close()
