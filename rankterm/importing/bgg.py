"""BoardGameGeek plays (XML API 2, saved to a file) read into `SourcePlay`s (FORMATS.md "BoardGameGeek plays").

Streamed with `xml.etree.ElementTree.XMLPullParser`: each ``<play>`` is read and then cleared, so memory stays
flat. A file may hold one saved page, several pages under one root, or several pages pasted one after the
other. What is read, and how quantity, incomplete plays, dates and anonymous seats are taken: docs/importing.md
("What each source gives").
"""

from __future__ import annotations

import codecs
import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import cast
from xml.etree.ElementTree import Element, ParseError, XMLPullParser

from rankterm.importing.plays import (
    Seat,
    SourceGame,
    SourcePlay,
    as_bool,
    as_int,
    fold,
    unreadable_date,
    utc_date,
)
from rankterm.wire.errors import RanktermError

PREFIX = "bgg-"
MAX_QUANTITY = 100
ANONYMOUS = "anonymous player"
"""BGG's name for a seat the logger did not name (folded)."""
CHUNK = 64 * 1024

_DECLARATION = re.compile(r"<\?xml\s[^>]*\?>")
_ENCODING = re.compile(rb"""<\?xml\s[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_ROOT = "rankterm-pages"


def read(path: Path) -> Iterator[SourcePlay]:
    """The plays of the saved XML at `path`, in file order (one play in memory at a time)."""
    n = 0
    parents: list[Element] = []
    try:
        for event, elem in _events(path):
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
    except UnicodeDecodeError as exc:
        raise RanktermError(f"{path.name}: the XML cannot be read (it is not {exc.encoding} text).") from None
    except LookupError as exc:
        raise RanktermError(f"{path.name}: the XML cannot be read ({exc}).") from None


def _events(path: Path) -> Iterator[tuple[str, Element]]:
    """(event, element) of the file's pages as if they were under one root element (never yielded): the
    ``<?xml …?>`` declarations are left out, so pages pasted one after the other read as one document."""
    parser: XMLPullParser[Element] = XMLPullParser(events=("start", "end"))
    parser.feed(f"<{_ROOT}>")
    with path.open("rb") as fh:
        first = fh.read(CHUNK)
        declared = _ENCODING.match(first.lstrip(b"\xef\xbb\xbf \t\r\n"))
        decoder = codecs.getincrementaldecoder(declared.group(1).decode() if declared else "utf-8")()
        held = ""
        chunk = first
        while chunk:
            held += decoder.decode(chunk)
            cut = held.rfind(">") + 1  # a declaration that starts before the last ">" ends by it
            parser.feed(_DECLARATION.sub("", held[:cut]).replace("\ufeff", ""))
            held = held[cut:]
            yield from _read_events(parser)
            chunk = fh.read(CHUNK)
        held += decoder.decode(b"", final=True)
    parser.feed(_DECLARATION.sub("", held).replace("\ufeff", "") + f"</{_ROOT}>")
    parser.close()
    yield from _read_events(parser)


def _read_events(parser: XMLPullParser[Element]) -> Iterator[tuple[str, Element]]:
    events = cast("Iterator[tuple[str, Element]]", parser.read_events())  # start and end: an element each
    for event, elem in events:
        if elem.tag != _ROOT:
            yield event, elem


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
        skip = unreadable_date(written)
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
        anonymous=not username and fold(name) == ANONYMOUS,
    )


def _fingerprint(date: str, game: SourceGame, seats: tuple[Seat, ...]) -> str:
    text = repr((date, game.name, game.bgg_id, [(s.key, s.score, s.winner) for s in seats]))
    return hashlib.sha1(text.encode()).hexdigest()[:20]
