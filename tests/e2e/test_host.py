"""`rankterm host` in its own process, joined by OpenSSH's own client (`ssh -tt` on a pseudo-terminal) over
127.0.0.1: the app comes up, records a match typed with README's keys into the group the host's profile
names, follows the guest's window, and goes away with the guest. Debian's openssh-client is installed by
`.ci/run` when missing.

The group is the demo group served on a real socket (`serve_in_thread`); the host serves the profile "room"
on it (`room_env`), so what a guest records is read back from the service.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import asyncssh
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from rankterm.wire.models import Match
from tests.support.ssh import RunningHost, SshGuest, environ_of, start_host
from tests.support.terminal import ESCAPES, room_env

pytestmark = pytest.mark.needs("ssh")  # OpenSSH's client, installed before the run when missing

ROOT = Path(__file__).resolve().parents[2]

SSH = shutil.which("ssh")

FOUR_PLAYERS = [b"n", b"C", b"a", b"t", b"\r", b"E", b"\r", b"A", b"\r", b"B", b"\r", b"C", b"\r", b"\x13"]
"""README's `n C a t ⏎ E ⏎ A ⏎ B ⏎ C ⏎ ^s`, a key a write: Elena, Ada, Ben and Chiara at Catan, in that order."""


@pytest.fixture
def room(served: str, tmp_path: Path) -> dict[str, str]:
    """The host's environment: one profile, "room", on the served demo group; its files under tmp_path."""
    assert SSH, (
        "OpenSSH's client is needed for the SSH seat tests (Debian's openssh-client; tests/needs.py installs it)"
    )
    return room_env(
        tmp_path / "host", served, DEMO_KEY, DEMO_SECRET, RANKTERM_LIVE_EVERY="0", PYTHONPATH=str(ROOT)
    )


FOUR_SIDES = [(1, ["Elena"]), (2, ["Ada"]), (3, ["Ben"]), (4, ["Chiara"])]
"""The match `FOUR_PLAYERS` records: each rank and its players."""


def sides(match: Match) -> list[tuple[int, list[str]]]:
    """Each faction of `match` by rank: its rank and its players' names."""
    return [
        (f.rank, [p.display_name for p in f.players]) for f in sorted(match.factions, key=lambda f: f.rank)
    ]


def test_a_guest_sees_the_app_and_records_a_four_player_match(host: RunningHost, served: str) -> None:
    assert "no join code: only this machine can connect" in "\n".join(host.lines)
    guest = SshGuest(host.port, size=(100, 30), term="screen-256color")
    try:
        assert guest.wait_for("Home", 30), guest.seen[-800:]
        [seat] = host.wait_for_seats(1, 5)
        env = environ_of(seat)
        assert env["TERM"] == "screen-256color"  # the guest's, through ssh
        assert env["COLORTERM"] == "truecolor"  # the host's own setting: ssh does not carry it
        assert env["RANKTERM_CONFIG"] == host_config(host)  # the host's profile
        assert "\x1b[38;2;" in guest.raw.decode("utf-8", "replace")  # drawn in 24-bit colour

        before = asyncio.run(match_count(served))
        guest.settle()
        for key in FOUR_PLAYERS:
            guest.press(key)
        match = asyncio.run(next_match(served, before))
        assert match is not None, guest.seen[-800:]
        assert match.game is not None and match.game.name == "Catan"
        assert sides(match) == FOUR_SIDES
    finally:
        guest.kill()


def host_config(host: RunningHost) -> str:
    return environ_of(host.process.pid)["RANKTERM_CONFIG"]


async def match_count(base_url: str) -> int:
    async with Group(RankingClient(base_url, key=DEMO_KEY, secret=DEMO_SECRET)) as reader:
        return (await Group.of(reader).matches_page(1)).total


async def next_match(base_url: str, before: int, limit: float = 30.0):
    """The newest match once the service holds more than `before` (None after `limit` seconds)."""
    async with Group(RankingClient(base_url, key=DEMO_KEY, secret=DEMO_SECRET)) as reader:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            page = await Group.of(reader).matches_page(1)
            if page.total > before:
                return page.data[0]
            await asyncio.sleep(0.2)
    return None


