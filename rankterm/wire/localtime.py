"""The seat's time zone: the service's UTC dates as the clock on the wall reads them, and back.

The wire's dates are naive UTC, read by `wire_date` alone (`parse_wire_date`, `wire_seconds`). `seat_zone`
gives the zone of the `timezone` setting (`Config.zone`), else this machine's: it shows a date, names a column
("Date (Auckland)") and turns a time typed at the table into the wire's UTC. Without tzdata it shows UTC and
`note` says why. See docs/development.md ("Times") and docs/configuration.md.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
"""The wire's dates: naive UTC, to the second (the service's one time zone)."""

MINUTE = "%Y-%m-%d %H:%M"
"""A date to the minute, as lists show it."""

TYPED_FORMATS = (DATE_FORMAT, MINUTE, "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d")
"""What a person may type for a time: to the second or the minute, or a day (its midnight)."""


def wire_date(text: str) -> datetime:
    """The wire's "YYYY-MM-DD HH:MM:SS" as a naive UTC datetime; ValueError when it is not one.

    The one reader of the wire's dates: `fromisoformat` reads that shape far faster than `strptime`, and the
    shape is checked first because `fromisoformat` also takes other ISO forms the wire never sends.
    """
    if _WIRE_SHAPE.match(text):
        try:
            return datetime.fromisoformat(text)
        except ValueError:  # a day or an hour that does not exist
            pass
    raise ValueError(f"{text[:40]!r} is not a date of the wire (YYYY-MM-DD HH:MM:SS)")


def read_layouts(text: str, layouts: Sequence[str] = TYPED_FORMATS) -> datetime | None:
    """`text` (its ends stripped) read by the first of `layouts` (strptime's) that fits it, naive; None when
    none does."""
    value = text.strip()
    for layout in layouts:
        try:
            return datetime.strptime(value, layout)
        except ValueError:
            continue
    return None


def parse_wire_date(text: object) -> datetime | None:
    """`wire_date`, or None when `text` is not a date of the wire."""
    if not isinstance(text, str):
        return None
    try:
        return wire_date(text)
    except ValueError:
        return None


def wire_seconds(text: str) -> float:
    """A date of the wire as seconds since the epoch (the wire's dates are UTC); ValueError when it is not one."""
    return wire_date(text).replace(tzinfo=UTC).timestamp()


_WIRE_SHAPE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\Z", re.ASCII)


def _zone_info(name: str) -> ZoneInfo | None:
    """The zone of a zoneinfo name, or None (unknown, or no database to look it up in)."""
    text = name.strip()
    if not text or text.startswith(("/", ".")) or ".." in text:
        return None
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def has_zone_database() -> bool:
    """True when zone names can be looked up here (the system's zoneinfo tree or the tzdata package)."""
    return _zone_info("Etc/UTC") is not None


def zone_problem(name: str) -> str | None:
    """Why `name` is not a time zone, in words that follow a setting's name; None when it is one, or when
    this machine has no database to tell (then `seat_zone` shows UTC and says why)."""
    if _zone_info(name) is not None or (name.strip() and not has_zone_database()):
        return None
    return f"{name[:60]!r} is not a time zone: give a zoneinfo name such as Europe/Paris, America/New_York or UTC"


def _place(name: str) -> str:
    """A zoneinfo name as a header says it: its place ("Pacific/Auckland" -> "Auckland"), UTC for UTC."""
    if name.upper() in ("UTC", "ETC/UTC", "UCT", "ETC/UCT", "ZULU", "ETC/ZULU", "UNIVERSAL", "ETC/UNIVERSAL"):
        return "UTC"
    return name.rsplit("/", 1)[-1].replace("_", " ")


@dataclass(frozen=True)
class SeatZone:
    """A time zone to show times in, and the words that name it.

    `tz` None stands for this machine's local time as the C library keeps it (a `TZ` that is no zoneinfo
    name, such as "CET-1CEST,M3.5.0,M10.5.0/3").
    """

    tz: tzinfo | None
    name: str
    """The zone's zoneinfo name ("Pacific/Auckland", "UTC"), or its abbreviations ("CET/CEST")."""
    note: str = ""
    """Why the times are not in the zone asked for, when they are not (one sentence); else empty."""

    @property
    def label(self) -> str:
        """The zone in a header: "Auckland", "New York", "UTC"."""
        return _place(self.name)

    def heading(self, title: str) -> str:
        """A column's or line's title with the zone: "Date (Auckland)"."""
        return f"{title} ({self.label})"

    def local(self, moment: datetime) -> datetime:
        """`moment` (aware, or naive UTC as the wire's) in this zone."""
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(self.tz) if self.tz is not None else moment.astimezone()

    def from_wire(self, text: str | None) -> datetime | None:
        """A wire date ("YYYY-MM-DD HH:MM:SS", UTC) in this zone; None when it is not one."""
        when = parse_wire_date(text)
        return None if when is None else self.local(when)

    def show(self, text: str | None, layout: str = MINUTE) -> str:
        """A wire date in this zone, as `layout` writes it ("2026-05-29 08:26"); a text that is not a wire
        date is shown as it is, cut to the layout's length at most."""
        when = self.from_wire(text)
        if when is None:
            return (text or "")[:16]
        return when.strftime(layout)

    def from_timestamp(self, seconds: float) -> datetime:
        """Seconds since the epoch in this zone."""
        return self.local(datetime.fromtimestamp(seconds, UTC))

    def to_wire(self, local: datetime) -> str:
        """A wall-clock time of this zone (naive) as the wire's UTC "YYYY-MM-DD HH:MM:SS"."""
        aware = local.replace(tzinfo=self.tz) if self.tz is not None else local.astimezone()
        return aware.astimezone(UTC).strftime(DATE_FORMAT)

    def read_typed(self, text: str) -> datetime | None:
        """A time typed in this zone ("YYYY-MM-DD HH:MM[:SS]", a "T" allowed, or a day: its midnight), naive;
        None when it cannot be read."""
        return read_layouts(text)

    def typed_to_wire(self, text: str) -> str | None:
        """A time typed in this zone as the wire's UTC text; None when it cannot be read."""
        local = self.read_typed(text)
        return None if local is None else self.to_wire(local)


UTC_ZONE = SeatZone(UTC, "UTC")


def _no_database(asked: str) -> SeatZone:
    return SeatZone(
        UTC,
        "UTC",
        note=f"This machine has no time zone database (install tzdata): times are shown in UTC, not {asked}.",
    )


def machine_zone() -> SeatZone:
    """This machine's zone: `TZ` when set, else /etc/localtime, by its zoneinfo name when it has one (worked
    out once for each `TZ`)."""
    key = (os.environ.get("TZ"), has_zone_database())
    zone = _MACHINE.get(key)
    if zone is None:
        zone = _MACHINE[key] = _machine_zone()
    return zone


_MACHINE: dict[tuple[str | None, bool], SeatZone] = {}


def _machine_zone() -> SeatZone:
    candidate = os.environ.get("TZ", "").lstrip(":")
    if not candidate and "TZ" not in os.environ:  # the C library then follows /etc/localtime
        target = os.path.realpath("/etc/localtime")
        marker = "zoneinfo" + os.sep
        candidate = target.split(marker, 1)[1] if marker in target else ""
    if candidate and (zone := _zone_info(candidate)) is not None:
        return SeatZone(zone, candidate)
    if candidate and "/" in candidate and not os.path.isabs(candidate) and not has_zone_database():
        return _no_database(candidate)
    names = [n for n in dict.fromkeys(time.tzname) if n]
    if not names or names == ["UTC"]:
        return UTC_ZONE
    return SeatZone(None, "/".join(names))


def seat_zone(setting: str = "") -> SeatZone:
    """The zone a `timezone` setting names ("" for this machine's); UTC, saying why, when this machine has no
    database to read the name in. A name that is no zone (refused when the config is read) gives UTC too."""
    if not setting.strip():
        return machine_zone()
    zone = _zone_info(setting)
    if zone is not None:
        return SeatZone(zone, setting.strip())
    if not has_zone_database():
        return _no_database(setting.strip())
    return SeatZone(UTC, "UTC", note=f"{setting[:60]!r} is not a time zone: times are shown in UTC.")
