"""Serve an ASGI app (the embedded service) on a real socket on 127.0.0.1, in a background thread.

For tests and benchmarks that must cross a real socket to catch what ASGITransport hides. Binds port 0
(any free port) on loopback only, and stops when told (or when the `with` block of `serve_in_thread` ends).
`start_serve` runs `rankterm serve` itself in its own process instead; `end_process` ends such a process.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn


class UvicornThread:
    """uvicorn serving an ASGI app on `host` (port 0: any free one) from a thread with its own loop."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        """`port` 0 binds any free one; give the port of a stopped server to serve again at the same address."""
        config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", lifespan="off", access_log=False
        )
        self.host = host
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="rankterm-live", daemon=True)
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self, timeout: float = 10.0) -> int:
        """Start serving; return the bound port."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the service stopped before it started")
            if time.monotonic() > deadline:
                raise RuntimeError("the service did not start in time")
            self.thread.join(0.01)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self.port

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise RuntimeError("the service did not stop in time")


@contextmanager
def serve_in_thread(app: Any, *, host: str = "127.0.0.1") -> Iterator[str]:
    """Run `app` on `host`:<free port> for the `with` block; yields the base URL ("http://127.0.0.1:PORT/")."""
    server = UvicornThread(app, host)
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


def end_process(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    """Ask `proc` to end (SIGTERM), and kill it when it has not within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def start_serve(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stderr: int = subprocess.PIPE,
    timeout: float = 60.0,
) -> tuple[subprocess.Popen[str], list[str], str]:
    """`rankterm serve ARGS` (with ``--port 0``: any free port) in its own process, read until it says where it
    serves: the process (the caller stops it), the lines it printed up to that one, and its base URL.

    `env` is added to this process's environment; `stderr` is where the process's errors go. A process that
    ends, or says nothing of the kind within `timeout` seconds, is killed and raises `RuntimeError`."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankterm", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    assert proc.stdout is not None
    guard = threading.Timer(
        timeout, proc.kill
    )  # a service that never starts fails its caller, never hangs it
    guard.start()
    printed: list[str] = []
    try:
        for line in proc.stdout:
            printed.append(line)
            found = re.search(r"rankterm service on (http://\S+/)", line)
            if found:
                return proc, printed, found.group(1)
    finally:
        guard.cancel()
    proc.kill()
    _, errors = proc.communicate(timeout=10)
    raise RuntimeError(f"rankterm serve did not start: {''.join(printed)}{errors or ''}")


def wait_answering(base_url: str, said: str = "", seconds: float = 30.0) -> None:
    """Wait until the service at `base_url` answers a request (whatever it says); fails after `seconds`, with
    `said` (what the service printed)."""
    end = time.monotonic() + seconds
    while True:
        try:
            httpx.get(base_url, timeout=2)
            return
        except httpx.TransportError:
            assert time.monotonic() < end, said
            time.sleep(0.02)
