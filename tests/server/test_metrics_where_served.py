"""The service keeps Prometheus metrics only where it is served: a real `rankterm serve` (also what
`host --demo` and `web --demo` run for the table) counts every request as before, while the demo answered
in-process (`seed.demo_app`, the app's `rankterm demo`), which nobody can scrape, counts nothing and says so
when asked for them."""

from __future__ import annotations

import signal

import httpx

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app
from tests.support.clock import SettableClock
from tests.support.live import start_serve, wait_answering

from .conftest import BASE_URL


async def test_the_in_process_demo_counts_nothing_and_answers_metrics_with_r002():
    app, key, secret = demo_app(clock=SettableClock())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as http:
        token = (await http.get("auth", params={"key": key, "secret": secret})).json()["success"]["token"]
        assert (await http.get("status", headers={"Authorization": f"Bearer {token}"})).status_code == 200
        asked = await http.get("metrics")
    assert asked.status_code == 404
    assert asked.json() == {
        "errors": [{"code": "R002", "message": "This service is answered in-process: it keeps no metrics."}]
    }
    assert app.state.service.metrics is None
    assert app.state.store.on_write_wait is None  # no write is timed for counters nobody reads


def test_a_served_demo_counts_its_requests_in_prometheus_text(tmp_path):
    proc, said, base = start_serve(
        ["--demo", "--db", str(tmp_path / "s.db"), "--port", "0"], env={"RANKTERM_DATA_DIR": str(tmp_path)}
    )
    try:
        wait_answering(base, "".join(said))
        with httpx.Client(base_url=base, timeout=10) as http:
            signed_in = http.get("auth", params={"key": DEMO_KEY, "secret": DEMO_SECRET})
            token = signed_in.json()["success"]["token"]
            assert http.get("status", headers={"Authorization": f"Bearer {token}"}).status_code == 200
            metrics = http.get("metrics")
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain; version=")  # Prometheus text
    counted = {
        line.split(" ")[0]: float(line.split(" ")[1])
        for line in metrics.text.splitlines()
        if line.startswith("rankterm_requests_total{")
    }
    assert counted['rankterm_requests_total{endpoint="auth",status="200"}'] == 1.0
    assert counted['rankterm_requests_total{endpoint="status",status="200"}'] == 1.0
    assert "rankterm_request_seconds_bucket" in metrics.text and "rankterm_lock_waits_total" in metrics.text
