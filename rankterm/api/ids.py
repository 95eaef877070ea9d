"""The names a match and a service go by, made in one place: external ids, and the scope (service + key) that
the outbox, the mirror and the token cache keep their things under.

Kept apart from `outbox.py` (which opens SQLite and the client) so that the app can make ids at start
without loading the service layer; `rankterm.api.outbox` offers the same two functions.
"""

from __future__ import annotations

import uuid

EXTERNAL_ID_PREFIX = "rt-"


def new_external_id() -> str:
    """A fresh external id for a new match: ``rt-`` and 12 hex digits (48 random bits)."""
    return EXTERNAL_ID_PREFIX + uuid.uuid4().hex[:12]


def service_scope(base_url: str, key: str) -> str:
    """The scope of a service and key: an outbox entry is only ever sent, and a mirror only ever answers,
    for the group it was made for."""
    return f"{base_url}|{key}"
