"""Fetching the pages of a list: how many requests may be in flight, and what the quota still allows.

`RankingClient` reads page 1 alone (it tells how many pages there are), then pages 2..N through
`fetch_pages`, which asks a `Window` how many may be in flight:

- **Start**: `START` (12) in flight, never more than the pages left, never more than `ceiling` (the
  client's `max_concurrency`, `CEILING` = 24; the httpx pool of a client that makes its own keeps that many
  connections alive). Both from `benchmarks/bench_pages.py` on a 2-core machine: starting at 8 cost about a
  round trip; past 24 the client's own work per pooled connection (httpcore walks all of them, some twice,
  at each request) ate what more in flight gained (quiet machine: 16 gave 7.8x, 24 8.0-8.9x, 32 7.4x).
- **Grow while the service answers in time**: an answer is in time when it took at most `slack` (3) times
  the fastest answer of this fetch, page 1 included (a new connection's handshake costs a round trip more
  than a warm one, so 2 would call every first answer on a new connection late). Each answer in time adds
  one place (the window doubles every round trip) until the first sign of pressure; after it, one place
  per window's worth of answers. A late answer adds nothing: more in flight would only queue at the service.
- **Halve at pressure**: a 5xx, a 429 without a quota code (rate limiting, not a meter), or a lost
  connection, reported by `RankingClient.call` through `report_pressure` as it happens, before its retry.
  One halving per round: pressure from a request sent before the last halving is the same episode. The
  refused request is retried by `call` under its usual rules (GETs only, `retries` times, its backoff or the
  answer's Retry-After) and keeps its place meanwhile; no new page goes out while more are in flight than
  the halved window allows, so the retry goes out as the pressure eases.
- **Never more calls than pages**: each page is sent once (retries of a refused one aside); the pages of
  the list are all that is sent, and the answers come back in page order.
- **The quota**: the service shows its quota only as percentages (`GET quota`) and as Q… refusals (429), so
  what the client knows is whether the meters a page call spends (API calls per hour and per year, Q002 and
  Q001) are full. `QuotaView` keeps the last quota read and the last such refusal; while one of them says
  a meter is full in its current period (by this machine's clock, UTC hours and years as the service
  counts them), `calls_left()` is 0 and a list is refused at once with `QuotaError`, no call sent. A
  caller that knows an absolute number of calls left sets `RankingClient.call_budget` (each metered call
  counts it down): a list needing more pages than that is refused before any page past the first is sent,
  so a list that could not be completed does not spend the calls that recording matches needs. During a fetch, the first quota refusal stops it:
  no further page is sent, the ones in flight are dropped, and the `QuotaError` is raised.
"""

from __future__ import annotations

import asyncio
import calendar
import contextlib
import contextvars
import functools
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from rankterm.wire.errors import QuotaError
from rankterm.wire.models import Quota

T = TypeVar("T")

START = 12
CEILING = 24
SLACK = 3.0
AHEAD = 4
"""Answers that may wait for an earlier page, in windows' ceilings (`stream_pages`)."""

_PRESSURE: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "rankterm_paging_pressure", default=None
)


def report_pressure() -> None:
    """Tell the window of the page being fetched in this task (if any) that the service pushed back."""
    hook = _PRESSURE.get()
    if hook is not None:
        hook()


