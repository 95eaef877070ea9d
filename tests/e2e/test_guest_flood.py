"""A stranger who holds many idle connections to `rankterm host` (never a word of SSH) does not keep the
table's guests out: past `PER_ADDRESS` open connections from one address, the next is closed at once, so one
machine cannot take every file the host may open.

The host runs with a laptop's limit of open files (256 here, 1024 on most desktops); the stranger holds 400
connections from 127.0.0.2, and a guest from 127.0.0.1 still gets the app. Tried by hand before: with 1100
idle connections from one address the host could accept nothing more ("Too many open files" on its
terminal) and a guest's ssh timed out."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import socket
from pathlib import Path

import asyncssh
import pytest

from rankterm.seats.per_address import PER_ADDRESS
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from tests.support.ssh import start_host
from tests.support.terminal import ESCAPES, room_env

ROOT = Path(__file__).resolve().parents[2]
OPEN_FILES = 256
STRANGER = "127.0.0.2"
HELD = 400


def idle_connections(port: int, count: int) -> list[socket.socket]:
    """`count` connections to `port` from `STRANGER` that never say anything (as many as could be opened)."""
    held: list[socket.socket] = []
    for _ in range(count):
        try:
            held.append(socket.create_connection(("127.0.0.1", port), 5, source_address=(STRANGER, 0)))
        except OSError:
            break
    return held


class Seen(asyncssh.SSHClientSession):
    """What a guest's terminal received, as text without escape sequences."""

    def __init__(self) -> None:
        self.text = ""

    def data_received(self, data: bytes, datatype: object) -> None:
        self.text += ESCAPES.sub("", data.decode("utf-8", "replace"))


async def what_a_guest_sees(port: int) -> str:
    """The text a guest from 127.0.0.1 is shown within 30 s of asking for a seat."""
    options = {
        "username": "guest",
        "known_hosts": None,
        "agent_path": None,
        "config": None,
        "client_keys": None,
    }
    async with asyncssh.connect("127.0.0.1", port, connect_timeout=15, **options) as conn:
        chan, seen = await conn.create_session(
            Seen, term_type="xterm-256color", term_size=(80, 24), encoding=None
        )
        for _ in range(300):
            if "Home" in seen.text:
                break
            await asyncio.sleep(0.1)
        chan.close()
    return seen.text


@pytest.mark.needs("ssh")
def test_a_strangers_idle_connections_keep_no_guest_out(served: str, tmp_path: Path) -> None:
    room = room_env(
        tmp_path / "host", served, DEMO_KEY, DEMO_SECRET, RANKTERM_LIVE_EVERY="0", PYTHONPATH=str(ROOT)
    )
    with start_host(["--profile", "room"], room) as host:
        resource.prlimit(host.process.pid, resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
        held = idle_connections(host.port, HELD)
        try:
            assert len(held) > OPEN_FILES > PER_ADDRESS
            seen = asyncio.run(what_a_guest_sees(host.port))
        finally:
            for sock in held:
                with contextlib.suppress(OSError):
                    sock.close()
    assert "Home" in seen, seen[-400:]
