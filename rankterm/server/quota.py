"""Quota of each API client: calls, matches, ranking calls and created games, counted per time bucket.

One counter row per client, meter and UTC bucket; a charge that would take any meter past its limit is
refused whole (``Q00n``, 429) before anything is counted. The host's limits are kept in ``quota_limits``
and read as a `QuotaBook`. See docs/design/server.md.
"""

from __future__ import annotations

import calendar
import dataclasses
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Final, TypeAlias

from rankterm.server.db import Conn
from rankterm.server.wire import Fault
from rankterm.wire.models import QUOTA_FIELDS

CALLS = "calls"
MATCHES = "matches"
RANKING_CALLS = "ranking"
CREATED_GAMES = "games"


@dataclass(frozen=True, slots=True)
class QuotaLimits:
    """Limits of one client, one per quota field (WIRE.md order). A limit of 0 refuses everything; None is
    unlimited."""

    calls_per_year: int | None = 100_000
    calls_per_hour: int | None = 5_000
    matches_per_year: int | None = 50_000
    matches_per_day: int | None = 2_000
    matches_per_hour: int | None = 500
    ranking_calls_per_year: int | None = 50_000
    ranking_calls_per_day: int | None = 5_000
    ranking_calls_per_hour: int | None = 1_000
    api_created_games: int | None = 500


UNLIMITED = QuotaLimits(*([None] * len(fields(QuotaLimits))))
"""Every meter unlimited."""


@dataclass(frozen=True, slots=True)
class Meter:
    """One quota field: its wire name, what it counts, over which period, and its refusal code."""

    field: str
    attr: str
    kind: str
    period: str
    code: str


_PERIOD_WORDS = {"year": "per year", "day": "per day", "hour": "per hour", "all": "in all"}


def _meters() -> tuple[Meter, ...]:
    kinds = {
        "calls": CALLS,
        "matches": MATCHES,
        "rankingCalls": RANKING_CALLS,
        "apiCreatedGames": CREATED_GAMES,
    }
    out = []
    for i, field in enumerate(QUOTA_FIELDS, start=1):
        attr = "".join("_" + c.lower() if c.isupper() else c for c in field)
        prefix = next(p for p in kinds if field.startswith(p))
        period = field.removeprefix(prefix).removeprefix("Per").lower() or "all"
        out.append(Meter(field, attr, kinds[prefix], period, f"Q{i:03d}"))
    return tuple(out)


METERS: tuple[Meter, ...] = _meters()


def bucket_start(period: str, now: float) -> int:
    """Start (epoch seconds, UTC) of the bucket of `period` that holds `now`."""
    t = int(now)
    if period == "hour":
        return t - t % 3600
    if period == "day":
        return t - t % 86400
    if period == "year":
        return calendar.timegm((time.gmtime(t).tm_year, 1, 1, 0, 0, 0))
    return 0


def _counter_kind(meter: Meter) -> str:
    return f"{meter.kind}/{meter.period}"


def _count(conn: Conn, client_id: int, meter: Meter, now: float) -> int:
    row = conn.execute(
        "SELECT count FROM quota_counters WHERE client_id = ? AND kind = ? AND bucket = ?",
        (client_id, _counter_kind(meter), bucket_start(meter.period, now)),
    ).fetchone()
    return row[0] if row else 0


def counted(amounts: Mapping[str, int], limits: QuotaLimits) -> bool:
    """Whether charging `amounts` counts anything (False when every meter it touches is unlimited)."""
    return any(amounts.get(m.kind) and getattr(limits, m.attr) is not None for m in METERS)


