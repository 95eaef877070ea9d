"""Serve an ASGI app (the embedded service) on a real socket on 127.0.0.1, in a background thread.

For tests and benchmarks that must cross a real socket to catch what ASGITransport hides. Binds port 0
(any free port) on loopback only, and stops by itself when the `with` block ends.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


@contextmanager
def serve_in_thread(app: Any, *, host: str = "127.0.0.1", timeout: float = 10.0) -> Iterator[str]:
    """Run `app` on uvicorn on `host`:<free port>; yields the base URL ("http://127.0.0.1:PORT/")."""
    config = uvicorn.Config(app, host=host, port=0, log_level="warning", lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), name="rankterm-live", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}/"
    finally:
        server.should_exit = True
        thread.join(timeout)
