"""The service's ground floor: its database, whichever engine holds it, and the schema's migrations.

This face is what the modules by role need inside a transaction (`Conn`, `Dialect`, `in_chunks`) and the
schema's words (`SNAPSHOT_EVERY`, the migrations' `Work`). Opening a database is `db.engines`'s
(`open_engine`, `engine_type`), whose `db.engine.Engine` is SQLite (`db.sqlite`) or PostgreSQL (`db.pg`).
Nothing here imports the service's domain (players, matches, ratings, quotas, tokens): the migration that
rates again is handed in by the store. See docs/design/server.md.
"""

from rankterm.server.db.conn import CHUNK, Conn, Dialect, Rows, in_chunks
from rankterm.server.db.schema import RENEW_VERSIONS, REPLAY, SNAPSHOT_EVERY, SchemaTooNew, Work

__all__ = [
    "CHUNK",
    "RENEW_VERSIONS",
    "REPLAY",
    "SNAPSHOT_EVERY",
    "Conn",
    "Dialect",
    "Rows",
    "SchemaTooNew",
    "Work",
    "in_chunks",
]