def charge(conn: Conn, client_id: int, amounts: Mapping[str, int], limits: QuotaLimits, now: float) -> None:
    """Count `amounts` (kind -> how many) against the client's meters, or raise the first Q… exceeded.

    Runs inside the caller's transaction: a refused charge counts nothing (the caller rolls back). Each
    counter is bumped first (``INSERT … ON CONFLICT DO UPDATE … RETURNING``, atomic in the database and
    holding the row until the transaction ends) and checked after, so concurrent charges of one client,
    from any number of workers, never both slip under a limit.
    """
    wanted = [
        (m, amounts[m.kind]) for m in METERS if amounts.get(m.kind) and getattr(limits, m.attr) is not None
    ]
    for meter, amount in wanted:
        limit = getattr(limits, meter.attr)
        if amount > limit:
            raise _refused(meter, limit, now)
    for meter, amount in wanted:
        kind, bucket = _counter_kind(meter), bucket_start(meter.period, now)
        counted = conn.execute(
            "INSERT INTO quota_counters (client_id, kind, bucket, count) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (client_id, kind, bucket) DO UPDATE"
            " SET count = quota_counters.count + excluded.count RETURNING count",
            (client_id, kind, bucket, amount),
        ).fetchone()[0]
        limit = getattr(limits, meter.attr)
        if counted > limit:
            raise _refused(meter, limit, now)
        if counted == amount:  # a new bucket began: the older ones of this kind are never read again
            conn.execute(
                "DELETE FROM quota_counters WHERE client_id = ? AND kind = ? AND bucket < ?",
                (client_id, kind, bucket),
            )


Owed = dict[tuple[int, str, str, int], int]
"""Counts not written yet: (client id, client key, counter kind, bucket start) -> how many (see `owe`). The
key, never given twice, keeps a count off a client that took the id of a purged one before it was paid."""


def owe(
    conn: Conn, client_id: int, amounts: Mapping[str, int], limits: QuotaLimits, now: float, owed: Owed
) -> None:
    """Charge `amounts` into `owed` instead of the database (which another transaction is writing), or raise
    the first Q… exceeded, judged on the counts `conn` reads plus those already owed; `pay` writes them
    later. The caller holds `owed` for itself for the call."""
    wanted = [
        (m, amounts[m.kind]) for m in METERS if amounts.get(m.kind) and getattr(limits, m.attr) is not None
    ]
    if not wanted:
        return
    client = conn.execute("SELECT key FROM clients WHERE id = ?", (client_id,)).fetchone()
    if client is None:
        return  # purged since its token was checked: nobody left to count
    rows = []
    for meter, amount in wanted:
        limit = getattr(limits, meter.attr)
        row = (client_id, str(client[0]), _counter_kind(meter), bucket_start(meter.period, now))
        if _count(conn, client_id, meter, now) + owed.get(row, 0) + amount > limit:
            raise _refused(meter, limit, now)
        rows.append((row, amount))
    for row, amount in rows:
        owed[row] = owed.get(row, 0) + amount


def pay(conn: Conn, owed: Owed) -> None:
    """Write the counts `owe` kept (inside the caller's write transaction), each only while the client it
    was owed by still exists; never refuses."""
    for (client_id, client_key, kind, bucket), amount in owed.items():
        conn.execute(
            "INSERT INTO quota_counters (client_id, kind, bucket, count) SELECT ?, ?, ?, ?"
            " WHERE EXISTS (SELECT 1 FROM clients WHERE id = ? AND key = ?)"
            " ON CONFLICT (client_id, kind, bucket) DO UPDATE SET count = quota_counters.count + excluded.count",
            (client_id, kind, bucket, amount, client_id, client_key),
        )


def _refused(meter: Meter, limit: int, now: float) -> Fault:
    message = f"Quota reached: {meter.field} ({limit} {_PERIOD_WORDS[meter.period]})."
    return Fault(meter.code, message, retry_after=seconds_left(meter.period, now))


def seconds_left(period: str, now: float) -> int | None:
    """Whole seconds (at least 1) until the bucket of `period` holding `now` ends; None for a lifetime count."""
    t = int(now)
    if period == "hour":
        end = bucket_start("hour", t) + 3600
    elif period == "day":
        end = bucket_start("day", t) + 86400
    elif period == "year":
        end = calendar.timegm((time.gmtime(t).tm_year + 1, 1, 1, 0, 0, 0))
    else:
        return None
    return max(1, end - t)


