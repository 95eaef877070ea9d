"""The one shape every import source is read into: a play, its game, its seats (and, for a source that
already knows them, its factions), plus the small readers of scores, dates and names that the sources share.

A source module (bgstats, bgg, csv_plays, rankterm_export) yields `SourcePlay`s one at a time; `ranks.py`
turns a play's seats into ranked sides and `plan.py` maps names and games onto the group. Nothing here knows
the service.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from decimal import Decimal, InvalidOperation
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from rankterm.wire.errors import RanktermError
from rankterm.wire.fields import DATE_FORMAT
from rankterm.wire.text import fold_name

_SUM = re.compile(r"^[+-]?\s*\d+(?:\.\d+)?(?:\s*[+-]\s*\d+(?:\.\d+)?)*$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?Z?$")
_TERM = re.compile(r"([+-]?)\s*(\d+(?:\.\d+)?)")


@dataclass(frozen=True, slots=True)
class SourceGame:
    """A game as the source names it."""

    name: str
    bgg_id: int | None = None
    cooperative: bool = False
    lowest_wins: bool = False


@dataclass(frozen=True, slots=True)
class Seat:
    """One person's place in a play, as the source gives it.

    `key` tells people apart within the file (a BG Stats player id, a BGG username or name, a CSV name);
    `name` is what is matched against the group; an empty name is a person the file does not name.
    """

    key: str
    name: str
    score: str = ""
    """The score as typed (may be empty, or a sum such as ``"-10+7+22"``): read with `read_score`."""
    winner: bool = False
    rank: int = 0
    """An explicit finishing place (> 0), or 0 when the source gives none."""
    team: str = ""
    """Seats of one play with the same non-empty team form one faction."""
    username: str = ""
    anonymous: bool = False
    """The source's placeholder for someone unnamed (BG Stats "Anonymous player"): never merged silently."""


@dataclass(frozen=True, slots=True)
class Side:
    """One faction of a play: the seats in it (indexes into the play's seats), its rank, points and name;
    given by a source that ranks its plays itself (rankterm's own export), else worked out by `ranks.sides`."""

    seats: tuple[int, ...]
    rank: int
    points: str = ""
    name: str = ""
    bot: bool = False


@dataclass(frozen=True, slots=True)
class SourcePlay:
    """One play to import (a BGG play of quantity 2 is two of these, with distinct external ids)."""

    external_id: str
    """Derived from the source (``bgs-<uuid>``, ``bgg-<play id>``, ``csv-<hash>``, the export's own id):
    importing the same file twice gives the same ids, so the service records nothing new."""
    where: str
    """Where in the file, for a person: ``play 12``, ``line 40``."""
    game: SourceGame
    date: str | None
    """``YYYY-MM-DD HH:MM:SS`` in UTC, or None when the source gives none or it cannot be read."""
    seats: tuple[Seat, ...] = ()
    factions: tuple[Side, ...] | None = None
    """Set by a source whose factions are already ranked; None: derive them from the seats (`ranks.py`)."""
    weight: str = "normal"
    notes: str = ""
    skip: str = ""
    """Why the source itself says to leave this play out (ignored, incomplete, a date that cannot be read)."""
    order: int = 0
    """Ties between plays of the same date are sent in this order (the source's own order)."""
    bad_date: str = field(default="", compare=False)
    """The date as written, when it could not be read."""


def read_score(text: object) -> Decimal | None:
    """A score as typed: a number, or a plain sum of integers and decimals (``"-10+7+22"`` is 19); None for
    anything else (empty, words, products)."""
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, int | float):
        try:
            return Decimal(str(text))
        except InvalidOperation:
            return None
    value = str(text).strip()
    if value.count(",") == 1 and "." not in value:  # "7,5": a decimal comma
        value = value.replace(",", ".")
    if not value or not _SUM.match(value):
        return None
    total = Decimal(0)
    for sign, number in _TERM.findall(value):
        total += -Decimal(number) if sign == "-" else Decimal(number)
    return total


def points_text(value: Decimal | None) -> str:
    """A score as the service keeps points: ``"19"``, ``"7.5"``; empty for no score."""
    if value is None:
        return ""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def fold(name: str) -> str:
    """A name of a file as the import matches it: `fold_name`, with runs of spaces as one."""
    return fold_name(name, squeeze_spaces=True)


def local_to_utc(text: str, zone: tzinfo | None = None) -> str | None:
    """A local date-time (``YYYY-MM-DD hh:mm[:ss]`` or a day) as the service's UTC ``YYYY-MM-DD HH:MM:SS``,
    taken in `zone` (None: this machine's time zone); None when it cannot be read."""
    parsed = _parse(text)
    if parsed is None:
        return None
    local = parsed.astimezone() if zone is None else parsed.replace(tzinfo=zone)
    return local.astimezone(UTC).strftime(DATE_FORMAT)


def zone_named(name: str) -> ZoneInfo:
    """The time zone of a zoneinfo name (``Europe/Paris``, ``UTC``); `RanktermError` in one sentence when
    there is none of that name."""
    text = name.strip()
    try:
        if text and not text.startswith(("/", ".")) and ".." not in text:
            return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        pass
    raise RanktermError(
        f"{name[:60]!r} is not a time zone: give a zoneinfo name such as Europe/Paris, America/New_York or UTC."
    )


def machine_zone_name() -> str:
    """This machine's time zone by its zoneinfo name when it can be told (``TZ``, then /etc/localtime), else
    its abbreviations (``CET/CEST``)."""
    candidate = os.environ.get("TZ", "").lstrip(":")
    if not candidate:  # without TZ the C library follows /etc/localtime, a link into the zoneinfo tree
        target = os.path.realpath("/etc/localtime")
        candidate = target.split("zoneinfo" + os.sep, 1)[1] if "zoneinfo" + os.sep in target else ""
    if candidate and not Path(candidate).is_absolute():
        try:
            ZoneInfo(candidate)
            return candidate
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    names = [n for n in dict.fromkeys(time.tzname) if n]
    return "/".join(names) or "UTC"


def unreadable_date(written: str) -> str:
    """Why a play whose date cannot be read is left out (the readers' `SourcePlay.skip` for it)."""
    return f"the date cannot be read ({written[:30]!r})"


def utc_date(text: str) -> str | None:
    """A date taken as UTC (rankterm's own export; a bare day from BGG or CSV, at 12:00, so the day stays
    the same in every time zone), normalised; None when it cannot be read."""
    parsed = _parse(text)
    return parsed.strftime(DATE_FORMAT) if parsed is not None else None


def _parse(text: str) -> datetime | None:
    """``YYYY-MM-DD`` (at 12:00), ``YYYY-MM-DD hh:mm`` or ``YYYY-MM-DD hh:mm:ss`` (a ``T`` and a ``Z`` allowed)."""
    found = _DATE.match((text or "").strip())
    if found is None:
        return None
    year, month, day, hour, minute, second = found.groups()
    if not 1970 <= int(year) <= 2200:
        return None
    try:
        if hour is None:
            return datetime(int(year), int(month), int(day), 12)
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0))
    except ValueError:
        return None


def as_bool(value: object) -> bool:
    """A flag as files write it: true/false, 1/0, "1"/"0", "yes"/"no"."""
    if isinstance(value, str):
        return value.strip().casefold() in ("1", "true", "yes", "y", "x", "win", "winner")
    return bool(value)


def as_int(value: object) -> int:
    """A whole number as files write it (int or digits); 0 when it is not one."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = str(value or "").strip()
    return int(text) if text.isascii() and text.lstrip("-").isdigit() else 0
