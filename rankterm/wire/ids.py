"""The names a match and a service go by, made in one place: external ids, local ids of ghost players made
while the service cannot be reached, and the scope (service + key) that the outbox, the mirror and the token
cache keep their things under.

Kept apart from `outbox.py` (which opens SQLite and the client) so that the app can make ids at start
without loading the service layer; `rankterm.outbox.outbox` offers the same two functions.
"""

from __future__ import annotations

import uuid

EXTERNAL_ID_PREFIX = "rt-"
LOCAL_ID_PREFIX = "local-"
"""A ghost player queued in the outbox goes by ``local-`` and 16 hex digits until the service gives it its id.
The service's player ids are 11 letters and digits: a local id (with its dash, and longer) is never one."""


def new_external_id() -> str:
    """A fresh external id for a new match: ``rt-`` and 12 hex digits (48 random bits)."""
    return EXTERNAL_ID_PREFIX + uuid.uuid4().hex[:12]


def new_local_id() -> str:
    """A fresh local id for a ghost player that the service has not made yet (64 random bits)."""
    return LOCAL_ID_PREFIX + uuid.uuid4().hex[:16]


def is_local_id(player_id: object) -> bool:
    """True for a local id (`new_local_id`): a player the service does not know yet, never to be sent."""
    return isinstance(player_id, str) and player_id.startswith(LOCAL_ID_PREFIX)


def service_scope(base_url: str, key: str) -> str:
    """The scope of a service and key: an outbox entry is only ever sent, and a mirror only ever answers,
    for the group it was made for."""
    return f"{base_url}|{key}"
