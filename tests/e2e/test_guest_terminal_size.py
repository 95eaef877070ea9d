"""A guest cannot make a seat draw a screen larger than any screen: the terminal size an SSH guest asks for
(at the start and on every resize) and a browser's resize reach the seat within 1000 columns and 1000 rows.

Tried by hand before: an SSH guest whose client said 20000x20000 made its seat grow by about 10 MB a second,
for as long as the guest stayed; twelve such guests were the host's memory."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from textual_serve.download_manager import DownloadManager

from rankterm.seats.hosting import MAX_SEAT_SIDE
from rankterm.seats.web_server import SeatService
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from tests.support.ssh import start_host
from tests.support.terminal import room_env

ROOT = Path(__file__).resolve().parents[2]


def terminal_size_of(pid: int) -> tuple[int, int]:
    """(rows, columns) of the terminal process `pid` has as its standard input, as stty reads it."""
    tty = os.readlink(f"/proc/{pid}/fd/0")
    said = subprocess.run(["stty", "-F", tty, "size"], capture_output=True, text=True, check=True).stdout
    rows, columns = said.split()
    return int(rows), int(columns)


async def sizes_a_giant_guest_gives(port: int, seat_pids) -> list[tuple[int, int]]:
    """The seat's terminal size when its guest's ssh asked for 20000x20000, then after a resize to 30000x20."""
    options = {
        "username": "giant",
        "known_hosts": None,
        "agent_path": None,
        "config": None,
        "client_keys": None,
    }
    async with asyncssh.connect("127.0.0.1", port, **options) as conn:
        chan, _ = await conn.create_session(
            asyncssh.SSHClientSession, term_type="xterm-256color", term_size=(20000, 20000), encoding=None
        )
        pids = await asyncio.to_thread(seat_pids, 1, 30)
        assert len(pids) == 1, pids
        sizes = [terminal_size_of(pids[0])]
        chan.change_terminal_size(30000, 20)
        end = time.monotonic() + 10
        while (size := terminal_size_of(pids[0])) == sizes[0] and time.monotonic() < end:
            await asyncio.sleep(0.05)
        sizes.append(size)
        chan.close()
    return sizes


@pytest.mark.needs("ssh")
def test_an_ssh_guest_gets_no_seat_larger_than_a_screen(served: str, tmp_path: Path) -> None:
    room = room_env(
        tmp_path / "host", served, DEMO_KEY, DEMO_SECRET, RANKTERM_LIVE_EVERY="0", PYTHONPATH=str(ROOT)
    )
    with start_host(["--profile", "room"], room) as host:
        sizes = asyncio.run(sizes_a_giant_guest_gives(host.port, host.wait_for_seats))
    assert sizes == [(MAX_SEAT_SIDE, MAX_SEAT_SIDE), (20, MAX_SEAT_SIDE)]


KEEP_STDIN = """
import sys
with open(sys.argv[1], "wb") as kept:
    while chunk := sys.stdin.buffer.read1(65536):
        kept.write(chunk)
        kept.flush()
        if b'"quit"' in chunk:
            break
"""


def meta_packets(raw: bytes) -> list[dict[str, object]]:
    """The meta packets (textual-serve's `M`, a 4-byte length, JSON) of what a seat read on its stdin."""
    found, at = [], 0
    while at + 5 <= len(raw):
        kind, size = raw[at : at + 1], int.from_bytes(raw[at + 1 : at + 5], "big")
        if kind == b"M":
            found.append(json.loads(raw[at + 5 : at + 5 + size]))
        at += 5 + size
    return found


async def resizes_a_browser_seat_reads(kept: Path) -> list[dict[str, object]]:
    """What a browser seat's process reads on its stdin when its page asks for three sizes."""
    sent: list[bytes] = []

    async def write(data: bytes) -> None:
        sent.append(data)

    async def close() -> None:
        pass

    seat = SeatService(
        [sys.executable, "-c", KEEP_STDIN, str(kept)],
        None,
        (),
        write_bytes=write,
        write_str=write,
        close=close,
        download_manager=DownloadManager(),
        debug=False,
    )
    await seat.start(80, 24)
    try:
        await seat.set_terminal_size(20000, 20000)
        await seat.set_terminal_size("120", 40)  # type: ignore[arg-type]  # a page's JSON may say anything
        await seat.set_terminal_size(120, 3)
        end = time.monotonic() + 10
        while len(meta_packets(kept.read_bytes() if kept.exists() else b"")) < 2 and time.monotonic() < end:
            await asyncio.sleep(0.05)
    finally:
        await seat.stop()
    return meta_packets(kept.read_bytes())


def test_a_browser_seat_is_resized_within_a_screen(tmp_path: Path) -> None:
    read = asyncio.run(resizes_a_browser_seat_reads(tmp_path / "stdin"))
    resizes = [(m["width"], m["height"]) for m in read if m.get("type") == "resize"]
    assert resizes == [(MAX_SEAT_SIDE, MAX_SEAT_SIDE), (120, 10)]