def percent(count: int, limit: int | None) -> str:
    """Usage as WIRE.md's percentage string: rounded up, 100% only when the limit is reached; an unlimited
    meter is always "0%"."""
    if limit is None:
        return "0%"
    if count >= limit:
        return "100%"
    return f"{min(99, math.ceil(100 * count / limit))}%"


def usage(conn: Conn, client_id: int, limits: QuotaLimits, now: float) -> dict[str, str]:
    """Each quota field (WIRE.md order) -> percentage string."""
    out = {}
    for meter in METERS:
        limit = getattr(limits, meter.attr)
        out[meter.field] = percent(_count(conn, client_id, meter, now) if limit is not None else 0, limit)
    return out


# ------------------------------------------------------------------ the host's settings

EVERY: Final = 0
"""The client id of the ``quota_limits`` rows that hold for every client."""

DEFAULT: Final = "default"
UNLIMITED_WORD: Final = "unlimited"

Setting: TypeAlias = int | str | None
"""A field's new limit: a number, None (unlimited) or `DEFAULT` (back to the default)."""

_FIELD_BY_NAME = {m.field.lower(): m for m in METERS}
_KIND_NAMES = {"calls": CALLS, "matches": MATCHES, "rankingcalls": RANKING_CALLS}


def parse_settings(text: str) -> dict[str, Setting]:
    """``unlimited``, ``default`` or ``field=value,…`` (a field of the quota payload, any case, or
    ``calls``/``matches``/``rankingCalls`` for all of that kind's fields; a value is a whole number,
    ``unlimited`` or ``default``) -> {quota field: setting}; `ValueError` with one sentence otherwise."""
    words = text.strip()
    if words.lower() in (UNLIMITED_WORD, DEFAULT):
        value: Setting = None if words.lower() == UNLIMITED_WORD else DEFAULT
        return dict.fromkeys((m.field for m in METERS), value)
    out: dict[str, Setting] = {}
    for part in words.split(","):
        name, equals, raw = (x.strip() for x in part.partition("="))
        if not equals and out and name.isascii() and name.isdigit():
            raise ValueError(f"--quota: write numbers without commas (5000 or 5_000), not ',{name}'.")
        if not equals or not name:
            raise ValueError(
                f"--quota takes 'unlimited', 'default' or field=value pairs separated by commas, not {part.strip()!r}."
            )
        chosen = _fields_named(name)
        setting = _setting(name, raw)
        out.update(dict.fromkeys(chosen, setting))
    return out


def _fields_named(name: str) -> list[str]:
    key = name.lower()
    if key in _FIELD_BY_NAME:
        return [_FIELD_BY_NAME[key].field]
    if key in _KIND_NAMES:
        return [m.field for m in METERS if m.kind == _KIND_NAMES[key]]
    raise ValueError(
        f"--quota: {name!r} is no quota field (the fields are {', '.join(m.field for m in METERS)};"
        " calls, matches and rankingCalls set all of theirs)."
    )


def _setting(name: str, raw: str) -> Setting:
    word = raw.lower()
    if word == UNLIMITED_WORD:
        return None
    if word == DEFAULT:
        return DEFAULT
    digits = raw.replace("_", "")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 15:
        raise ValueError(
            f"--quota: {name}={raw!r} is not a limit (give a whole number from 0, 'unlimited' or 'default')."
        )
    return int(digits)


@dataclass(frozen=True, slots=True)
class QuotaBook:
    """The limits the host set: those of every client, every client of a group, and each client's own where
    it has some (layered in that order: a client's own settings change its group's limits)."""

    every: QuotaLimits = QuotaLimits()
    clients: Mapping[int, QuotaLimits] = dataclasses.field(default_factory=dict)
    groups: Mapping[int, QuotaLimits] = dataclasses.field(default_factory=dict)

    def limits(self, client_id: int, group_id: int | None = None) -> QuotaLimits:
        """The limits that hold for `client_id` of `group_id`."""
        own = self.clients.get(client_id)
        if own is not None:
            return own
        if group_id is not None:
            return self.groups.get(group_id, self.every)
        return self.every