def terminal_size_of(pid: int) -> str:
    """`rows columns` of the terminal process `pid` has as its standard input, as stty reads it."""
    tty = os.readlink(f"/proc/{pid}/fd/0")
    return subprocess.run(
        ["stty", "-F", tty, "size"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_seat_follows_the_guests_window(host: RunningHost) -> None:
    guest = SshGuest(host.port, size=(80, 24))
    try:
        assert guest.wait_for("Home", 30), guest.seen[-800:]
        [seat] = host.wait_for_seats(1, 5)
        assert terminal_size_of(seat) == "24 80"
        guest.settle()
        assert "\x1b[40;" not in guest.raw.decode("utf-8", "replace")  # 24 rows: no line 40 yet

        guest.raw.clear()
        guest.resize(120, 40)
        redrawn = guest.settle(quiet=1.0)
        assert terminal_size_of(seat) == "40 120"  # rows, then columns
        assert b"\x1b[40;" in redrawn, redrawn[-400:]  # the app drew its 40th line: it redrew at the new size
    finally:
        guest.kill()


def test_a_guest_whose_ssh_is_killed_leaves_no_process(host: RunningHost) -> None:
    first, second = SshGuest(host.port), SshGuest(host.port)
    try:
        assert first.wait_for("Home", 30), first.seen[-800:]
        assert second.wait_for("Home", 30), second.seen[-800:]
        seats = host.wait_for_seats(2, 5)
        assert len(seats) == 2

        first.kill()
        left = host.wait_for_seats(1, 6)  # SIGHUP, SIGTERM, SIGKILL: within 5 s of the connection's end
        assert len(left) == 1 and left[0] in seats
        ended = Path(f"/proc/{set(seats).difference(left).pop()}")
        reaped_by = time.monotonic() + 5  # a zombie no longer counts as a seat, but is reaped a moment later
        while ended.exists() and time.monotonic() < reaped_by:
            time.sleep(0.05)
        assert not ended.exists()  # ended and reaped

        second.settle()
        second.press(b"g")  # the other guest plays on
        assert second.wait_for("Games", 15), second.seen[-800:]
    finally:
        first.kill()
        second.kill()
    assert host.wait_for_seats(0, 6) == []


def test_the_user_board_gets_the_scoreboard(host: RunningHost) -> None:
    board = SshGuest(host.port, user="board")
    try:
        assert board.wait_for("Scoreboard", 30), board.seen[-800:]
        [seat] = host.wait_for_seats(1, 5)
        assert b"--board" in Path(f"/proc/{seat}/cmdline").read_bytes().split(b"\0")
        board.press(b"n")  # a kiosk: no form
        board.settle()
        assert "New match" not in board.seen
    finally:
        board.kill()


def test_the_seats_beyond_the_limit_are_told_and_let_go(room: dict[str, str]) -> None:
    with start_host(["--profile", "room", "--max-seats", "1"], room) as host:
        first = SshGuest(host.port)
        try:
            assert first.wait_for("Home", 30), first.seen[-800:]
            second = SshGuest(host.port)
            code = second.exit_code()
            assert code == 1, second.seen[-400:]
            assert "No seat is free (at most 1 at once)" in second.seen
            assert len(host.seat_pids()) == 1
        finally:
            first.kill()


def test_a_command_or_a_subsystem_is_refused(host: RunningHost) -> None:
    command = SshGuest(host.port, command=["echo", "let-me-in"], tty=False)
    assert command.exit_code() not in (0, None)
    assert "exec request failed" in command.seen
    assert "let-me-in" not in command.seen

    sftp = SshGuest(host.port, options=["-s"], command=["sftp"], tty=False)
    assert sftp.exit_code() not in (0, None)
    assert "subsystem request failed" in sftp.seen
    assert host.seat_pids() == []


def test_a_session_without_a_terminal_is_told_to_ask_for_one(host: RunningHost) -> None:
    plain = SshGuest(host.port, tty=False)
    assert plain.exit_code() == 1
    assert "connect with `ssh -t`" in re.sub(r"\s+", " ", plain.seen)
    assert host.seat_pids() == []


class Collector(asyncssh.SSHClientSession):
    """What a guest's terminal received, as text without escape sequences."""

    def __init__(self) -> None:
        self.text = ""

    def data_received(self, data: bytes, datatype: object) -> None:
        self.text += ESCAPES.sub("", data.decode("utf-8", "replace"))


async def until(predicate, limit: float) -> bool:
    end = time.monotonic() + limit
    while not predicate() and time.monotonic() < end:
        await asyncio.sleep(0.1)
    return predicate()


async def quiet(guest: Collector, seconds: float = 1.0, limit: float = 30.0) -> None:
    """Until the guest's terminal has received nothing for `seconds` (at most `limit`)."""
    end = time.monotonic() + limit
    seen = -1
    while len(guest.text) != seen and time.monotonic() < end:
        seen = len(guest.text)
        await asyncio.sleep(seconds)


async def a_slow_guest_beside_another(port: int) -> None:
    options = {
        "username": "slow",
        "known_hosts": None,
        "agent_path": None,
        "config": None,
        "client_keys": None,
    }
    async with asyncssh.connect("127.0.0.1", port, **options) as conn:
        chan, slow = await conn.create_session(
            Collector, term_type="xterm-256color", term_size=(200, 60), encoding=None, window=4096
        )
        assert await until(lambda: "Home" in slow.text, 30), slow.text[-400:]
        await quiet(slow)
        chan.pause_reading()  # the slow guest's terminal stops taking anything: its window closes at 4 kB
        for step in range(30):  # thirty redraws of 200x60 wait for it, far beyond its window
            chan.change_terminal_size(200 - step % 2, 60)
        chan.write(b"g")

        other = await asyncio.to_thread(SshGuest, port)  # meanwhile another guest comes and plays
        try:
            assert await asyncio.to_thread(other.wait_for, "Home", 30), other.seen[-800:]
            await asyncio.to_thread(other.settle)
            other.press(b"g")
            assert await asyncio.to_thread(other.wait_for, "Games", 15), other.seen[-800:]
        finally:
            other.kill()

        before = len(slow.text)
        chan.resume_reading()  # the slow guest catches up, with the screen the app drew last
        assert await until(lambda: "Games" in slow.text[before:], 30), slow.text[-400:]
        chan.close()


def test_a_slow_guest_holds_back_no_other_seat(host: RunningHost) -> None:
    asyncio.run(a_slow_guest_beside_another(host.port))


def test_a_form_half_filled_when_the_connection_dropped_is_offered_to_the_next_guest(
    host: RunningHost,
) -> None:
    first = SshGuest(host.port)
    try:
        assert first.wait_for("Home", 30), first.seen[-800:]
        first.settle()
        for key in FOUR_PLAYERS[:7]:  # n C a t ⏎ E ⏎: Catan, Elena first, and no more
            first.press(key)
        first.settle(quiet=1.5)  # the draft is written within 50 ms of a key
    finally:
        first.kill()
    assert host.wait_for_seats(0, 6) == []

    second = SshGuest(host.port)
    try:
        assert second.wait_for("Home", 30), second.seen[-800:]
        second.settle()
        second.press(b"n")
        assert second.wait_for("was not sent — Enter restores it", 15), second.seen[-800:]
    finally:
        second.kill()
