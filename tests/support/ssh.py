"""`rankterm host` in its own process, and OpenSSH's `ssh -tt` joining it on a pseudo-terminal, for the tests
and the benchmark of the SSH seats.

    with start_host(["--demo"], env) as host:          # port 0: any free one, read from its start lines
        guest = SshGuest(host.port, size=(100, 30))
        guest.wait_for("Home", 30)
        guest.press(b"g")
        host.seat_pids()                               # the host's children: one `rankterm` a seat
        guest.kill()

The guest's `ssh` reads nothing of the user's: no config file, no keys, no known_hosts (`SSH_OPTIONS`).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rankterm.seats import set_size
from tests.support.terminal import PtySeat

SSH_OPTIONS = [
    "-F",
    "/dev/null",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "GlobalKnownHostsFile=/dev/null",
    "-o",
    "PubkeyAuthentication=no",
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "IdentityAgent=none",
    "-o",
    "NumberOfPasswordPrompts=1",
    "-o",
    "ConnectTimeout=10",
]


class SshGuest(PtySeat):
    """`ssh -tt [options] -p port user@127.0.0.1 [command]` on a pty of `size`, with `term` as its TERM."""

    def __init__(
        self,
        port: int,
        *,
        user: str = "guest",
        size: tuple[int, int] = (80, 24),
        term: str = "xterm-256color",
        options: Sequence[str] = (),
        command: Sequence[str] = (),
        tty: bool = True,
    ) -> None:
        argv = ["ssh", *(["-tt"] if tty else ["-T"]), *SSH_OPTIONS, *options, "-p", str(port)]
        argv += [f"{user}@127.0.0.1", *command]
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
        env["TERM"] = term
        self._spawn(argv, env, size)
        self.size = size
        self.raw = bytearray()

    def read(self, seconds: float) -> bytes:
        out = super().read(seconds)
        self.raw += out
        return out

    def resize(self, columns: int, rows: int) -> None:
        """The guest's window changes size: the kernel tells ssh (SIGWINCH), which tells the host."""
        self.size = (columns, rows)
        set_size(self.fd, columns, rows)

    def exit_code(self, limit: float = 15.0) -> int | None:
        """ssh's exit code once it has ended (reading what it still says), None if it is still there."""
        end = time.monotonic() + limit
        while time.monotonic() < end:
            self.read(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.read(0.2)
                self.pid = -1
                return os.waitstatus_to_exitcode(status)
        return None

    def kill(self) -> None:
        """The guest's ssh killed at once (SIGKILL): its connection closes, nothing is said."""
        if self.pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = -1
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def close(self) -> None:
        self.kill()


def children_of(pid: int) -> list[int]:
    """The live child processes of `pid` (zombies left out), from /proc."""
    found: list[int] = []
    with contextlib.suppress(FileNotFoundError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(FileNotFoundError):
                found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    alive = []
    for child in found:
        with contextlib.suppress(FileNotFoundError):
            state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z":
                alive.append(child)
    return alive


def is_service(pid: int) -> bool:
    """Process `pid` runs `rankterm serve` (a host's table demo), not a seat."""
    try:
        return b"serve" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:5]
    except FileNotFoundError:
        return False


def is_warm_parent(pid: int) -> bool:
    """Process `pid` is a host's warm parent (`rankterm seat --warm-fd N`), which forks the seats, not a seat."""
    try:
        return b"--warm-fd" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False


def environ_of(pid: int) -> dict[str, str]:
    """The environment process `pid` was started with."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {k.decode(): v.decode(errors="replace") for k, v in pairs}


@dataclass
class RunningHost:
    """A `rankterm host` process and what it said when it started."""

    process: subprocess.Popen
    lines: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        for line in self.lines:
            if found := re.search(r"ssh -p (\d+) ", line):
                return int(found.group(1))
        raise AssertionError(f"no port in {self.lines!r}")

    @property
    def join_code(self) -> str | None:
        for line in self.lines:
            if found := re.search(r"join code (\S+)", line):
                return found.group(1)
        return None

    @property
    def fingerprint(self) -> str:
        for line in self.lines:
            if found := re.search(r"host key (SHA256:\S+)", line):
                return found.group(1)
        raise AssertionError(f"no fingerprint in {self.lines!r}")

    def seat_pids(self) -> list[int]:
        """One `rankterm` process a seat: the host's live children, but the demo group's service (`--demo`) and
        the warm parent."""
        return [
            pid for pid in children_of(self.process.pid) if not is_service(pid) and not is_warm_parent(pid)
        ]

    def service_pids(self) -> list[int]:
        """The demo group's service the host started (`--demo`): `rankterm serve`, its child."""
        return [pid for pid in children_of(self.process.pid) if is_service(pid)]

    def wait_for_seats(self, count: int, limit: float) -> list[int]:
        """The seats' pids once there are `count` of them, each running its own program (a child caught between
        fork and exec still shows the host's command and environment); at most `limit` seconds, then as they
        are."""
        end = time.monotonic() + limit
        while not self._started(pids := self.seat_pids(), count) and time.monotonic() < end:
            time.sleep(0.05)
        return pids

    def _started(self, pids: list[int], count: int) -> bool:
        if len(pids) != count:
            return False
        try:
            host = Path(f"/proc/{self.process.pid}/cmdline").read_bytes()
            return all(Path(f"/proc/{pid}/cmdline").read_bytes() != host for pid in pids)
        except FileNotFoundError:
            return False


@contextmanager
def start_host(args: Sequence[str], env: Mapping[str, str], limit: float = 30.0) -> Iterator[RunningHost]:
    """`python -m rankterm host --port 0 *args` with `env`, once it has said how to join; stopped (SIGTERM,
    which ends every seat) when the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rankterm", "host", "--port", "0", *args],
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    host = RunningHost(process)
    try:
        assert process.stdout is not None
        end = time.monotonic() + limit
        while time.monotonic() < end:
            line = process.stdout.readline()
            if not line:
                raise AssertionError(f"rankterm host ended: {''.join(host.lines)}")
            host.lines.append(line.rstrip("\n"))
            if "seats at once" in line:
                break
        yield host
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
