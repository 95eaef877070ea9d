"""The service run like a server: its health and readiness checks, its Prometheus metrics and its access log.

``GET healthz`` answers 200 with no token, no quota and no database (the process is up); ``GET readyz``
200 when the database answers and is migrated, 503 otherwise; ``GET metrics`` the Prometheus text of
`Metrics`, to loopback addresses only unless the host allowed others (`MetricsGate`). Every request is
one JSON line on the ``rankterm.access`` logger (`access_line`): request id, endpoint, group, status,
time; never a query, a body or a header, so never a key, a secret or a token. See docs/design/server.md.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import logging
import math
import os
import re
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "HEALTH",
    "METRICS",
    "READY",
    "Metrics",
    "MetricsGate",
    "access_line",
    "access_log",
    "content_type",
    "request_id",
]

HEALTH, READY, METRICS = "healthz", "readyz", "metrics"
"""The paths (and endpoint names, in the metrics and the log) of the server's own endpoints."""

access_log = logging.getLogger("rankterm.access")
"""One JSON line per request, at INFO (`rankterm serve --access-log` gives it a handler)."""

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
"""Seconds: a standings page is ~2 ms, a batch of 100 matches ~1 s."""

ENV_METRICS_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus_client's multiprocess mode: set (to a folder of its own) for the workers of ``--workers N``, so
each keeps its counts in a file there and ``GET metrics`` adds up every worker's, whichever one answers."""

LOCK_WAIT_COUNTED = 0.001
"""A write that waited longer than this for the database or its group's lock counts as a lock wait."""


def content_type() -> str:
    """The media type of ``GET metrics``: prometheus_client's, loaded when the metrics are first read."""
    from prometheus_client.exposition import CONTENT_TYPE_LATEST

    return CONTENT_TYPE_LATEST


class Tally:
    """A Prometheus counter (with labels, or none) counted in plain numbers: prometheus_client (~14 ms of
    import on the way to the demo's first data) loads when ``GET metrics`` is first answered. Its samples are
    the ones prometheus_client's `Counter` gives (`samples`), series in the order they were first named."""

    kind = "counter"

    def __init__(self, name: str, documentation: str, labelnames: Iterable[str] = ()) -> None:
        self.name, self.documentation, self.labelnames = name, documentation, tuple(labelnames)
        self._lock = threading.Lock()
        self._series: dict[tuple[str, ...], list[float]] = {}
        """Label values -> [value, created]."""
        if not self.labelnames:
            self._series[()] = [0.0, time.time()]

    def labels(self, *values: object) -> _Labelled:
        key = _label_key(self.labelnames, values)
        with self._lock:
            if key not in self._series:
                self._series[key] = [0.0, time.time()]
        return _Labelled(self, key)

    def inc(self, amount: float = 1) -> None:
        self.add((), amount)

    def add(self, key: tuple[str, ...], amount: float) -> None:
        if amount < 0:
            raise ValueError("Counters can only be incremented by non-negative amounts.")
        with self._lock:
            self._series[key][0] += amount

    def samples(self, created: bool) -> Iterator[tuple[str, dict[str, str], float]]:
        with self._lock:
            series = [(key, list(values)) for key, values in self._series.items()]
        for key, (value, made) in series:
            labels = dict(zip(self.labelnames, key, strict=True))
            yield f"{self.name}_total", labels, value
            if created:
                yield f"{self.name}_created", labels, made


class Spread:
    """A Prometheus histogram counted in plain numbers, as `Tally` is a counter; its samples are the ones
    prometheus_client's `Histogram` gives."""

    kind = "histogram"

    def __init__(
        self, name: str, documentation: str, labelnames: Iterable[str] = (), *, buckets: Iterable[float]
    ) -> None:
        self.name, self.documentation, self.labelnames = name, documentation, tuple(labelnames)
        self.bounds = [*(float(b) for b in buckets), math.inf]
        self._lock = threading.Lock()
        self._series: dict[tuple[str, ...], tuple[list[float], list[float]]] = {}
        """Label values -> (the count of each bucket, [sum, created])."""
        if not self.labelnames:
            self._series[()] = ([0.0] * len(self.bounds), [0.0, time.time()])

    def labels(self, *values: object) -> _Labelled:
        key = _label_key(self.labelnames, values)
        with self._lock:
            if key not in self._series:
                self._series[key] = ([0.0] * len(self.bounds), [0.0, time.time()])
        return _Labelled(self, key)

    def observe(self, amount: float) -> None:
        self.add((), amount)

    def add(self, key: tuple[str, ...], amount: float) -> None:
        with self._lock:
            counts, total = self._series[key]
            total[0] += amount
            for i, bound in enumerate(self.bounds):
                if amount <= bound:
                    counts[i] += 1
                    break

    def samples(self, created: bool) -> Iterator[tuple[str, dict[str, str], float]]:
        from prometheus_client.utils import floatToGoString

        with self._lock:
            series = [(key, list(counts), list(total)) for key, (counts, total) in self._series.items()]
        for key, counts, (total, made) in series:
            labels = dict(zip(self.labelnames, key, strict=True))
            seen = 0.0
            for bound, count in zip(self.bounds, counts, strict=True):
                seen += count
                yield f"{self.name}_bucket", {**labels, "le": floatToGoString(bound)}, seen
            yield f"{self.name}_count", labels, seen
            yield f"{self.name}_sum", labels, total
            if created:
                yield f"{self.name}_created", labels, made


def _label_key(names: tuple[str, ...], values: tuple[object, ...]) -> tuple[str, ...]:
    if not names or len(values) != len(names):
        raise ValueError(f"Expected {len(names)} label values, got {len(values)}.")
    return tuple(str(v) for v in values)


