"""A guest seat attacked as a guest would: over OpenSSH to `rankterm host`, and as a browser's websocket to
`rankterm web`, the sequence that once sent the host's key and secret to the guest's own listener and rewrote
the host's config (`l`, the profile form, Test to another URL, ctrl+s), then every screen key and the
palette's dangerous words. After it: the guest's listener heard nothing, the host's config.toml is
byte-identical, nothing was written in the host's home outside rankterm's data and cache folders, and neither
the secret nor the host's paths reached the guest's screen, the seat's environment or its command line.

Also: every seat and the table's demo service end when `host` or `web` is killed (SIGKILL), `web` counts
its seats per server, and `host --demo` gives two guests one group.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from tests.support.ssh import RunningHost, SshGuest, children_of, environ_of, start_host
from tests.support.terminal import ESCAPES, room_env
from tests.support.warm import alive, still_alive
from tests.support.web_host import RunningWeb, web

pytestmark = [pytest.mark.needs("ssh"), pytest.mark.slow]  # ssh: installed before the run when missing

ROOT = Path(__file__).resolve().parents[2]

DOWN, END, F3, CTRL_S, CTRL_P, CTRL_T, ESC = (
    b"\x1b[B",
    b"\x1b[F",
    b"\x1bOR",
    b"\x13",
    b"\x10",
    b"\x14",
    b"\x1b",
)
F1 = b"\x1bOP"


def issue_sequence(url: str) -> list[bytes]:
    """The keys that once sent the host's credentials to `url` and saved it in the host's config: l (the
    profiles, the host's profile in the form), ↓ Tab Tab Tab End, 40 Backspaces, the URL, F3 (Test), ctrl+s."""
    return [b"l", DOWN, b"\t", b"\t", b"\t", END, b"\x7f" * 40, url.encode(), F3, CTRL_S]


SCREEN_KEYS = [*b"dgprmosbl", *b"n"]
"""Every screen key of the app, the profiles' `l` among them (the form's `n` last: it takes letters)."""
PALETTE_WORDS = ["profiles", "demo", "theme", "screenshot", "import", "save", "export", "login", "test"]
"""What a guest would look for in the palette (ctrl+p) to leave the group or write on the host."""


def attack(url: str) -> list[bytes]:
    keys = issue_sequence(url)
    for key in SCREEN_KEYS:
        keys += [bytes([key]), ESC, ESC]
    keys += [CTRL_T, ESC, F1, ESC]
    for word in PALETTE_WORDS:
        keys += [CTRL_P, word.encode(), b"\r", ESC, ESC]
    return keys


class Listener:
    """A guest's own server on 127.0.0.1: every connection it is offered, and what came on it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.heard: list[bytes] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.sock.accept()
                conn.settimeout(2)
                with conn, contextlib.suppress(OSError):
                    self.heard.append(conn.recv(65536))

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    heard = Listener()
    try:
        yield heard
    finally:
        heard.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def room(served: str, home: Path) -> dict[str, str]:
    """The host's environment: its home (HOME and the XDG folders under it), one profile "room" on the served
    group, rankterm's config, data and cache under the home."""
    assert shutil.which("ssh"), (
        "OpenSSH's client is needed (Debian's openssh-client; tests/needs.py installs it)"
    )
    temporary = home.parent / "tmp"  # the table demo's folder, which a killed host cannot remove
    temporary.mkdir(parents=True, exist_ok=True)
    return room_env(
        home,
        served,
        DEMO_KEY,
        DEMO_SECRET,
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        RANKTERM_LIVE_EVERY="0",
        PYTHONPATH=str(ROOT),
        TMPDIR=str(temporary),
    )


def listing(home: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under `home` but rankterm's data and cache folders: size and modification."""
    found = {}
    for folder, dirs, files in os.walk(home):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d not in (home / "data", home / "cache")]
        for name in [*dirs, *files]:
            info = (here / name).stat()
            found[str((here / name).relative_to(home))] = (info.st_size, info.st_mtime_ns)
    return found


def assert_nothing_left_the_seat(
    home: Path, before: dict, config: bytes, listener: Listener, shown: str
) -> None:
    assert listener.heard == []  # no request reached any address but the service's
    assert (home / "config.toml").read_bytes() == config
    assert listing(home) == before  # nothing written outside the data and cache folders
    assert DEMO_SECRET not in shown
    assert str(home) not in shown  # no path of the host's on the guest's screen
    assert "Base URL" not in shown and "Test connection" not in shown  # the profiles never opened


# ---------------------------------------------------------------------- over SSH


def quiet_for(guest: SshGuest, quiet: float, limit: float) -> None:
    """Read what the guest is shown until nothing has come for `quiet` seconds since the last byte (at most
    `limit` seconds): a guest's pause after a key, `quiet` long whenever the seat stops drawing (a settle in
    steps of `quiet` waits up to twice as long for the same quiet)."""
    end = time.monotonic() + limit
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([guest.fd], [], [], min(quiet, left))
        if not ready:
            return
        guest.read(min(0.1, left))  # what came, in one piece of text with what follows at once


def test_a_guest_over_ssh_can_neither_reach_the_secret_nor_write_on_the_host(
    room: dict[str, str], home: Path, listener: Listener
) -> None:
    with start_host(["--profile", "room"], room) as host:
        config, before = (home / "config.toml").read_bytes(), listing(home)
        guest = SshGuest(host.port, size=(80, 24))
        try:
            assert guest.wait_for("Home", 30), guest.seen[-800:]
            [seat] = host.wait_for_seats(1, 5)
            quiet_for(guest, 0.5, 10)
            for keys in attack(listener.url):
                guest.press(keys)
                quiet_for(guest, 0.3, 3)
            quiet_for(guest, 1.0, 10)
            assert host.seat_pids() == [seat]  # the seat is still there: nothing ended it
            seat_env = environ_of(seat)
            seat_argv = Path(f"/proc/{seat}/cmdline").read_bytes().decode()
        finally:
            guest.kill()
        raw = guest.raw.decode("utf-8", "replace")
    assert_nothing_left_the_seat(home, before, config, listener, raw + guest.seen)
    assert DEMO_SECRET not in json.dumps(seat_env) and DEMO_SECRET not in seat_argv
    assert "Permanently added" in guest.seen  # the text read is the guest's terminal's, from its start


def seat_texts_of_demo_group(host: RunningHost) -> str:
    for line in host.lines:
        if found := re.search(r"served by this process on (http://\S+/)", line):
            return found.group(1)
    raise AssertionError(host.lines)


FOUR_PLAYERS = [b"n", b"C", b"a", b"t", b"\r", b"E", b"\r", b"A", b"\r", b"B", b"\r", b"C", b"\r", b"\x13"]


def test_host_demo_gives_every_guest_one_group(room: dict[str, str]) -> None:
    with start_host(["--demo"], room) as host:
        url = seat_texts_of_demo_group(host)
        first, second = SshGuest(host.port, size=(100, 30)), SshGuest(host.port, size=(100, 30))
        try:
            assert first.wait_for("table demo, not saved", 30), first.seen[-800:]
            assert second.wait_for("table demo, not saved", 30), second.seen[-800:]
            first.settle()
            for key in FOUR_PLAYERS:
                first.press(key)
            assert asyncio.run(total_once_more_than(url, 300)) == 301, first.seen[-800:]
            second.settle()
            second.press(b"m")
            assert second.wait_for("301", 40), second.seen[-800:]  # the other guest's match, on this seat
        finally:
            first.kill()
            second.kill()


async def total_once_more_than(url: str, before: int, limit: float = 30.0) -> int:
    async with Group(RankingClient(url, key=DEMO_KEY, secret=DEMO_SECRET)) as reader:
        end = time.monotonic() + limit
        while (total := (await Group.of(reader).matches_page(1)).total) <= before and time.monotonic() < end:
            await asyncio.sleep(0.2)
        return total


def test_killing_the_host_ends_every_seat_and_the_demo_service(room: dict[str, str]) -> None:
    with start_host(["--demo"], room) as host:
        guests = [SshGuest(host.port), SshGuest(host.port)]
        try:
            for guest in guests:
                assert guest.wait_for("Home", 30), guest.seen[-800:]
            seats = host.wait_for_seats(2, 5)
            [service] = host.service_pids()
            assert len(seats) == 2
            host.process.kill()  # SIGKILL: the host has no say
            host.process.wait()
            assert still_alive([*seats, service], 10) == []
        finally:
            for guest in guests:
                guest.kill()


# ---------------------------------------------------------------------- a browser's seat


class BrowserSeat:
    """A browser's websocket to a `rankterm web` seat: what it was sent, as text, and keys typed into it."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.raw = bytearray()
        self.closed = False

    @property
    def seen(self) -> str:
        return ESCAPES.sub("", self.raw.decode("utf-8", "replace"))

    async def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.closed and (left := end - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(self.ws.receive(), left)
            except TimeoutError:
                return
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw += message.data
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                self.closed = True

    async def wait_for(self, text: str, limit: float) -> bool:
        end = time.monotonic() + limit
        while text not in self.seen and not self.closed and time.monotonic() < end:
            await self.read(0.05)
        return text in self.seen

    async def press(self, keys: bytes) -> None:
        await self.ws.send_str(json.dumps(["stdin", keys.decode()]))


async def open_seat(session: aiohttp.ClientSession, port: int) -> BrowserSeat:
    ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws?width=80&height=24")
    return BrowserSeat(ws)


def web_children(running: RunningWeb) -> list[int]:
    return children_of(running.process.pid)


async def attack_in_a_browser(port: int, url: str) -> BrowserSeat:
    async with aiohttp.ClientSession() as session:
        seat = await open_seat(session, port)
        assert await seat.wait_for("Home", 40), seat.seen[-800:]
        await seat.read(1.0)
        for keys in attack(url):
            await seat.press(keys)
            await seat.read(0.3)
        await seat.read(1.0)
        assert not seat.closed
        await seat.ws.close()
        return seat


def test_a_guest_in_a_browser_can_neither_reach_the_secret_nor_write_on_the_host(
    room: dict[str, str], home: Path, listener: Listener
) -> None:
    with web(["--profile", "room"], room) as running:
        config, before = (home / "config.toml").read_bytes(), listing(home)
        seat = asyncio.run(attack_in_a_browser(running.port, listener.url))
    assert_nothing_left_the_seat(
        home, before, config, listener, seat.raw.decode("utf-8", "replace") + seat.seen
    )


async def seats_then_one_more(port: int) -> tuple[BrowserSeat, BrowserSeat]:
    async with aiohttp.ClientSession() as session, aiohttp.ClientSession() as other_browser:
        first = await open_seat(session, port)
        assert await first.wait_for("Home", 40), first.seen[-800:]
        second = await open_seat(other_browser, port)  # another browser: no cookie shared
        await second.read(3.0)
        assert await first.wait_for("Home", 1)
        await first.ws.close()
        return first, second


def test_web_counts_its_seats_per_server_and_tells_the_next(room: dict[str, str]) -> None:
    with web(["--profile", "room", "--max-seats", "1"], room) as running:
        _, second = asyncio.run(seats_then_one_more(running.port))
    assert "No seat is free (at most 1 at once): try again when someone leaves." in second.seen
    assert second.closed


async def two_seats_then_kill(running: RunningWeb) -> list[int]:
    async with aiohttp.ClientSession() as session:
        seats = [await open_seat(session, running.port), await open_seat(session, running.port)]
        for seat in seats:
            assert await seat.wait_for("Home", 40), seat.seen[-800:]
        children = web_children(running)
        running.process.kill()  # SIGKILL
        running.process.wait()
        return children


def test_killing_web_ends_every_seat_and_the_demo_service(room: dict[str, str]) -> None:
    with web(["--demo"], room) as running:
        children = asyncio.run(two_seats_then_kill(running))
    assert len(children) == 4  # two seats, the table's demo service and the warm parent that forked them
    assert still_alive(children, 10) == []


def test_a_seat_asked_for_by_hand_ends_when_its_parent_is_killed(room: dict[str, str]) -> None:
    """The rule itself, without a host: a child started through `die_with_parent` from a parent that is
    SIGKILLed ends (it would otherwise sleep a minute under init)."""
    code = (
        "import os, subprocess, sys, time\n"
        "from functools import partial\n"
        "from rankterm.seats.lifeline import die_with_parent\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
        " preexec_fn=partial(die_with_parent, os.getpid()))\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], env=room, stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    parent.stdout.close()
    assert still_alive([child], 10) == []


def test_a_guest_whose_hosts_profile_is_refused_is_told_to_tell_the_host(
    served: str, home: Path, room: dict[str, str]
) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text().replace(DEMO_SECRET, "no-longer-the-secret"), encoding="utf-8")
    with start_host(["--profile", "room"], room) as host:
        guest = SshGuest(host.port, size=(100, 30))
        try:
            assert guest.wait_for("refused the host's profile", 40), guest.seen[-800:]
            assert host.seat_pids()  # still a seat: nothing else to open
        finally:
            guest.kill()
    assert "no-longer-the-secret" not in guest.raw.decode("utf-8", "replace")
