"""Seats of `rankterm host` forked warm: OpenSSH's client joins a real host whose seats are forked by its warm
parent (`rankterm.seats.warm`), not started by fork+exec. Each seat shows Home, records a match, follows its
guest's window and hears the hangup as before; it shares the warm parent's pages; the warm parent killed
mid-evening ends no seat and the next guest still gets one; the host killed ends the seats and the warm
parent; and neither the warm parent nor a seat holds the host's secret, in its environment or its memory.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from tests.e2e.test_host import FOUR_PLAYERS, match_count, next_match, terminal_size_of
from tests.support.ssh import RunningHost, SshGuest, environ_of, start_host
from tests.support.warm import (
    SECRET_VARIABLE,
    SHARED_MIB,
    alive,
    memory_holds,
    room_with_secret,
    shared_mib,
    still_alive,
    warm_parents_of,
)
from tests.support.warm import wait_for_warm_parent as wait_for_pid_of_warm_parent

pytestmark = pytest.mark.needs("ssh")


@pytest.fixture
def room(served: str, tmp_path: Path) -> dict[str, str]:
    """The host's environment: the profile "room" on the served demo group, its secret in a variable."""
    return room_with_secret(tmp_path / "host", served, DEMO_KEY, DEMO_SECRET)


def warm_parents(host: RunningHost) -> list[int]:
    return warm_parents_of(host.process.pid)


def wait_for_warm_parent(host: RunningHost, limit: float, but: int | None = None) -> int:
    return wait_for_pid_of_warm_parent(host.process.pid, limit, but)


def test_a_seat_forked_warm_shows_home_and_records_a_match(host: RunningHost, served: str) -> None:
    parent = wait_for_warm_parent(host, 30)
    guest = SshGuest(host.port, size=(100, 30))
    try:
        assert guest.wait_for("Home", 30), guest.seen[-800:]
        [seat] = host.wait_for_seats(1, 5)
        assert seat != parent
        assert shared_mib(seat) > SHARED_MIB  # forked from the warm parent, not started by exec
        assert environ_of(seat)["TERM"] == "xterm-256color"  # its own environment, as /proc shows it
        before = asyncio.run(match_count(served))
        guest.settle()
        for key in FOUR_PLAYERS:
            guest.press(key)
        match = asyncio.run(next_match(served, before))
        assert match is not None, guest.seen[-800:]
        assert match.game is not None and match.game.name == "Catan"
    finally:
        guest.kill()


def test_a_seat_forked_warm_follows_its_window_and_hears_the_hangup(room: dict[str, str]) -> None:
    before = signal.signal(
        signal.SIGHUP, signal.SIG_IGN
    )  # the host under nohup: its seats must still hear it
    try:
        running = start_host(["--profile", "room"], room)
        host = running.__enter__()
    finally:
        signal.signal(signal.SIGHUP, before)
    try:
        wait_for_warm_parent(host, 30)
        guest = SshGuest(host.port, size=(80, 24))
        try:
            assert guest.wait_for("Home", 30), guest.seen[-800:]
            [seat] = host.wait_for_seats(1, 5)
            assert shared_mib(seat) > SHARED_MIB
            assert terminal_size_of(seat) == "24 80"
            guest.settle()
            guest.resize(120, 40)
            redrawn = guest.settle(quiet=1.0)
            assert terminal_size_of(seat) == "40 120"
            assert b"\x1b[40;" in redrawn, redrawn[-400:]
            ignored = int(Path(f"/proc/{seat}/status").read_text().split("SigIgn:")[1].split()[0], 16)
            assert not ignored & (1 << (signal.SIGHUP - 1))  # SIGHUP not ignored, though the host ignores it
        finally:
            guest.kill()
        assert still_alive([seat], 10) == []  # the guest gone: its seat ended
        assert host.seat_pids() == []
    finally:
        running.__exit__(None, None, None)


def test_the_warm_parent_killed_mid_evening_ends_no_seat_and_the_next_guest_gets_one(
    host: RunningHost,
) -> None:
    parent = wait_for_warm_parent(host, 30)
    first = SshGuest(host.port)
    guests = [first]
    try:
        assert first.wait_for("Home", 30), first.seen[-800:]
        [seat] = host.wait_for_seats(1, 5)
        os.kill(parent, signal.SIGKILL)
        second = SshGuest(host.port)  # at once: no warm parent yet, or a new one starting
        guests.append(second)
        assert second.wait_for("Home", 60), second.seen[-800:]
        assert alive(seat)
        first.settle()
        first.press(b"m")
        assert first.wait_for("Matches", 30), first.seen[-800:]  # the first seat runs on
        two = host.wait_for_seats(2, 5)
        again = wait_for_warm_parent(host, 60, but=parent)  # another warm parent, for the next guests
        third = SshGuest(host.port)
        guests.append(third)
        assert third.wait_for("Home", 30), third.seen[-800:]
        [newest] = set(host.wait_for_seats(3, 5)) - set(two)
        assert shared_mib(newest) > SHARED_MIB  # forked warm again, by the new warm parent
        assert alive(again)
    finally:
        for guest in guests:
            guest.kill()


def test_killing_the_host_ends_its_warm_parent_and_every_seat(host: RunningHost) -> None:
    parent = wait_for_warm_parent(host, 30)
    guests = [SshGuest(host.port), SshGuest(host.port)]
    try:
        for guest in guests:
            assert guest.wait_for("Home", 30), guest.seen[-800:]
        seats = host.wait_for_seats(2, 5)
        assert len(seats) == 2 and all(shared_mib(pid) > SHARED_MIB for pid in seats)
        host.process.kill()
        host.process.wait()
        assert still_alive([*seats, parent], 10) == []
    finally:
        for guest in guests:
            guest.kill()


def test_neither_the_warm_parent_nor_a_seat_holds_the_hosts_secret(host: RunningHost) -> None:
    secret = DEMO_SECRET.encode()
    assert environ_of(host.process.pid)[SECRET_VARIABLE] == DEMO_SECRET
    parent = wait_for_warm_parent(host, 30)
    guest = SshGuest(host.port)
    try:
        assert guest.wait_for("Home", 30), guest.seen[-800:]
        [seat] = host.wait_for_seats(1, 5)
        guest.settle()
        assert shared_mib(seat) > SHARED_MIB
        assert memory_holds(host.process.pid, secret)  # the host holds it: the search finds it where it is
        for pid in (parent, seat):
            assert SECRET_VARIABLE not in environ_of(pid)
            assert DEMO_SECRET not in str(environ_of(pid))
            assert not memory_holds(pid, secret), pid
    finally:
        guest.kill()


def test_rankterm_seats_exec_starts_each_seat_by_exec_as_before(room: dict[str, str]) -> None:
    with start_host(["--profile", "room"], {**room, "RANKTERM_SEATS": "exec"}) as host:
        guest = SshGuest(host.port)
        try:
            assert guest.wait_for("Home", 30), guest.seen[-800:]
            [seat] = host.wait_for_seats(1, 5)
            assert warm_parents(host) == []
            assert shared_mib(seat) < SHARED_MIB
        finally:
            guest.kill()
