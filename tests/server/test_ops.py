"""The service run like a server: ``healthz`` (no token, no quota, no database), ``readyz`` (the database
answers and is migrated), ``metrics`` (Prometheus text, loopback only unless allowed), and, on a real
``rankterm serve`` behind a trusted proxy, the JSON-lines access log that never holds a key, secret or token."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rankterm.server import ops, serve
from rankterm.server.app import create_app
from rankterm.server.db import schema
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store

from .conftest import BASE_URL, Api, duel


def _client(app, address: str = "127.0.0.1") -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=(address, 4321)), base_url=BASE_URL
    )


async def test_healthz_answers_without_token_quota_or_database(store: Store, credentials) -> None:
    _, key, secret = credentials
    app = create_app(store, limits=QuotaLimits(calls_per_hour=1))
    async with _client(app) as http:
        api = Api(http, key, secret)
        await api.login()
        for _ in range(3):  # past the quota of one call an hour: no quota is counted
            answer = await http.get("healthz")
            assert answer.status_code == 200 and answer.json() == {"success": {"status": "ok"}}
        assert (await api.get("status")).status_code == 200  # the one call of the hour is still there
        store.close()  # no database at all
        assert (await http.get("healthz")).status_code == 200
        not_ready = await http.get("readyz")
        assert not_ready.status_code == 503 and not_ready.json()["errors"][0]["code"] == "R001"


async def test_readyz_says_whether_the_database_is_migrated(store: Store) -> None:
    app = create_app(store)
    async with _client(app) as http:
        ready = await http.get("readyz")
        assert ready.status_code == 200 and ready.json() == {"success": {"status": "ready"}}
        engine = store._engine
        with engine.write() as conn:
            engine.set_schema_version(conn, schema.SCHEMA_VERSION - 1)
        behind = await http.get("readyz")
        assert behind.status_code == 503
        assert f"schema {schema.SCHEMA_VERSION - 1}" in behind.json()["errors"][0]["message"]


def _sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the Prometheus text (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    head = f"{name}{{{want}}}" if labels else name
    for line in text.splitlines():
        if line.startswith(head + " "):
            return float(line.split()[-1])
    return 0.0


async def test_metrics_count_requests_matches_quota_refusals_and_lock_waits(
    store: Store, credentials
) -> None:
    _, key, secret = credentials
    app = create_app(store, limits=QuotaLimits(matches_per_hour=2))
    async with _client(app) as http:
        api = Api(http, key, secret)
        await api.login()
        ann, bob = await api.player("Ann"), await api.player("Bob")
        game = await api.game("Azul")
        await api.add(duel(game, ann, bob), duel(game, bob, ann))
        await api.add(duel(game, ann, bob), dryrun=True)
        refused = await api.post("matches/match", json=[duel(game, ann, bob)])
        assert refused.status_code == 429
        await api.get("no/such/path")
        text = (await http.get("metrics")).text

    assert _sample(text, "rankterm_requests_total", endpoint="auth", status="200") == 1
    assert _sample(text, "rankterm_requests_total", endpoint="player", status="200") == 2
    assert _sample(text, "rankterm_requests_total", endpoint="match", status="200") == 2
    assert _sample(text, "rankterm_requests_total", endpoint="match", status="429") == 1
    assert _sample(text, "rankterm_requests_total", endpoint="unknown", status="404") == 1
    assert _sample(text, "rankterm_request_seconds_count", endpoint="match") == 3
    assert _sample(text, "rankterm_matches_recorded_total") == 2  # the dry run is not counted
    refusals = [line for line in text.splitlines() if line.startswith("rankterm_quota_refusals_total{")]
    assert len(refusals) == 1 and refusals[0].endswith(" 1.0")
    assert _sample(text, "rankterm_lock_wait_seconds_count") >= 4  # players, game, the batch: each one write
    assert "rankterm_lock_waits_total" in text


async def test_metrics_answer_loopback_and_the_networks_allowed_only(store: Store) -> None:
    async with _client(create_app(store), "203.0.113.9") as http:
        refused = await http.get("metrics")
        assert refused.status_code == 403 and "this machine only" in refused.json()["errors"][0]["message"]
        assert (await http.get("healthz")).status_code == 200
    gate = ops.MetricsGate.parse(["198.51.100.0/24, 203.0.113.9"])
    async with _client(create_app(store, metrics_gate=gate), "203.0.113.9") as http:
        assert (await http.get("metrics")).status_code == 200
    async with _client(create_app(store, metrics_gate=gate), "192.0.2.1") as http:
        assert (await http.get("metrics")).status_code == 403
    async with _client(create_app(store), "::1") as http:
        assert (await http.get("metrics")).status_code == 200
    with pytest.raises(ValueError, match="no address or network"):
        ops.MetricsGate.parse(["10.0.0.0/33"])


@pytest.fixture
def access_lines() -> Iterator[io.StringIO]:
    """What the access log writes, for the test."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(message)s"))
    before = ops.access_log.level
    ops.access_log.addHandler(handler)
    ops.access_log.setLevel(logging.INFO)
    yield out
    ops.access_log.removeHandler(handler)
    ops.access_log.setLevel(before)


