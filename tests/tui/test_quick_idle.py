"""The pilot's wait for an idle app (tests/support/idle.py) returns only once nothing is left to run: what is
ready on the loop, a timer due within Textual's 20 ms stretch, another thread's work and what it hands the
loop; and when nothing is, the loop says so (no stretch of Textual's is slept)."""

from __future__ import annotations

import asyncio
import threading
import time

from tests.support.idle import STRETCH, loop_went_quiet, quick_idle


async def test_a_chain_of_ready_callbacks_has_run() -> None:
    loop = asyncio.get_running_loop()
    ran: list[int] = []

    def step(n: int) -> None:
        ran.append(n)
        if n < 50:
            loop.call_soon(step, n + 1)

    loop.call_soon(step, 1)
    await quick_idle(0)
    assert ran == list(range(1, 51))


async def test_a_timer_due_within_the_stretch_has_fired() -> None:
    fired: list[str] = []
    asyncio.get_running_loop().call_later(STRETCH / 2, fired.append, "timer")
    await quick_idle(0)
    assert fired == ["timer"]


async def test_a_threads_work_and_the_call_it_hands_the_loop_are_done() -> None:
    loop = asyncio.get_running_loop()
    done: list[str] = []

    def work() -> None:
        end = time.thread_time() + 0.1
        while time.thread_time() < end:  # CPU, with the GIL taken and given back as Python does
            pass
        loop.call_soon_threadsafe(done.append, "handed")

    thread = threading.Thread(target=work)
    thread.start()
    await quick_idle(0)
    assert done == ["handed"]
    thread.join()


async def test_nothing_to_run_is_told_by_the_loop_not_by_textuals_stretch() -> None:
    loop = asyncio.get_running_loop()
    await quick_idle(0)  # what the test's start left
    assert await loop_went_quiet(loop, 1.0)
