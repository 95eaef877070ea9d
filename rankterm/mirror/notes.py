"""Notes: small JSON values kept beside the group in the mirror file under a key (a quota ledger, the panels a
Service screen last showed), shared by every seat of the profile."""

from __future__ import annotations

import json
from typing import Any

from rankterm.mirror.file import MirrorFile, dumps


class Notes:
    """The notes of one mirror file."""

    def __init__(self, file: MirrorFile) -> None:
        self._file = file

    def get(self, key: str) -> Any:
        """A small JSON value kept beside the group under `key` (None when absent), e.g. a quota ledger."""
        row = self._file.guard(
            lambda: self._file.db.execute(
                "SELECT value FROM meta WHERE key = ?", (f"note:{key}",)
            ).fetchone(),
            None,
        )
        try:
            return json.loads(row[0]) if row else None
        except ValueError:
            return None

    def set(self, key: str, value: Any) -> None:
        """Keep a small JSON value under `key` (see `get`)."""

        def write() -> None:
            self._file.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"note:{key}", dumps(value)))

        self._file.guard(write, None)
