"""The Prometheus metrics of a service that is served (`rankterm serve`, and the table's demo it runs for
`host --demo` and `web --demo`): requests, latency, matches recorded, quota refusals and lock waits, in
prometheus_client's counters, answered by ``GET metrics`` (`rankterm.server.ops` says to whom).

A service answered in-process (the demo's, on `httpx.ASGITransport`) keeps none: nobody could read them, and
it does not load prometheus_client. See docs/design/server.md.
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from rankterm.server.ops import ENV_METRICS_DIR

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
"""Seconds: a standings page is ~2 ms, a batch of 100 matches ~1 s."""

LOCK_WAIT_COUNTED = 0.001
"""A write that waited longer than this for the database or its group's lock counts as a lock wait."""


class Metrics:
    """The service's Prometheus metrics, in a registry of their own (one per app: tests make many)."""

    content_type = CONTENT_TYPE
    """The media type of `text`."""

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

    def refused(self, code: str) -> None:
        """Count one request refused by a quota with `code`."""
        self.quota_refusals.labels(code).inc()

    def recorded(self, matches: int) -> None:
        """Count `matches` recorded (not a dry run's)."""
        self.matches.inc(matches)

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
