"""`rankterm web` in its own process for the tests, as `ssh.start_host` is `rankterm host`: started on a free
port of 127.0.0.1, returned once it listens, stopped (SIGTERM, which ends every seat) when the block ends."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator


def free_port() -> int:
    """A port of 127.0.0.1 no one listens on now."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        return sock.getsockname()[1]


class RunningWeb:
    """`rankterm web` in its own process, once it has said how many seats it takes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rankterm", "web", "--port", str(self.port), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        assert self.process.stdout is not None
        end = time.monotonic() + 60
        while time.monotonic() < end:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(f"rankterm web ended: {''.join(self.lines)}")
            self.lines.append(line)
            if "seats at once" in line:
                break
        else:
            raise AssertionError(self.lines)
        while time.monotonic() < end:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 1):
                return
            time.sleep(0.02)
        raise AssertionError(f"rankterm web never listened on {self.port}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        assert self.process.stdout is not None
        self.process.stdout.close()


@contextlib.contextmanager
def web(args: list[str], env: dict[str, str]) -> Iterator[RunningWeb]:
    """`rankterm web --port N *args` with `env`, running for the block."""
    running = RunningWeb(args, env)
    try:
        yield running
    finally:
        running.stop()