@dataclass
class Window:
    """How many page requests may be in flight; see the module docstring for the rules."""

    start: int = START
    ceiling: int = CEILING
    slack: float = SLACK
    size: float = 0.0
    fastest: float | None = None
    slow_start: bool = True
    sent: int = 0
    """Requests started, also the number of the next one."""
    most_in_flight: int = 0
    halvings: int = 0
    sizes: list[int] = field(default_factory=list)
    """The window after each change (for tests and the benchmark)."""
    _episode_from: int = 0

    def __post_init__(self) -> None:
        self.ceiling = max(1, self.ceiling)
        self.size = float(max(1, min(self.start, self.ceiling)))
        self.sizes.append(int(self.size))

    @property
    def allowed(self) -> int:
        return int(self.size)

    def note_first(self, seconds: float) -> None:
        """Page 1's time: the first reference for "in time"."""
        self.fastest = seconds if self.fastest is None else min(self.fastest, seconds)

    def answered(self, seq: int, seconds: float) -> None:
        """Request `seq` came back after `seconds`: grow when it was in time."""
        self.fastest = seconds if self.fastest is None else min(self.fastest, seconds)
        if seq < self._episode_from or seconds > self.slack * self.fastest:
            return
        grown = self.size + (1.0 if self.slow_start else 1.0 / self.size)
        self._set(min(float(self.ceiling), grown))

    def pressure(self, seq: int) -> None:
        """Request `seq` met a 5xx, a rate-limiting 429 or a lost connection: halve, once per round."""
        if seq < self._episode_from:
            return
        self.slow_start = False
        self.halvings += 1
        self._episode_from = self.sent
        self._set(max(1.0, float(int(self.size) // 2)))

    def _set(self, size: float) -> None:
        before = int(self.size)
        self.size = size
        if int(size) != before:
            self.sizes.append(int(size))


async def fetch_pages(
    numbers: Sequence[int], fetch: Callable[[int], Awaitable[T]], window: Window
) -> list[T]:
    """`fetch(n)` for each of `numbers`, as many at once as `window` allows; the results in that order.

    The first error stops it: nothing more is sent, the requests in flight are cancelled, the error raised.
    """
    async with contextlib.aclosing(stream_pages(numbers, fetch, window)) as pages:
        return [page async for page in pages]


async def stream_pages(
    numbers: Sequence[int], fetch: Callable[[int], Awaitable[T]], window: Window
) -> AsyncGenerator[T, None]:
    """`fetch_pages`, each result given as soon as those before it are in: a long read is written as it
    arrives instead of held to its end. At most `AHEAD` times the window's ceiling of answers wait for an
    earlier one (a slow page holds back new requests, not memory). Close it (`contextlib.aclosing`) to
    stop early: the requests in flight are cancelled."""
    results: dict[int, T] = {}
    waiting = deque(enumerate(numbers))
    running: dict[asyncio.Task[T], tuple[int, int, float]] = {}
    finished: list[asyncio.Task[T]] = []
    wake = asyncio.Event()

    def done(task: asyncio.Task[T]) -> None:
        # Each answer wakes the loop by itself: no wait registered on every task in flight at each answer.
        finished.append(task)
        wake.set()

    given = 0
    try:
        while waiting or running or given in results:
            while given in results:
                yield results.pop(given)
                given += 1
            if not waiting and not running:
                break
            while (
                waiting and len(running) < window.allowed and waiting[0][0] - given < AHEAD * window.ceiling
            ):
                (index, n), seq = waiting.popleft(), window.sent
                window.sent += 1
                context = contextvars.copy_context()
                context.run(_PRESSURE.set, functools.partial(window.pressure, seq))
                task = asyncio.create_task(_call(fetch, n), context=context)
                task.add_done_callback(done)
                running[task] = (index, seq, time.monotonic())
                window.most_in_flight = max(window.most_in_flight, len(running))
            if not finished:
                wake.clear()
                await wake.wait()
            landed = sorted(finished, key=lambda t: running[t][1])  # in the order sent: the first error first
            finished.clear()
            now = time.monotonic()
            for task in landed:
                index, seq, began = running.pop(task)
                results[index] = task.result()  # raises the page's error: the finally drops the rest
                window.answered(seq, now - began)
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)


async def _call(fetch: Callable[[int], Awaitable[T]], n: int) -> T:
    return await fetch(n)


# ---------------------------------------------------------------------- the quota, as far as it is known

_CALL_METERS = {"callsPerYear": ("Q001", "year"), "callsPerHour": ("Q002", "hour")}
"""The meters every page call spends (WIRE.md's quota payload order gives the codes)."""


def _period_start(period: str, now: float) -> float:
    t = int(now)
    if period == "hour":
        return float(t - t % 3600)
    return float(calendar.timegm((time.gmtime(t).tm_year, 1, 1, 0, 0, 0)))


@dataclass
class QuotaView:
    """What the client has seen of its quota: since when each call meter has been known to be full."""

    full_since: dict[str, float] = field(default_factory=dict)

    def note_read(self, quota: Quota, now: float) -> None:
        """A quota read: meters at 100% are full from now on (in their period); others are not."""
        usage = quota.usage()
        for meter in _CALL_METERS:
            percent = usage.get(meter)
            if percent is not None and percent >= 100:
                self.full_since[meter] = now
            elif percent is not None:
                self.full_since.pop(meter, None)

    def note_refusal(self, code: str | None, now: float) -> None:
        """A Q… refusal: the meter of that code is full."""
        for meter, (meter_code, _) in _CALL_METERS.items():
            if code == meter_code:
                self.full_since[meter] = now

    def full_meter(self, now: float) -> str | None:
        """A call meter known to be full in its current period, or None."""
        for meter, since in self.full_since.items():
            if since >= _period_start(_CALL_METERS[meter][1], now):
                return meter
        return None

    def calls_left(self, now: float) -> int | None:
        """0 when a call meter is known to be full now, else None (not known: the service shows percentages)."""
        return 0 if self.full_meter(now) is not None else None


def refuse(endpoint: str, needed: int, budget: int, meter: str | None = None) -> QuotaError:
    """The error for a list the quota cannot pay for."""
    if meter is not None:
        why = f"the quota {meter} is used up; no call sent"
    else:
        why = f"the list needs {needed} more calls and the quota allows {budget}; no call sent"
    return QuotaError(endpoint, message=why)
