"""Which ghost of a name is which: the same new player made on two seats becomes one ghost.

Two seats offline may both make ``*Zed``. An outbox ghost remembers the ghosts of its name the seat knew
when it was made (`seen`, from the mirror). When it is sent, a ghost of exactly its name that is not among
them is the same person, made by another seat since, and is taken instead of making a second; the matches
that name the local ghost go with it (rankterm/outbox/ghosts.py).

"Exactly" (`name_key`): the name as the service keeps it (surrounding whitespace trimmed), in Unicode NFC
(the same letters typed on two keyboards), case and inner spaces as typed; a ghost only (a member's
account is somebody else). ``zed`` or ``Zed  Ray`` for ``Zed Ray`` are other names: perhaps other people,
so they are never merged unasked (the players screen warns of them when a ghost is made online).

Among several such ghosts, the one with the smallest id is taken (`made_since`), so every seat that looks
takes the same one. The service shows no creation time, has no unique names and cannot remove a player,
so this is settled by reading its players (every page, from the service, not the mirror's copy) before
the POST and again after it: a seat that made its own while another seat did takes the smallest id too,
and leaves its own with no matches. What remains: a seat whose read before its POST came before another
seat's ghost was made, and whose POST landed after that seat's read after its own, can choose otherwise
than that seat (the reads straddled); the matches are then split between two ghosts of the name.
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