@dataclass(frozen=True)
class _Labelled:
    """One series of a `Tally` or a `Spread` (what ``.labels(...)`` gives)."""

    metric: Tally | Spread
    key: tuple[str, ...]

    def inc(self, amount: float = 1) -> None:
        self.metric.add(self.key, amount)

    def observe(self, amount: float) -> None:
        self.metric.add(self.key, amount)


class Metrics:
    """The service's Prometheus metrics, in a registry of their own (one per app: tests make many).

    Counted in plain numbers (`Tally`, `Spread`), made into prometheus_client's text when ``GET metrics`` asks.
    With ``--workers N`` (`ENV_METRICS_DIR` set) they are prometheus_client's own, which keep each worker's
    counts in its files."""

    def __init__(self) -> None:
        counter: Any = Tally
        histogram: Any = Spread
        if os.environ.get(ENV_METRICS_DIR):
            from prometheus_client import CollectorRegistry, Counter, Histogram

            self.registry = CollectorRegistry()
            counter = functools.partial(Counter, registry=self.registry)
            histogram = functools.partial(Histogram, registry=self.registry)
        self.requests = counter(
            "rankterm_requests",
            "Requests answered, by endpoint and HTTP status.",
            ["endpoint", "status"],
        )
        self.latency = histogram(
            "rankterm_request_seconds",
            "Time from a request's headers to its answer, by endpoint.",
            ["endpoint"],
            buckets=LATENCY_BUCKETS,
        )
        self.matches = counter("rankterm_matches_recorded", "Matches recorded (dry runs not counted).")
        self.quota_refusals = counter(
            "rankterm_quota_refusals",
            "Requests refused by a quota, by code.",
            ["code"],
        )
        self.lock_waits = counter(
            "rankterm_lock_waits",
            f"Writes that waited over {LOCK_WAIT_COUNTED * 1000:g} ms for the database or their group's lock.",
        )
        self.lock_wait_seconds = histogram(
            "rankterm_lock_wait_seconds",
            "Time each write waited for the database or its group's lock.",
            buckets=LATENCY_BUCKETS,
        )

    def answered(self, endpoint: str, status: int, seconds: float) -> None:
        """Count one request answered."""
        self.requests.labels(endpoint, str(status)).inc()
        self.latency.labels(endpoint).observe(seconds)

    def waited(self, seconds: float) -> None:
        """Note the wait of one write for the database or its group's lock (`Store.on_write_wait`)."""
        self.lock_wait_seconds.observe(seconds)
        if seconds > LOCK_WAIT_COUNTED:
            self.lock_waits.inc()

    def text(self) -> bytes:
        """The metrics in Prometheus's text format: this process's, or every worker's added up when they
        keep them in files (`ENV_METRICS_DIR`)."""
        from prometheus_client import CollectorRegistry, generate_latest

        if os.environ.get(ENV_METRICS_DIR):
            from prometheus_client import multiprocess

            every_worker = CollectorRegistry()
            multiprocess.MultiProcessCollector(every_worker)
            return generate_latest(every_worker)
        if hasattr(self, "registry"):  # made by prometheus_client: the folder was unset since
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        registry.register(_Counted(self))
        return generate_latest(registry)


class _Counted:
    """The metrics counted in plain numbers, as prometheus_client's collector of them."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Any]:
        from prometheus_client.metrics_core import Metric

        created = created_series()
        m = self.metrics
        for metric in (m.requests, m.latency, m.matches, m.quota_refusals, m.lock_waits, m.lock_wait_seconds):
            family = Metric(metric.name, metric.documentation, metric.kind)
            for name, labels, value in metric.samples(created):
                family.add_sample(name, labels, value)
            yield family


def created_series() -> bool:
    """Whether the ``_created`` series are written: prometheus_client's rule (its environment variable)."""
    return os.environ.get("PROMETHEUS_DISABLE_CREATED_SERIES", "False").lower() not in ("true", "1", "t")


@dataclass(frozen=True)
class MetricsGate:
    """Who may read ``GET metrics``: loopback addresses, and the networks the host allowed."""

    allowed: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def parse(cls, texts: Iterable[str]) -> MetricsGate:
        """From ``--metrics-allow`` values: addresses or networks (CIDR), comma-separated, or ``any``;
        `ValueError` with one sentence for one that is neither."""
        allowed: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for text in texts:
            for part in (p.strip() for p in text.split(",")):
                if not part:
                    continue
                if part.lower() == "any":
                    allowed += [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
                    continue
                try:
                    allowed.append(ipaddress.ip_network(part, strict=False))
                except ValueError:
                    raise ValueError(
                        f"--metrics-allow: {part!r} is no address or network (give e.g. 10.0.0.5, 10.0.0.0/24 or any)."
                    ) from None
        return cls(tuple(allowed))

    def admits(self, address: str) -> bool:
        """Whether a request from `address` (the peer, or the proxy's client when it is trusted) may read
        the metrics."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        if ip.is_loopback:
            return True
        return any(ip.version == net.version and ip in net for net in self.allowed)


_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def request_id(given: str | None) -> str:
    """The request's id: the proxy's ``X-Request-ID`` when it is a plain token (64 characters at most, no
    spaces), else a new random one."""
    if given and _REQUEST_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


def access_line(
    rid: str, method: str, endpoint: str, group: int | None, status: int, seconds: float, address: str
) -> str:
    """One access log line (JSON): the request's id, method, endpoint (a name of the wire's table, or
    "unknown"), the caller's group (None before a token says it), the HTTP status, the seconds it took and
    the peer's address."""
    return json.dumps(
        {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "request_id": rid,
            "method": method,
            "endpoint": endpoint,
            "group": group,
            "status": status,
            "seconds": round(seconds, 6),
            "address": address,
        },
        separators=(",", ":"),
    )
