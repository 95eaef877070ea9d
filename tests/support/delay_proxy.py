"""A TCP proxy on 127.0.0.1 that delays every byte by a fixed one-way latency: a distant service, locally.

Each chunk read from one side is written to the other `delay` seconds after it arrived (chunks keep their
order; delivery is scheduled, not serialised, so two chunks in flight both take `delay`, as on a wire). So
one request and its answer pay twice `delay`, on every keep-alive connection, however many are open at once.
A new connection also pays a handshake (one round trip) before its first bytes go on.

For benchmarks and tests that must measure over a real socket (`benchmarks/bench_pages.py`): in-process
with `DelayProxy` (`async with DelayProxy(upstream_port, delay=0.025) as proxy: proxy.port`), or as its own
process so its timing does not share the client's interpreter:

    python -m tests.support.delay_proxy --port 8651 --upstream 8650 --delay 0.025
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections import deque


class DelayProxy:
    """Listens on `host`:`port` (0: any free port) and forwards to `host`:`upstream`, `delay` s each way."""

    def __init__(self, upstream: int, *, delay: float, host: str = "127.0.0.1", port: int = 0) -> None:
        self.upstream = upstream
        self.delay = delay
        self.host = host
        self.port = port
        self.connections = 0
        """Connections accepted (each paid a handshake)."""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> int:
        """Start listening; return the bound port."""
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        """Stop listening and drop every open connection."""
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):  # each pipe then reads its end and returns
            writer.close()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        if self._server is not None:
            with contextlib.suppress(OSError):
                await self._server.wait_closed()

    async def __aenter__(self) -> DelayProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        opened = time.monotonic()
        self._writers.add(writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.upstream)
        except OSError:
            writer.close()
            self._writers.discard(writer)
            self._tasks.discard(task)
            return
        self._writers.add(up_writer)
        try:
            # The client's first bytes leave after the handshake: SYN, SYN-ACK, ACK take one round trip.
            await asyncio.gather(
                self._pipe(reader, up_writer, not_before=opened + 2 * self.delay),
                self._pipe(up_reader, writer, not_before=0.0),
            )
        finally:
            for w in (writer, up_writer):
                w.close()
                self._writers.discard(w)
            self._tasks.discard(task)

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, not_before: float
    ) -> None:
        """Copy `reader` to `writer`, each chunk `delay` after it was read (and not before `not_before`)."""
        queue: deque[tuple[float, bytes]] = deque()
        ready = asyncio.Event()
        done = False

        async def deliver() -> None:
            while True:
                while not queue:
                    if done:
                        return
                    ready.clear()
                    await ready.wait()
                due, data = queue.popleft()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()

        sender = asyncio.create_task(deliver())
        try:
            while data := await reader.read(65536):
                queue.append((max(time.monotonic(), not_before) + self.delay, data))
                ready.set()
        except (ConnectionError, OSError):
            pass
        finally:
            done = True
            ready.set()
            with contextlib.suppress(ConnectionError, OSError):
                await sender
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                if writer.can_write_eof():
                    writer.write_eof()


async def _serve(port: int, upstream: int, delay: float) -> None:
    proxy = DelayProxy(upstream, delay=delay, port=port)
    await proxy.start()
    print(f"delay proxy on 127.0.0.1:{proxy.port} -> {upstream}, {delay * 1000:.0f} ms each way", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free one)")
    parser.add_argument("--upstream", type=int, required=True, help="port of the service on 127.0.0.1")
    parser.add_argument("--delay", type=float, default=0.025, help="seconds added each way (default 0.025)")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.port, args.upstream, args.delay))


if __name__ == "__main__":
    main()