async def test_each_request_is_one_json_line_with_its_group_and_no_secret(
    store: Store, credentials, access_lines: io.StringIO
) -> None:
    group, key, secret = credentials
    async with _client(create_app(store)) as http:
        api = Api(http, key, secret)
        token = await api.login()
        answer = await http.get("status", headers={**api.headers, "X-Request-ID": "proxy-42"})
        assert answer.headers["X-Request-ID"] == "proxy-42"
        await http.get("status", headers={"Authorization": f"Bearer {token}x"})
    text = access_lines.getvalue()
    assert secret not in text and token not in text and key not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [set(line) for line in lines] == [
        {"time", "request_id", "method", "endpoint", "group", "status", "seconds", "address"}
    ] * 3
    assert [(x["endpoint"], x["group"], x["status"]) for x in lines] == [
        ("auth", None, 200),
        ("status", group, 200),
        ("status", None, 403),
    ]
    assert lines[1]["request_id"] == "proxy-42" and len({x["request_id"] for x in lines}) == 3


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("proxy", ["127.0.0.1", "10.9.9.9", None])
def test_a_real_service_behind_a_trusted_proxy_logs_the_client_and_keeps_metrics_from_it(
    tmp_path: Path, proxy: str | None
) -> None:
    """Behind a proxy on this machine, trusted, the proxy's client is the caller; when another proxy is the
    trusted one, or none is named, a header from this machine is not believed (uvicorn alone would believe
    any process of this machine)."""
    trusted = proxy == "127.0.0.1"
    db, log = tmp_path / "s.db", tmp_path / "access.log"
    with Store(db) as made:
        group = made.create_group("Club")
        key, secret = made.create_client(group)
    port = _free_port()
    env = {**os.environ, "RANKTERM_DATA_DIR": str(tmp_path)}
    argv = ["serve", "--db", str(db), "--port", str(port), "--access-log", str(log)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankterm", *argv, *(["--forwarded-allow-ips", proxy] if proxy else [])],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}/"
        end = time.monotonic() + 30
        while time.monotonic() < end:
            try:
                if httpx.get(base + "healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        with httpx.Client(base_url=base, timeout=10) as http:
            token = http.get("auth", params={"key": key, "secret": secret}).json()["success"]["token"]
            assert http.get("status", headers={"Authorization": f"Bearer {token}"}).status_code == 200
            proxied = http.get("metrics", headers={"X-Forwarded-For": "203.0.113.9"})
            assert proxied.status_code == (403 if trusted else 200)  # the proxy's client is not this machine
            metrics = http.get("metrics")
            assert metrics.status_code == 200 and "rankterm_requests_total" in metrics.text
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    text = log.read_text()
    assert secret not in text and token not in text and key not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [(x["endpoint"], x["status"], x["address"]) for x in lines[-4:]] == [
        ("auth", 200, "127.0.0.1"),
        ("status", 200, "127.0.0.1"),
        ("metrics", 403, "203.0.113.9") if trusted else ("metrics", 200, "127.0.0.1"),
        ("metrics", 200, "127.0.0.1"),
    ]
    assert lines[-3]["group"] == group


def test_a_new_metrics_folder_removes_those_of_supervisors_that_are_gone(tmp_path: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = tmp_path / f"{serve.METRICS_PREFIX}{int(gone.stdout)}-abc"
    (dead / "sub").mkdir(parents=True)
    (dead / "counter_1.db").write_bytes(b"\0" * 16)
    running = tmp_path / f"{serve.METRICS_PREFIX}{os.getppid()}-def"
    running.mkdir()
    not_ours = tmp_path / "rankterm-metrics-notapid"
    not_ours.mkdir()
    made = Path(serve.metrics_folder(str(tmp_path)))
    assert made.is_dir() and made.name.startswith(f"{serve.METRICS_PREFIX}{os.getpid()}-")
    assert not dead.exists()
    assert running.is_dir() and not_ours.is_dir()
