"""The service run like a server: its health and readiness checks, who may read its metrics, and its access log.

``GET healthz`` answers 200 with no token, no quota and no database (the process is up); ``GET readyz``
200 when the database answers and is migrated, 503 otherwise; ``GET metrics`` the Prometheus text of
`rankterm.server.metrics.Metrics` (kept by a service that is served, not by one answered in-process), to
loopback addresses only unless the host allowed others (`MetricsGate`). Every request is
one JSON line on the ``rankterm.access`` logger (`access_line`): request id, endpoint, group, status,
time; never a query, a body or a header, so never a key, a secret or a token. See docs/design/server.md.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = [
    "ENV_METRICS_DIR",
    "HEALTH",
    "METRICS",
    "READY",
    "MetricsGate",
    "access_line",
    "access_log",
    "request_id",
]

HEALTH, READY, METRICS = "healthz", "readyz", "metrics"
"""The paths (and endpoint names, in the metrics and the log) of the server's own endpoints."""

access_log = logging.getLogger("rankterm.access")
"""One JSON line per request, at INFO (`rankterm serve --access-log` gives it a handler)."""

ENV_METRICS_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus_client's multiprocess mode: set (to a folder of its own) for the workers of ``--workers N``, so
each keeps its counts in a file there and ``GET metrics`` adds up every worker's, whichever one answers."""


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