def stored_book(conn: Conn) -> QuotaBook:
    """The limits kept in the database."""
    by_attr = {m.field: m.attr for m in METERS}

    def settings(rows: list) -> dict[int, dict[str, int | None]]:
        out: dict[int, dict[str, int | None]] = {}
        for owner, name, value in rows:
            if name in by_attr:  # a field a newer rankterm knows of is left to it
                out.setdefault(owner, {})[by_attr[name]] = value
        return out

    own = settings(
        conn.execute("SELECT client_id, field, value FROM quota_limits ORDER BY client_id, field").fetchall()
    )
    every = replace(QuotaLimits(), **own.pop(EVERY, {}))
    by_group = settings(
        conn.execute(
            "SELECT group_id, field, value FROM group_quota_limits ORDER BY group_id, field"
        ).fetchall()
    )
    groups = {group_id: replace(every, **values) for group_id, values in by_group.items()}
    group_of = dict(conn.execute("SELECT id, group_id FROM clients").fetchall()) if own else {}
    clients = {
        client_id: replace(groups.get(group_of.get(client_id, 0), every), **values)
        for client_id, values in own.items()
    }
    return QuotaBook(every, clients, groups)


def store_settings(conn: Conn, client_id: int, settings: Mapping[str, Setting]) -> None:
    """Keep `settings` for `client_id`, or for every client (`EVERY`: each client's and each group's own
    setting of those fields is dropped, so the new one holds for all)."""
    for name, setting in settings.items():
        if client_id == EVERY:
            conn.execute("DELETE FROM quota_limits WHERE field = ?", (name,))
            conn.execute("DELETE FROM group_quota_limits WHERE field = ?", (name,))
        else:
            conn.execute("DELETE FROM quota_limits WHERE client_id = ? AND field = ?", (client_id, name))
        if setting != DEFAULT:
            conn.execute(
                "INSERT INTO quota_limits (client_id, field, value) VALUES (?, ?, ?)",
                (client_id, name, setting),
            )


def store_group_settings(conn: Conn, group_id: int, settings: Mapping[str, Setting]) -> None:
    """Keep `settings` for every client of the group (each client's own setting of those fields is dropped,
    so the group's holds for all of its clients)."""
    for name, setting in settings.items():
        conn.execute("DELETE FROM group_quota_limits WHERE group_id = ? AND field = ?", (group_id, name))
        conn.execute(
            "DELETE FROM quota_limits WHERE field = ? AND client_id IN (SELECT id FROM clients WHERE group_id = ?)",
            (name, group_id),
        )
        if setting != DEFAULT:
            conn.execute(
                "INSERT INTO group_quota_limits (group_id, field, value) VALUES (?, ?, ?)",
                (group_id, name, setting),
            )


_SHORT_PERIOD = {"year": "/year", "day": "/day", "hour": "/hour", "all": ""}
_KIND_WORDS = {
    CALLS: "calls",
    MATCHES: "matches",
    RANKING_CALLS: "ranking calls",
    CREATED_GAMES: "games created",
}


def describe(limits: QuotaLimits) -> str:
    """The limits in a few words: ``calls 5,000/hour 100,000/year · matches unlimited · …``."""
    if limits == UNLIMITED:
        return "unlimited"
    parts = []
    for kind, words in _KIND_WORDS.items():
        meters = [m for m in METERS if m.kind == kind]
        values = [getattr(limits, m.attr) for m in meters]
        if all(v is None for v in values):
            parts.append(f"{words} unlimited")
            continue
        shown = [
            ("unlimited" if v is None else f"{v:,}") + _SHORT_PERIOD[m.period]
            for m, v in sorted(zip(meters, values, strict=True), key=lambda mv: _ORDER[mv[0].period])
        ]
        parts.append(f"{words} {' '.join(shown)}")
    return " · ".join(parts)


_ORDER = {"hour": 0, "day": 1, "year": 2, "all": 3}
