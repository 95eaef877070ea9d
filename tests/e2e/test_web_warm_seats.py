"""Browser seats of `rankterm web` forked warm: a real `rankterm web` whose seats are forked by its warm parent
onto three pipes (`rankterm.seats.web_seat`), not started by fork+exec. A seat opened in Chromium shows Home
and records a match; the warm parent killed mid-evening ends no seat and the next browser still gets one;
`rankterm web` killed ends its seats and its warm parent; neither the warm parent nor a seat holds the
secret, in its environment or its memory; and `RANKTERM_SEATS=exec` starts each seat by exec, as before.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import pytest

from rankterm.server.seed import DEMO_KEY, DEMO_SECRET
from tests.e2e.test_guest_seats import open_seat
from tests.e2e.test_host import FOUR_SIDES, match_count, next_match, sides
from tests.e2e.test_web_seat import wait_for_text
from tests.support.ssh import children_of, environ_of, is_service, is_warm_parent
from tests.support.warm import (
    SECRET_VARIABLE,
    SHARED_MIB,
    alive,
    memory_holds,
    room_with_secret,
    shared_mib,
    still_alive,
    wait_for_warm_parent,
    warm_parents_of,
)
from tests.support.web_guest import CHROMIUM_FLAGS, KEEP_FRAMES
from tests.support.web_host import RunningWeb, web

pytestmark = pytest.mark.needs("chromium")

T = TypeVar("T")
FOUR_PLAYERS = [
    "n",
    "C",
    "a",
    "t",
    "Enter",
    "E",
    "Enter",
    "A",
    "Enter",
    "B",
    "Enter",
    "C",
    "Enter",
    "Control+s",
]
"""README's `n C a t ⏎ E ⏎ A ⏎ B ⏎ C ⏎ ^s` as a browser's keys: Elena, Ada, Ben and Chiara at Catan."""


@pytest.fixture
def room(served: str, tmp_path: Path) -> dict[str, str]:
    """`rankterm web`'s environment: the profile "room" on the served demo group, its secret in a variable."""
    return room_with_secret(tmp_path / "web", served, DEMO_KEY, DEMO_SECRET)


def seats_of(running: RunningWeb) -> list[int]:
    """The browser seats of `running`: its children but the warm parent, and each showing its own command."""
    found = []
    for pid in children_of(running.process.pid):
        if is_warm_parent(pid) or is_service(pid):
            continue
        try:
            if b"--desk-fd" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                found.append(pid)
        except FileNotFoundError:
            continue
    return found


def wait_for_seats(running: RunningWeb, count: int, limit: float = 10.0) -> list[int]:
    end = time.monotonic() + limit
    while len(pids := seats_of(running)) != count and time.monotonic() < end:
        time.sleep(0.05)
    return pids


