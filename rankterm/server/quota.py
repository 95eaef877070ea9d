"""Quota of each API client: calls, matches, ranking calls and created games, counted per time bucket.

A counter row is (client, meter kind, bucket start) -> count: one row per hour/day/year bucket, never one per
call; the first increment of a new bucket drops the client's older buckets of that kind. Buckets are UTC-aligned (hour, day,
calendar year); ``apiCreatedGames`` is a lifetime count (one bucket).

Meters are in the order of WIRE.md's quota payload, and the n-th meter refuses with code ``Q00n`` (429).
A charge that would take any meter past its limit is refused whole, before anything is counted.

Percentages (`usage`) are integers rounded UP, so any use shows at least 1%, except that 100% is kept for
a limit actually reached: below it the figure stops at 99%.
"""

from __future__ import annotations

import calendar
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

from rankterm.api.models import QUOTA_FIELDS
from rankterm.server.conn import Conn
from rankterm.server.wire import Fault

CALLS = "calls"
MATCHES = "matches"
RANKING_CALLS = "ranking"
CREATED_GAMES = "games"


@dataclass(frozen=True, slots=True)
class QuotaLimits:
    """Limits of one client, one per quota field (WIRE.md order). A limit of 0 refuses everything."""

    calls_per_year: int = 100_000
    calls_per_hour: int = 5_000
    matches_per_year: int = 50_000
    matches_per_day: int = 2_000
    matches_per_hour: int = 500
    ranking_calls_per_year: int = 50_000
    ranking_calls_per_day: int = 5_000
    ranking_calls_per_hour: int = 1_000
    api_created_games: int = 500


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


def charge(conn: Conn, client_id: int, amounts: Mapping[str, int], limits: QuotaLimits, now: float) -> None:
    """Count `amounts` (kind -> how many) against the client's meters, or raise the first Q… exceeded.

    Runs inside the caller's transaction: a refused charge counts nothing (the caller rolls back). Each
    counter is bumped first (``INSERT … ON CONFLICT DO UPDATE … RETURNING``, atomic in the database and
    holding the row until the transaction ends) and checked after, so concurrent charges of one client,
    from any number of workers, never both slip under a limit.
    """
    wanted = [(m, amounts[m.kind]) for m in METERS if amounts.get(m.kind)]
    for meter, amount in wanted:
        limit = getattr(limits, meter.attr)
        if amount > limit:
            raise Fault(meter.code, _refusal(meter, limit))
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
            raise Fault(meter.code, _refusal(meter, limit))
        if counted == amount:  # a new bucket began: the older ones of this kind are never read again
            conn.execute(
                "DELETE FROM quota_counters WHERE client_id = ? AND kind = ? AND bucket < ?",
                (client_id, kind, bucket),
            )


def _refusal(meter: Meter, limit: int) -> str:
    return f"Quota reached: {meter.field} ({limit} {_PERIOD_WORDS[meter.period]})."


def percent(count: int, limit: int) -> str:
    """Usage as WIRE.md's percentage string: rounded up, 100% only when the limit is reached."""
    if count >= limit:
        return "100%"
    return f"{min(99, math.ceil(100 * count / limit))}%"


def usage(conn: Conn, client_id: int, limits: QuotaLimits, now: float) -> dict[str, str]:
    """Each quota field (WIRE.md order) -> percentage string."""
    return {m.field: percent(_count(conn, client_id, m, now), getattr(limits, m.attr)) for m in METERS}
