"""Groups and their API clients as a host administers them (``rankterm admin``): a summary of each group,
what a group holds, and a group's purge (every row of it, in the order the foreign keys allow).

Each function takes a connection inside the transaction the `Store` opened. See docs/design/server.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankterm.server.db import Conn

__all__ = ["GroupSummary", "group_ids", "purge", "summaries"]


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """A group as ``rankterm admin group list`` shows it."""

    id: int
    name: str
    players: int
    matches: int
    clients: int

    def to_json(self) -> dict[str, object]:
        """The group as ``group list --format json`` writes it."""
        return {
            "id": self.id,
            "name": self.name,
            "players": self.players,
            "matches": self.matches,
            "clients": self.clients,
        }


def summaries(conn: Conn, group_id: int | None = None) -> list[GroupSummary]:
    """Every group (or the one of `group_id`), oldest first, with how many players, matches and clients."""
    where, params = ("WHERE g.id = ?", (group_id,)) if group_id is not None else ("", ())
    rows = conn.execute(
        "SELECT g.id, g.name,"
        " (SELECT count(*) FROM players p WHERE p.group_id = g.id),"
        " (SELECT count(*) FROM matches m WHERE m.group_id = g.id),"
        " (SELECT count(*) FROM clients c WHERE c.group_id = g.id)"
        f" FROM groups g {where} ORDER BY g.id",
        params,
    ).fetchall()
    return [GroupSummary(int(r[0]), r[1], int(r[2]), int(r[3]), int(r[4])) for r in rows]


def group_ids(conn: Conn) -> list[int]:
    """The id of every group, oldest first."""
    return [int(r[0]) for r in conn.execute("SELECT id FROM groups ORDER BY id")]


_IN_SUBSETS = "subset_id IN (SELECT id FROM subsets WHERE group_id = ?)"
_IN_MATCHES = "match_id IN (SELECT id FROM matches WHERE group_id = ?)"
_IN_CLIENTS = "client_id IN (SELECT id FROM clients WHERE group_id = ?)"

PURGE: tuple[tuple[str, str], ...] = (
    ("rating_snapshot", _IN_SUBSETS),
    ("rating_history", _IN_SUBSETS),
    ("rating_current", _IN_SUBSETS),
    ("subset_matches", _IN_SUBSETS),
    ("subsets", "group_id = ?"),
    ("faction_players", _IN_MATCHES),
    ("factions", _IN_MATCHES),
    ("matches", "group_id = ?"),
    ("players", "group_id = ?"),
    ("games", "group_id = ?"),
    ("quota_counters", _IN_CLIENTS),
    ("quota_limits", _IN_CLIENTS),
    ("clients", "group_id = ?"),
    ("group_quota_limits", "group_id = ?"),
    ("groups", "id = ?"),
)
"""Every table holding rows of a group, with the condition that picks them, children before parents."""


def purge(conn: Conn, group_id: int) -> dict[str, int]:
    """Delete every row of the group; how many rows each table lost (tables that lost none left out)."""
    gone: dict[str, int] = {}
    for table, condition in PURGE:
        count = conn.execute(f"SELECT count(*) FROM {table} WHERE {condition}", (group_id,)).fetchone()[0]
        if count:
            conn.execute(f"DELETE FROM {table} WHERE {condition}", (group_id,))
            gone[table] = int(count)
    return gone
