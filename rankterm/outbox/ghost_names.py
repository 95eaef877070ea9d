"""Which ghost of a name is which: the same new player made on two seats becomes one ghost.

A ghost of exactly its name (`name_key`: trimmed, NFC, case and inner spaces as typed) that another seat made
since (`made_since`: not among those the seat had seen; the smallest id among several) is taken instead of
making a second. See docs/design/local-files.md.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

from rankterm.wire.ids import is_local_id
from rankterm.wire.models import Player
from rankterm.wire.text import display_safe

GHOST_MARK = "*"
"""What the service puts before a ghost's name in its display name."""


def name_key(text: str) -> str:
    """What two ghost names must share to be exactly the same name (see the module's docstring)."""
    return unicodedata.normalize("NFC", text.strip())


def is_named(player: Player, name: str) -> bool:
    """Whether `player` is a ghost called exactly `name`. The client shows what it reads display-safe (a
    control character as a symbol): the name is compared both as typed and so."""
    if not player.ghost:
        return False
    wanted = GHOST_MARK + name.strip()
    return name_key(player.display_name) in (name_key(wanted), name_key(display_safe(wanted)))


def new_since(players: Iterable[Player], name: str, known: Iterable[str]) -> list[Player]:
    """The service's ghosts called `name` whose ids are not in `known` (local ones left out)."""
    ids = set(known)
    return [p for p in players if is_named(p, name) and str(p.id) not in ids and not is_local_id(p.id)]


def same_named(players: Iterable[Player], name: str) -> tuple[str, ...]:
    """Ids of the service's ghosts called `name` (local ones left out)."""
    return tuple(str(p.id) for p in new_since(players, name, ()))


def made_since(players: Sequence[Player], name: str, known: Iterable[str]) -> Player | None:
    """The service's ghost called `name` that is not one of `known`, else None; of several, the one with
    the smallest id (every seat that looks takes the same one)."""
    found = new_since(players, name, known)
    return min(found, key=lambda p: str(p.id)) if found else None
