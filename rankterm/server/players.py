"""Players of a group: ghost creation, the paged list, and loading players by id.

A ghost player gets an id of 11 random letters and digits, ``ghost`` 1, an empty username and icon, and
the display name ``"*" + name``. The name is kept as sent (only surrounding whitespace is trimmed): quotes,
SQL, escape sequences and any unicode are data, always passed as SQL parameters.

Functions take an open `Conn`; the caller (`Store`) holds the lock and the transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rankterm.server.db import Conn, in_chunks
from rankterm.server.tokens import random_id
from rankterm.server.wire import PAGE_SIZE, Fault, page_bounds, total_pages
from rankterm.wire.models import Player, PlayersPage
from rankterm.wire.names import has_visible

PLAYER_COLUMNS = "id, ghost, username, display_name, icon"
MAX_NAME = 50
GHOST_MARK = "*"


def player_from_row(row: Sequence[Any]) -> Player:
    """A `Player` from a row selected with `PLAYER_COLUMNS`."""
    pid, ghost, username, display, icon = tuple(row)
    # Every field given, in order, of its type (the store's own columns): nothing to validate.
    return Player.trusted(id=pid, ghost=bool(ghost), username=username, display_name=display, icon=icon)


def load_players(conn: Conn, ids: Iterable[str]) -> dict[str, Player]:
    """The players with these ids (unknown ids are left out)."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, Player] = {}
    for chunk, marks in in_chunks(wanted):
        for row in conn.execute(f"SELECT {PLAYER_COLUMNS} FROM players WHERE id IN ({marks})", chunk):
            out[row[0]] = player_from_row(row)
    return out


def known_ids(conn: Conn, group_id: int, ids: Iterable[str]) -> set[str]:
    """Those of `ids` that are players of the group."""
    wanted = list(dict.fromkeys(ids))
    found: set[str] = set()
    for chunk, marks in in_chunks(wanted):
        found.update(
            r[0]
            for r in conn.execute(
                f"SELECT id FROM players WHERE group_id = ? AND id IN ({marks})", (group_id, *chunk)
            )
        )
    return found


def check_name(name: Any) -> str:
    """A ghost's name, trimmed; `Fault` R003 when missing, empty or blank to the eye (`names.has_visible`),
    or longer than 50 characters."""
    if not isinstance(name, str) or not name.strip():
        raise Fault("R003", "Give the player's name.")
    if not has_visible(name):
        raise Fault("R003", "Give the player's name: this one has no character that shows.")
    name = name.strip()
    if len(name) > MAX_NAME:
        raise Fault("R003", f"A player's name has at most {MAX_NAME} characters.")
    return name


def create(
    conn: Conn,
    group_id: int,
    name: str,
    created: str,
    *,
    ghost: bool = True,
    username: str = "",
) -> Player:
    """A new player of the group named `name` (already checked with `check_name`).

    A ghost (what ``POST players/player`` makes) shows as ``"*" + name`` with no username; a member (only
    the demo makes them: the service has no accounts) shows as `name` with its `username`.
    """
    display = GHOST_MARK + name if ghost else name
    username = "" if ghost else username
    while True:
        pid = random_id(11)
        if conn.execute("SELECT 1 FROM players WHERE id = ?", (pid,)).fetchone() is None:
            break
    conn.execute(
        "INSERT INTO players (id, group_id, ghost, username, display_name, icon, sort_key, created)"
        " VALUES (?, ?, ?, ?, ?, '', ?, ?)",
        (pid, group_id, int(ghost), username, display, display.casefold(), created),
    )
    return Player(id=pid, ghost=ghost, username=username, display_name=display, icon="")


def page(conn: Conn, group_id: int, number: int) -> PlayersPage:
    """Page `number` of the group's players, by display name (casefolded) then id."""
    total = conn.execute("SELECT count(*) FROM players WHERE group_id = ?", (group_id,)).fetchone()[0]
    offset, limit = page_bounds(number)
    rows = conn.execute(
        f"SELECT {PLAYER_COLUMNS} FROM players WHERE group_id = ? ORDER BY sort_key, id LIMIT ? OFFSET ?",
        (group_id, limit, offset),
    ).fetchall()
    return PlayersPage(
        page=number,
        total_pages=total_pages(total),
        rows_for_page=PAGE_SIZE,
        total_players=total,
        data=[player_from_row(r) for r in rows],
    )
