"""`DraftFile`: the match form as typed, kept on disk per group (service and key), so that a form half
filled when the connection died (an SSH client killed, a terminal closed) is offered again on the next `n`.

One JSON file per group under the data dir (`drafts/<host>-<hash>.json`), written whole to a temporary file
and moved over the old one, so a seat killed mid-write leaves the old draft or the new, never half of one.
The form says what a draft holds (`MatchForm.draft()` / `restore()`); this module only keeps it. Saving is
throttled by the screen (`DRAFT_EVERY`); a draft that cannot be written or read is left out silently: it
is a convenience, and the outbox, not the draft, keeps what was sent.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rankterm.config import data_dir
from rankterm.wire.ids import service_scope

DRAFT_EVERY = 0.5
"""Seconds between two writes of the draft at most (the form is saved as it is typed: two writes a second)."""


def draft_path(base_url: str, key: str) -> Path:
    """Where the draft of the group at `base_url` (client `key`) is kept."""
    digest = hashlib.sha256(service_scope(base_url, key).encode()).hexdigest()[:16]
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", urlsplit(base_url).hostname or "service")[:40]
    return data_dir() / "drafts" / f"{host}-{digest}.json"


class DraftFile:
    """The one draft of a group: `save`, `load`, `drop`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def save(self, form: dict[str, Any], now: datetime) -> None:
        """Keep `form` (what `MatchForm.draft()` gives) as the group's draft, saved at `now`."""
        body = json.dumps({"saved_at": now.astimezone(UTC).isoformat(), "form": form}, ensure_ascii=False)
        temporary = self.path.with_suffix(".tmp")
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(body, encoding="utf-8")
            os.replace(temporary, self.path)

    def load(self) -> tuple[datetime, dict[str, Any]] | None:
        """The draft kept (when it was saved, and the form), or None when there is none (or it cannot be
        read)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            saved_at = datetime.fromisoformat(data["saved_at"])
            form = data["form"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return (saved_at, form) if isinstance(form, dict) else None

    def drop(self) -> None:
        """No draft any more (the match was sent or queued, the form cleared, or the person dropped it)."""
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
