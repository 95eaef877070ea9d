"""Games of the embedded service: the bundled catalogue, a group's own games, search, popularity, creation.

The catalogue (``catalogue.json``, read with importlib.resources) is copied into the ``games`` table with
``group_id`` NULL; it is synced again only when the file's fingerprint changes, so game ids stay stable.
A game created by name belongs to the group that created it. Names are compared after `normalise`
(NFKD, combining marks dropped, casefolded), so "Café" and "cafe" are one game.

Functions take an open `Conn`; the caller (`Store`) holds the lock and the transaction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from rankterm.server.db import Conn
from rankterm.server.wire import MAX_ID, Fault
from rankterm.wire.models import WEIGHTS, Game, Weight
from rankterm.wire.names import has_visible
from rankterm.wire.text import fold_name

GAME_COLUMNS = "id, name, weight, bgg_id, thumbnail, medium_image"
G_COLUMNS = ", ".join("g." + c for c in GAME_COLUMNS.split(", "))
SEARCH_LIMIT = 50
POPULAR_LIMIT = 20
MAX_NAME = 100


def normalise(text: str) -> str:
    """Case- and accent-insensitive form of a name: NFKD, combining marks dropped, casefolded."""
    return fold_name(text)


@cache
def catalogue() -> tuple[tuple[dict[str, Any], ...], str]:
    """The bundled catalogue entries and a fingerprint of the file."""
    raw = resources.files("rankterm.server").joinpath("catalogue.json").read_bytes()
    entries = tuple(e for e in json.loads(raw) if isinstance(e, dict) and e.get("name"))
    return entries, hashlib.sha256(raw).hexdigest()


def sync_catalogue(conn: Conn) -> None:
    """Bring the catalogue games up to the bundled file (inside the caller's transaction)."""
    entries, fingerprint = catalogue()
    row = conn.execute("SELECT value FROM meta WHERE key = 'catalogue'").fetchone()
    if row is not None and _as_bytes(row[0]) == fingerprint.encode():
        return
    existing = {
        r[1]: r[0] for r in conn.execute("SELECT id, norm_name FROM games WHERE group_id IS NULL").fetchall()
    }
    conn.execute("UPDATE games SET catalogue_pos = NULL WHERE group_id IS NULL")
    for pos, entry in enumerate(entries):
        name = str(entry["name"])
        weight = entry.get("weight") if entry.get("weight") in WEIGHTS else Weight.NORMAL.value
        bgg = entry.get("bggId") if isinstance(entry.get("bggId"), int) else None
        norm = normalise(name)
        if norm in existing:
            conn.execute(
                "UPDATE games SET name = ?, weight = ?, bgg_id = ?, catalogue_pos = ? WHERE id = ?",
                (name, weight, bgg, pos, existing[norm]),
            )
        else:
            cur = conn.execute(
                "INSERT INTO games (group_id, name, norm_name, weight, bgg_id, catalogue_pos)"
                " VALUES (NULL, ?, ?, ?, ?, ?) RETURNING id",
                (name, norm, weight, bgg, pos),
            )
            existing[norm] = cur.fetchone()[0]
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('catalogue', ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (fingerprint.encode(),),
    )


def _as_bytes(value: str | bytes | memoryview) -> bytes:
    """A meta value as bytes: older files kept the fingerprint as text, newer ones (and PostgreSQL) as bytes."""
    return value.encode() if isinstance(value, str) else bytes(value)


def game_from_row(row: Sequence[Any]) -> Game:
    """A `Game` from a row selected with `GAME_COLUMNS`."""
    game_id, name, weight, bgg, thumbnail, medium = tuple(row)
    label = Weight(weight).label if weight in WEIGHTS else ""
    return Game(
        id=game_id,
        name=name,
        weight=weight,
        weight_label=label,
        thumbnail=thumbnail,
        medium_image=medium,
        bgg_id_game=bgg,
    )


def game_by_id(conn: Conn, group_id: int, game_id: int) -> Game | None:
    """The game `game_id` when the group may use it (catalogue or its own), else None."""
    if not 0 < game_id <= MAX_ID:
        return None
    row = conn.execute(
        f"SELECT {GAME_COLUMNS} FROM games WHERE id = ? AND (group_id IS NULL OR group_id = ?)",
        (game_id, group_id),
    ).fetchone()
    return game_from_row(row) if row else None


def group_games(conn: Conn, group_id: int) -> list[Game]:
    """The group's games: those with at least one match, by name."""
    rows = conn.execute(
        f"SELECT {G_COLUMNS} FROM subsets s"
        " JOIN games g ON g.id = s.game_id WHERE s.group_id = ? AND s.type = 'game' AND s.count_matches > 0",
        (group_id,),
    ).fetchall()
    games = [game_from_row(r) for r in rows]
    return sorted(games, key=lambda g: (normalise(g.name), g.id))


def search(conn: Conn, group_id: int, name: str) -> list[Game]:
    """Catalogue and group games whose normalised name contains the normalised `name`.

    Exact matches first, then names starting with it, then the rest; alphabetical within each.
    """
    needle = normalise(name)
    if len(needle) < 2:
        raise Fault("R003", "Give at least 2 characters of the game's name.")
    rows = conn.execute(
        f"SELECT {GAME_COLUMNS}, norm_name FROM games"
        " WHERE (group_id IS NULL OR group_id = ?) AND replace(norm_name, ?, '') <> norm_name",
        (group_id, needle),
    ).fetchall()
    rows.sort(key=lambda r: (r[-1] != needle, not r[-1].startswith(needle), r[-1], r[0]))
    return [game_from_row(r[:-1]) for r in rows[:SEARCH_LIMIT]]


def popular(conn: Conn, group_id: int) -> list[Game]:
    """The group's most played games (by matches), then catalogue games in catalogue order."""
    played = conn.execute(
        f"SELECT {G_COLUMNS} FROM subsets s"
        " JOIN games g ON g.id = s.game_id WHERE s.group_id = ? AND s.type = 'game'"
        " ORDER BY s.count_matches DESC, g.catalogue_pos IS NULL, g.catalogue_pos, g.id LIMIT ?",
        (group_id, POPULAR_LIMIT),
    ).fetchall()
    out = [game_from_row(r) for r in played]
    seen = {g.id for g in out}
    if len(out) < POPULAR_LIMIT:
        rest = conn.execute(
            f"SELECT {GAME_COLUMNS} FROM games WHERE group_id IS NULL AND catalogue_pos IS NOT NULL"
            " ORDER BY catalogue_pos LIMIT ?",
            (POPULAR_LIMIT + len(seen),),
        ).fetchall()
        out += [game_from_row(r) for r in rest if r[0] not in seen][: POPULAR_LIMIT - len(out)]
    return out


def find(conn: Conn, group_id: int, *, bgg_id: int | None, name: str | None) -> Game | None:
    """An existing game the group may use, by BGG id (first) or by normalised name."""
    scope = "(group_id IS NULL OR group_id = ?)"
    if bgg_id is not None:
        row = conn.execute(
            f"SELECT {GAME_COLUMNS} FROM games WHERE bgg_id = ? AND {scope} ORDER BY group_id IS NOT NULL, id",
            (bgg_id, group_id),
        ).fetchone()
        if row:
            return game_from_row(row)
    if name:
        row = conn.execute(
            f"SELECT {GAME_COLUMNS} FROM games WHERE norm_name = ? AND {scope} ORDER BY group_id IS NOT NULL, id",
            (normalise(name), group_id),
        ).fetchone()
        if row:
            return game_from_row(row)
    return None


def insert(conn: Conn, group_id: int, name: str, bgg_id: int | None) -> Game:
    """A new game of the group, weight ``normal`` (the caller checked that it does not exist)."""
    cur = conn.execute(
        "INSERT INTO games (group_id, name, norm_name, weight, bgg_id) VALUES (?, ?, ?, ?, ?) RETURNING id",
        (group_id, name, normalise(name), Weight.NORMAL.value, bgg_id),
    )
    game = game_by_id(conn, group_id, int(cur.fetchone()[0]))
    assert game is not None
    return game


def check_request(bgg_id: Any, name: Any) -> tuple[int | None, str | None]:
    """Validated (bggId, name) of a `POST games/game`; `Fault` R003 when neither is usable."""
    bgg: int | None = None
    if bgg_id not in (None, ""):
        try:
            bgg = int(str(bgg_id).strip())
        except ValueError:
            raise Fault("R003", "bggId must be a positive integer.") from None
        if not 0 < bgg <= MAX_ID:
            raise Fault("R003", "bggId must be a positive integer.")
    text: str | None = None
    if name is not None:
        if not isinstance(name, str):
            raise Fault("R003", "name must be text.")
        text = name.strip()
        if not text:
            text = None
        elif not has_visible(text):
            raise Fault("R003", "Give the game's name: this one has no character that shows.")
        elif len(text) > MAX_NAME:
            raise Fault("R003", f"A game's name has at most {MAX_NAME} characters.")
    if bgg is None and text is None:
        raise Fault("R003", "Give bggId or name.")
    return bgg, text
