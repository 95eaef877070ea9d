"""What every part of the embedded service shares about the wire: error codes, faults, pages and dates.

`Fault` is the one exception the store and the app raise for an answer that is an error; the app turns it
into WIRE.md's envelope ``{"errors": [{"code", "message"}]}`` with the code's HTTP status, from the wire's
one table of codes (`rankterm.wire.errors.CODES`).
"""

from __future__ import annotations

import math
import time
from typing import Any

from rankterm.wire.errors import status_for_code
from rankterm.wire.fields import wire_seconds
from rankterm.wire.models import DATE_FORMAT

__all__ = [
    "MAX_ID",
    "PAGE_SIZE",
    "RANKINGS_PAGE_KEYS",
    "Fault",
    "format_time",
    "only_keys",
    "page_bounds",
    "parse_time",
    "status_for_code",
    "total_pages",
]

MAX_ID = 2**63 - 1
"""The largest row id either database can hold (a signed 64-bit integer): a larger one names nothing."""

PAGE_SIZE = 25
"""Rows per page of every paginated list (WIRE.md: 25 seen)."""

RANKINGS_PAGE_KEYS: tuple[str, ...] = ("page", "totalPages", "rowsForPage", "data", "subset", "match")
"""A rankings page's keys, exactly (WIRE.md "Pages"): no count key, which a public client fails on."""


class Fault(Exception):
    """An error answer: an envelope code, one sentence for a person, the HTTP status and, for a refusal that
    holds until a moment, the seconds until then (sent as ``Retry-After``)."""

    def __init__(
        self, code: str, message: str, status: int | None = None, *, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status if status is not None else status_for_code(code)
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"Fault({self.code!r}, {self.message!r}, {self.status})"


def format_time(epoch: float) -> str:
    """Seconds since the epoch -> ``"YYYY-MM-DD HH:MM:SS"`` (UTC, the service's one time zone)."""
    return time.strftime(DATE_FORMAT, time.gmtime(epoch))


def parse_time(text: str) -> float:
    """``"YYYY-MM-DD HH:MM:SS"`` (UTC) -> seconds since the epoch."""
    return wire_seconds(text)


def total_pages(rows: int, size: int = PAGE_SIZE) -> int:
    """Pages needed for `rows` rows; an empty list still has its one (empty) page."""
    return max(1, math.ceil(rows / size))


def page_bounds(page: int, size: int = PAGE_SIZE) -> tuple[int, int]:
    """(offset, limit) of 1-based `page`."""
    return (page - 1) * size, size


def only_keys(payload: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """`payload` cut to exactly `keys`, in that order (`KeyError` if one is missing: a bug here)."""
    return {key: payload[key] for key in keys}
