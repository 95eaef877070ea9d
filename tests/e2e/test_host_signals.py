"""A host (`rankterm host`, `rankterm web`) stops cleanly when the terminal it was started from closes (SIGHUP):
its seats end and the table demo's folder is removed, as on Ctrl+C. Under `nohup` (SIGHUP ignored) it keeps
serving. Before, SIGHUP ended it where it stood, and the table demo's folder stayed in the temporary folder."""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest

from tests.support.ssh import start_host
from tests.support.terminal import home_env
from tests.support.web_host import web


class Running(Protocol):
    """What a started host gives the tests: its process, its first lines, its port."""

    process: subprocess.Popen
    lines: list[str]

    @property
    def port(self) -> int: ...


@contextlib.contextmanager
def started(server: str, tmp_path: Path, sighup: signal.Handlers) -> Iterator[Running]:
    """`rankterm host --demo` or `rankterm web --demo`, started with SIGHUP's disposition `sighup` (a child
    inherits an ignored signal: SIG_IGN is `nohup`, SIG_DFL a terminal's shell), whatever this process has."""
    env = home_env(tmp_path, RANKTERM_LIVE_EVERY="0")
    with contextlib.ExitStack() as stack:
        before = signal.signal(signal.SIGHUP, sighup)
        try:
            running = stack.enter_context(
                start_host(["--demo"], env) if server == "host" else web(["--demo"], env)
            )
        finally:
            signal.signal(signal.SIGHUP, before)
        yield running


def table_folder(lines: list[str]) -> Path:
    """The table demo's folder, as the host's first lines say it."""
    for line in lines:
        if found := re.search(r"\((/\S*rankterm-table-demo-\S*)\)", line):
            return Path(found.group(1))
    raise AssertionError(f"no table demo folder in {lines!r}")


def ended_within(process: subprocess.Popen, limit: float) -> int | None:
    """The process's exit status once it has ended (at most `limit` seconds), else None."""
    try:
        return process.wait(limit)
    except subprocess.TimeoutExpired:
        return None


@pytest.mark.parametrize("server", ["host", "web"])
def test_sighup_stops_a_host_cleanly_and_removes_its_table_demo(server: str, tmp_path: Path) -> None:
    with started(server, tmp_path, signal.SIG_DFL) as running:
        folder = table_folder(running.lines)
        assert folder.is_dir()
        running.process.send_signal(signal.SIGHUP)
        status = ended_within(running.process, 20)
        assert status == 0, (status, running.lines)
        assert not folder.exists()


@pytest.mark.parametrize("server", ["host", "web"])
def test_under_nohup_a_host_keeps_serving_after_sighup(server: str, tmp_path: Path) -> None:
    with started(server, tmp_path, signal.SIG_IGN) as running:
        running.process.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert running.process.poll() is None
        with socket.create_connection(("127.0.0.1", running.port), 5):
            pass
        assert table_folder(running.lines).is_dir()
