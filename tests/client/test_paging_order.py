"""`stream_pages` and `fetch_pages` when the answers come back out of order, several at once, or with an
error among them: pages given in page order as soon as those before them are in, the first error (in the
order sent) raised, nothing sent after it and what is in flight cancelled."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from rankterm.client.paging import Window, fetch_pages, stream_pages


async def test_answers_in_reverse_order_come_back_in_page_order() -> None:
    window = Window(start=8, ceiling=8)
    finished: list[int] = []

    async def fetch(n: int) -> int:
        await asyncio.sleep(0.002 * (20 - n))  # the later the page, the sooner its answer
        finished.append(n)
        return n

    assert await fetch_pages(range(2, 18), fetch, window) == list(range(2, 18))
    assert finished[:8] == list(range(9, 1, -1))  # the first window answered last page first
    assert window.most_in_flight == 8


async def test_a_page_is_given_as_soon_as_the_pages_before_it_are_in() -> None:
    release = {n: asyncio.Event() for n in range(2, 6)}
    given: list[int] = []

    async def fetch(n: int) -> int:
        await release[n].wait()
        return n

    async def read() -> None:
        async with contextlib.aclosing(stream_pages(range(2, 6), fetch, Window(start=4))) as pages:
            async for page in pages:
                given.append(page)

    reader = asyncio.create_task(read())
    release[3].set()
    await asyncio.sleep(0.01)
    assert given == []  # page 3 waits for page 2
    release[2].set()
    await asyncio.sleep(0.01)
    assert given == [2, 3]  # both as soon as page 2 is in, page 5 still out
    release[5].set()
    release[4].set()
    await reader
    assert given == [2, 3, 4, 5]


async def test_a_page_failing_mid_way_gives_the_pages_before_it_then_its_error() -> None:
    asked: list[int] = []
    cancelled: list[int] = []

    async def fetch(n: int) -> int:
        asked.append(n)
        if n == 7:
            await asyncio.sleep(0.01)
            raise RuntimeError("page 7 refused")
        if n > 7:
            try:
                await asyncio.sleep(5)
            except asyncio.CancelledError:
                cancelled.append(n)
                raise
        return n

    given: list[int] = []
    with pytest.raises(RuntimeError, match="page 7"):
        async with contextlib.aclosing(
            stream_pages(range(2, 40), fetch, Window(start=8, ceiling=8))
        ) as pages:
            async for page in pages:
                given.append(page)
    assert given == [2, 3, 4, 5, 6]
    assert max(asked) < 40 and len(asked) <= 8 + 5  # no page sent after the error
    assert sorted(cancelled) == [n for n in asked if n > 7]  # what was in flight is cancelled, none left


async def test_of_errors_landing_together_the_first_sent_is_raised() -> None:
    gate = asyncio.Event()

    async def fetch(n: int) -> int:
        await gate.wait()
        if n in (4, 3):
            raise RuntimeError(f"page {n}")
        return n

    async def open_gate() -> None:
        await asyncio.sleep(0.01)
        gate.set()  # pages 2..5 all answer in the same turn of the loop

    opener = asyncio.create_task(open_gate())
    with pytest.raises(RuntimeError, match="page 3"):
        await fetch_pages(range(2, 6), fetch, Window(start=4, ceiling=4))
    await opener
