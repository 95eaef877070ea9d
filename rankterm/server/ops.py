"""The service run like a server: its health and readiness checks, its Prometheus metrics and its access log.

``GET healthz`` answers 200 with no token, no quota and no database (the process is up); ``GET readyz``
200 when the database answers and is migrated, 503 otherwise; ``GET metrics`` the Prometheus text of
`Metrics`, to loopback addresses only unless the host allowed others (`MetricsGate`). Every request is
one JSON line on the ``rankterm.access`` logger (`access_line`): request id, endpoint, group, status,
time; never a query, a body or a header, so never a key, a secret or a token. See docs/design/server.md.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = [
    "CONTENT_TYPE",
    "HEALTH",
    "METRICS",
    "READY",
    "Metrics",
    "MetricsGate",
    "access_line",
    "access_log",
    "request_id",
]

HEALTH, READY, METRICS = "healthz", "readyz", "metrics"
"""The paths (and endpoint names, in the metrics and the log) of the server's own endpoints."""

CONTENT_TYPE = CONTENT_TYPE_LATEST

access_log = logging.getLogger("rankterm.access")
"""One JSON line per request, at INFO (`rankterm serve --access-log` gives it a handler)."""

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
"""Seconds: a standings page is ~2 ms, a batch of 100 matches ~1 s."""

ENV_METRICS_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus_client's multiprocess mode: set (to a folder of its own) for the workers of ``--workers N``, so
each keeps its counts in a file there and ``GET metrics`` adds up every worker's, whichever one answers."""

LOCK_WAIT_COUNTED = 0.001
"""A write that waited longer than this for the database or its group's lock counts as a lock wait."""


class Metrics:
    """The service's Prometheus metrics, in a registry of their own (one per app: tests make many)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "rankterm_requests",
            "Requests answered, by endpoint and HTTP status.",
            ["endpoint", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "rankterm_request_seconds",
            "Time from a request's headers to its answer, by endpoint.",
            ["endpoint"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.matches = Counter(
            "rankterm_matches_recorded", "Matches recorded (dry runs not counted).", registry=self.registry
        )
        self.quota_refusals = Counter(
            "rankterm_quota_refusals",
            "Requests refused by a quota, by code.",
            ["code"],
            registry=self.registry,
        )
        self.lock_waits = Counter(
            "rankterm_lock_waits",
            f"Writes that waited over {LOCK_WAIT_COUNTED * 1000:g} ms for the database or their group's lock.",
            registry=self.registry,
        )
        self.lock_wait_seconds = Histogram(
            "rankterm_lock_wait_seconds",
            "Time each write waited for the database or its group's lock.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
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
        if not os.environ.get(ENV_METRICS_DIR):
            return generate_latest(self.registry)
        from prometheus_client import multiprocess

        every_worker = CollectorRegistry()
        multiprocess.MultiProcessCollector(every_worker)
        return generate_latest(every_worker)


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