def beside_playwright(coroutine: Coroutine[Any, Any, T]) -> T:
    """`coroutine` run to its end on a thread of its own (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_browser_seat_forked_warm_shows_home_and_records_a_match(room: dict[str, str], served: str) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "Debian's chromium is needed for the browser seat test (tests/needs.py installs it)"
    with web(["--profile", "room"], room) as running, sync_playwright() as p:
        parent = wait_for_warm_parent(running.process.pid, 30)
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 700})
            page.add_init_script(KEEP_FRAMES)
            page.goto(f"http://127.0.0.1:{running.port}/")
            wait_for_text(page, "Home")
            [seat] = wait_for_seats(running, 1)
            assert seat != parent
            assert shared_mib(seat) > SHARED_MIB  # forked from the warm parent, not started by exec
            seat_env = environ_of(seat)  # its own environment, as textual-serve builds it, shown in /proc
            assert seat_env["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver"
            assert "TEXTUAL_DRIVER" not in environ_of(parent)
            before = beside_playwright(match_count(served))
            page.locator(".xterm-screen").click()
            page.wait_for_timeout(500)
            for key in FOUR_PLAYERS:
                page.keyboard.press(key)
                page.wait_for_timeout(150)
            match = beside_playwright(next_match(served, before))
            assert match is not None, wait_for_text(page, "")[-800:]
            assert match.game is not None and match.game.name == "Catan"
            assert sides(match) == FOUR_SIDES
        finally:
            browser.close()
        assert still_alive([seat], 10) == []  # the browser gone: its seat ended, and was reaped
        assert seats_of(running) == []


async def seat_then_kill_the_warm_parent(running: RunningWeb, parent: int) -> tuple[list[int], int]:
    async with aiohttp.ClientSession() as session:
        first = await open_seat(session, running.port)
        assert await first.wait_for("Home", 40), first.seen[-800:]
        [seat] = wait_for_seats(running, 1)
        assert shared_mib(seat) > SHARED_MIB
        os.kill(parent, signal.SIGKILL)
        second = await open_seat(session, running.port)  # at once: no warm parent yet, or a new one starting
        assert await second.wait_for("Home", 60), second.seen[-800:]
        assert alive(seat)
        await first.read(1.0)
        await first.press(b"m")
        assert await first.wait_for("Matches", 30), first.seen[-800:]  # the first seat runs on
        two = wait_for_seats(running, 2)
        again = wait_for_warm_parent(running.process.pid, 60, but=parent)  # another, for the next browsers
        third = await open_seat(session, running.port)
        assert await third.wait_for("Home", 40), third.seen[-800:]
        [newest] = set(wait_for_seats(running, 3)) - set(two)
        for seat in (first, second, third):
            await seat.ws.close()
        return [*two, newest], again


def test_the_warm_parent_killed_ends_no_browser_seat_and_the_next_browser_gets_one(
    room: dict[str, str],
) -> None:
    with web(["--profile", "room"], room) as running:
        parent = wait_for_warm_parent(running.process.pid, 30)
        seats, again = asyncio.run(seat_then_kill_the_warm_parent(running, parent))
        assert shared_mib(seats[-1]) > SHARED_MIB  # forked warm again, by the new warm parent
        assert alive(again)
        assert still_alive(seats, 10) == []  # each browser gone: its seat ended


async def two_seats_then_kill_web(running: RunningWeb) -> list[int]:
    async with aiohttp.ClientSession() as session:
        seats = [await open_seat(session, running.port), await open_seat(session, running.port)]
        for seat in seats:
            assert await seat.wait_for("Home", 40), seat.seen[-800:]
        pids = wait_for_seats(running, 2)
        assert len(pids) == 2 and all(shared_mib(pid) > SHARED_MIB for pid in pids)
        running.process.kill()  # SIGKILL
        running.process.wait()
        return pids


def test_killing_web_ends_its_warm_parent_and_every_browser_seat(room: dict[str, str]) -> None:
    with web(["--profile", "room"], room) as running:
        parent = wait_for_warm_parent(running.process.pid, 30)
        seats = asyncio.run(two_seats_then_kill_web(running))
        assert still_alive([*seats, parent], 10) == []


def test_neither_the_warm_parent_nor_a_browser_seat_holds_the_secret(room: dict[str, str]) -> None:
    with web(["--profile", "room"], room) as running:
        assert environ_of(running.process.pid)[SECRET_VARIABLE] == DEMO_SECRET
        assert memory_holds(running.process.pid, DEMO_SECRET.encode())  # the search finds it where it is
        parent = wait_for_warm_parent(running.process.pid, 30)
        seat, clean = asyncio.run(seat_shown_and_searched(running, parent))
        assert clean
        assert still_alive([seat], 10) == []


async def seat_shown_and_searched(running: RunningWeb, parent: int) -> tuple[int, bool]:
    async with aiohttp.ClientSession() as session:
        browser = await open_seat(session, running.port)
        assert await browser.wait_for("Home", 40), browser.seen[-800:]
        await browser.read(1.0)
        [seat] = wait_for_seats(running, 1)
        assert shared_mib(seat) > SHARED_MIB
        for pid in (parent, seat):
            assert SECRET_VARIABLE not in environ_of(pid)
            assert DEMO_SECRET not in str(environ_of(pid))
        clean = not any(memory_holds(pid, DEMO_SECRET.encode()) for pid in (parent, seat))
        await browser.ws.close()
        return seat, clean


async def seat_by_exec(running: RunningWeb) -> None:
    async with aiohttp.ClientSession() as session:
        browser = await open_seat(session, running.port)
        assert await browser.wait_for("Home", 40), browser.seen[-800:]
        [seat] = wait_for_seats(running, 1)
        assert warm_parents_of(running.process.pid) == []
        assert shared_mib(seat) < SHARED_MIB
        await browser.ws.close()


def test_rankterm_seats_exec_starts_each_browser_seat_by_exec_as_before(room: dict[str, str]) -> None:
    with web(["--profile", "room"], {**room, "RANKTERM_SEATS": "exec"}) as running:
        asyncio.run(seat_by_exec(running))
