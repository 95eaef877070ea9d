"""BoardGameGeek plays (XML API 2, saved to a file) read into `SourcePlay`s (FORMATS.md "BoardGameGeek plays").

Streamed with `xml.etree.ElementTree.iterparse`: each ``<play>`` is read and then cleared, so memory stays
flat however many plays the file holds (one saved page, or several pages joined under one root).
What is read: ``<play id date quantity incomplete nowinstats>``, its ``<item name objectid>`` and each
``<player name username score win>``.

- a play of ``quantity="n"`` is n matches: external ids ``bgg-<id>``, ``bgg-<id>-2`` … ``bgg-<id>-n``;
- ``incomplete="1"`` and ``nowinstats="1"`` plays are skipped, with the reason (BGG leaves them out of
  its own statistics, so they are not rated here either);
- the date is a day: taken at 12:00 UTC; plays of one day keep BGG's order (by play id);
- a seat's person is told apart by ``username`` (else ``name``) and matched to the group by ``name`` (else
  the username); BGG has no ranks and no teams: scores, then ``win`` flags order a play.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError, iterparse

from rankterm.api.errors import RanktermError
from rankterm.api.importing.plays import Seat, SourceGame, SourcePlay, as_bool, as_int, utc_date

PREFIX = "bgg-"
MAX_QUANTITY = 100


def read(path: Path) -> Iterator[SourcePlay]:
    """The plays of the saved XML at `path`, in file order (iterparse: one play in memory at a time)."""
    n = 0
    parents: list[Element] = []
    try:
        for event, elem in iterparse(str(path), events=("start", "end")):
            if event == "start":
                parents.append(elem)
                continue
            parents.pop()
            if elem.tag != "play":
                continue
            n += 1
            yield from _plays(n, elem)
            elem.clear()
            if parents:  # drop the cleared play from its parent too: the root never grows
                parents[-1].remove(elem)
    except ParseError as exc:
        raise RanktermError(f"{path.name}: the XML cannot be read ({exc}).") from None


def _plays(n: int, play: Element) -> Iterator[SourcePlay]:
    item = play.find("item")
    bgg = as_int(item.get("objectid")) if item is not None else 0
    game = SourceGame(name=(item.get("name") or "").strip() if item is not None else "", bgg_id=bgg or None)
    seats = tuple(_seat(p) for p in play.iterfind("players/player"))
    play_id = (play.get("id") or "").strip()
    written = play.get("date") or ""
    date = utc_date(written)
    skip = ""
    if as_bool(play.get("incomplete")):
        skip = "marked incomplete on BGG"
    elif as_bool(play.get("nowinstats")):
        skip = "left out of statistics on BGG (nowinstats)"
    elif date is None:
        skip = f"the date cannot be read ({written[:30]!r})"
    comments = play.find("comments")
    notes = (comments.text or "").strip()[:5000] if comments is not None else ""
    base = PREFIX + (play_id or _fingerprint(written, game, seats))
    quantity = min(MAX_QUANTITY, max(1, as_int(play.get("quantity")) or 1))
    order = as_int(play_id) or n
    for k in range(1, quantity + 1):
        yield SourcePlay(
            external_id=base if k == 1 else f"{base}-{k}",
            where=f"play {n}"
            + (f" (id {play_id})" if play_id else "")
            + (f", {k} of {quantity}" if quantity > 1 else ""),
            game=game,
            date=date,
            seats=seats,
            notes=notes,
            skip=skip,
            order=order * MAX_QUANTITY + k,
            bad_date=written if date is None else "",
        )


def _seat(player: Element) -> Seat:
    username = (player.get("username") or "").strip()
    name = (player.get("name") or "").strip()
    return Seat(
        key=f"bgg-user-{username.casefold()}" if username else f"bgg-name-{name}",
        name=name or username,
        score=(player.get("score") or "").strip(),
        winner=as_bool(player.get("win")),
        username=username,
    )


def _fingerprint(date: str, game: SourceGame, seats: tuple[Seat, ...]) -> str:
    text = repr((date, game.name, game.bgg_id, [(s.key, s.score, s.winner) for s in seats]))
    return hashlib.sha1(text.encode()).hexdigest()[:20]
