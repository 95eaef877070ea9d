"""The service counts its metrics in plain numbers and loads prometheus_client only when ``GET metrics`` is
first answered (~14 ms of import on the way to the demo's first data): the text is byte for byte what
prometheus_client's own Counter and Histogram give for the same requests, and the embedded service of the
demo answers its requests without loading it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import prometheus_client  # loaded before ENV_METRICS_DIR is set below: its values stay in memory
import pytest
from prometheus_client import generate_latest

from rankterm.server import ops

ROOT = Path(__file__).resolve().parents[2]


def _count_a_day(metrics: ops.Metrics) -> None:
    """The same requests, matches, refusals and waits, into `metrics`."""
    for endpoint, status, seconds in [
        ("rankings", 200, 0.002),
        ("rankings", 200, 0.005),  # on a bucket's bound
        ("players", 200, 0.0001),
        ("auth", 401, 0.3),
        ("match", 200, 12.0),  # over the last bound: +Inf only
        ("rankings", 429, 0.0),
    ]:
        metrics.answered(endpoint, status, seconds)
    metrics.quota_refusals.labels("Q002").inc()
    metrics.quota_refusals.labels("Q009")  # named, never counted: still a series at 0
    metrics.matches.inc(3)
    metrics.matches.inc(0)
    metrics.waited(0.0005)
    metrics.waited(0.2)


@pytest.mark.parametrize("created", [True, False])
def test_the_text_is_prometheus_clients_own(monkeypatch, tmp_path, created):
    monkeypatch.setattr(time, "time", lambda: 1_790_000_000.25)  # the series' _created, in both
    if not created:
        monkeypatch.setenv("PROMETHEUS_DISABLE_CREATED_SERIES", "true")
        monkeypatch.setattr(prometheus_client.metrics, "_use_created", False)
    counted = ops.Metrics()
    monkeypatch.setenv(ops.ENV_METRICS_DIR, str(tmp_path))  # prometheus_client's own Counter and Histogram
    theirs = ops.Metrics()
    monkeypatch.delenv(ops.ENV_METRICS_DIR)
    assert not hasattr(counted, "registry") and hasattr(theirs, "registry")
    for metrics in (counted, theirs):
        _count_a_day(metrics)
    expected = generate_latest(theirs.registry)
    assert b'rankterm_request_seconds_bucket{endpoint="rankings",le="0.005"} 3.0' in expected
    assert (b"_created" in expected) is created
    assert counted.text() == expected
    assert ops.content_type() == prometheus_client.CONTENT_TYPE_LATEST


def test_a_counter_refuses_to_go_down():
    with pytest.raises(ValueError):
        ops.Metrics().matches.inc(-1)


CHILD = """
import asyncio, json, sys
import httpx
from rankterm.server.seed import demo_app

async def main():
    app, key, secret = demo_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://demo/") as http:
        token = (await http.get("auth", params={"key": key, "secret": secret})).json()["success"]["token"]
        ranks = await http.get("status", headers={"Authorization": "Bearer " + token})
        before = "prometheus_client" in sys.modules
        metrics = await http.get("metrics")
    print(json.dumps({"ranks": ranks.status_code, "before": before, "metrics": metrics.status_code,
                      "type": metrics.headers["content-type"], "text": metrics.text}))

asyncio.run(main())
"""


def test_the_demo_service_answers_without_prometheus_client_until_its_metrics_are_read(tmp_path):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
    env.update(PYTHONPATH=str(ROOT), RANKTERM_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["ranks"] == 200 and seen["before"] is False
    assert seen["metrics"] == 200 and seen["type"].startswith("text/plain")
    assert 'rankterm_requests_total{endpoint="status",status="200"} 1.0' in seen["text"]
