"""`DraftFile`: the match form as typed and the matches queued from it, kept on disk per group (service and
key), so that a form half filled or a queue not sent when the connection died (an SSH client killed, a
terminal closed) is offered again on the next `n`.

One JSON file per group under the data dir (`drafts/<host>-<hash>.json`, mode 0600 in a 0700 folder),
written whole to a temporary file of its own and moved over the old one, so a seat killed mid-write leaves
the old draft or the new, never half of one. The form says what a draft holds (`MatchForm.draft()` /
`restore()`); the queue is kept as the wire's matches (`NewMatch.to_wire()`) with their labels. This module
only keeps them. The screen writes each change within `DRAFT_EVERY` seconds and a queued match at once; a
draft that cannot be written or read is left out silently: the outbox, not the draft, keeps what was sent.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from rankterm.config import data_dir
from rankterm.wire.ids import service_scope
from rankterm.wire.models import NewMatch

DRAFT_EVERY = 0.05
"""Seconds between a change of the form and its write at most (one write for every change made meanwhile)."""


def draft_path(base_url: str, key: str) -> Path:
    """Where the draft of the group at `base_url` (client `key`) is kept."""
    digest = hashlib.sha256(service_scope(base_url, key).encode()).hexdigest()[:16]
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", urlsplit(base_url).hostname or "service")[:40]
    return data_dir() / "drafts" / f"{host}-{digest}.json"


@dataclass
class Draft:
    """What a lost session left: when it was saved, the form (`MatchForm.draft()`, None when blank) and the
    queued matches (match, label) in the order queued; `queue_only` when the form held nothing but what the
    queue left in it (the game and players kept for the next match)."""

    saved_at: datetime
    form: dict[str, Any] | None
    queue: list[tuple[NewMatch, str]] = field(default_factory=list)
    queue_only: bool = False


class DraftFile:
    """The one draft of a group: `save`, `load`, `drop`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def save(self, draft: Draft) -> None:
        """Keep `draft` as the group's draft."""
        body = json.dumps(
            {
                "saved_at": draft.saved_at.astimezone(UTC).isoformat(),
                "form": draft.form,
                "queue": [{"match": m.to_wire(), "label": label} for m, label in draft.queue],
                "queue_only": draft.queue_only,
            },
            ensure_ascii=False,
        )
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.stem}.", suffix=".tmp"
            )
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp makes it 0600
                    out.write(body)
                os.replace(temporary, self.path)
            except OSError:
                Path(temporary).unlink(missing_ok=True)
                raise

    def load(self) -> Draft | None:
        """The draft kept, or None when there is none (or it cannot be read). A queued match that cannot be
        read is left out; a file of an older rankterm (a form, no queue) reads as a draft without a queue."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            saved_at = datetime.fromisoformat(data["saved_at"])
            form = data.get("form")
            queued = data.get("queue") or []
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        queue: list[tuple[NewMatch, str]] = []
        for item in queued if isinstance(queued, list) else ():
            if not isinstance(item, dict):
                continue
            with contextlib.suppress(ValidationError, ValueError, TypeError):
                queue.append((NewMatch.model_validate(item.get("match")), str(item.get("label") or "")))
        form = form if isinstance(form, dict) else None
        if form is None and not queue:
            return None
        return Draft(saved_at, form, queue, data.get("queue_only") is True)

    def drop(self) -> None:
        """No draft any more (the match was sent, the form cleared, or the person dropped it)."""
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
