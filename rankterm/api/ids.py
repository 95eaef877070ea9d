"""The names a match and an outbox go by, made in one place: external ids and the outbox's scope.

Kept apart from `outbox.py` (which opens SQLite and the client) so that the app can make ids at start
without loading the service layer; `rankterm.api.outbox` offers the same two functions.
"""

from __future__ import annotations

import uuid

EXTERNAL_ID_PREFIX = "rt-"


def new_external_id() -> str:
    """A fresh external id for a new match: ``rt-`` and 12 hex digits (48 random bits)."""
    return EXTERNAL_ID_PREFIX + uuid.uuid4().hex[:12]


def outbox_scope(base_url: str, key: str) -> str:
    """The outbox scope of a service and key: matches are only ever sent to the group they were made for."""
    return f"{base_url}|{key}"
