"""The paging window on its own: how it grows, halves, stays within its bounds, and runs pages in order."""

from __future__ import annotations

import asyncio

import pytest

from rankterm.client.paging import QuotaView, Window, fetch_pages, report_pressure
from rankterm.wire.models import Quota

HOUR = 3600.0
T0 = 1_780_000_000.0 - 1_780_000_000.0 % 3600 + 600  # ten minutes into an hour


def test_grows_by_one_per_answer_in_time_until_the_ceiling():
    window = Window(start=4, ceiling=6)
    window.note_first(0.05)
    for seq in range(5):
        window.answered(seq, 0.06)
    assert window.allowed == 6 and window.sizes == [4, 5, 6]


def test_a_late_answer_does_not_grow_it():
    window = Window(start=4, ceiling=32, slack=3.0)
    window.note_first(0.05)
    window.answered(0, 0.2)  # four times the fastest
    assert window.allowed == 4
    window.answered(1, 0.14)
    assert window.allowed == 5


def test_halves_once_per_round_then_grows_slowly():
    window = Window(start=16, ceiling=32)
    window.note_first(0.05)
    window.sent = 16
    window.pressure(3)
    window.pressure(7)  # sent in the same round: the same episode
    assert window.allowed == 8 and window.halvings == 1
    window.answered(5, 0.05)  # sent before the halving: does not grow it back
    assert window.allowed == 8
    for seq in range(16, 25):  # after it, about one place per window's worth of answers
        window.answered(seq, 0.05)
    assert window.allowed == 9
    window.sent = 30
    window.pressure(20)  # sent after the halving: a new episode
    assert window.allowed == 4 and window.halvings == 2


def test_never_below_one_nor_above_the_ceiling():
    window = Window(start=50, ceiling=3)
    assert window.allowed == 3
    for seq in range(10):
        window.sent = seq + 1
        window.pressure(seq)
    assert window.allowed == 1


async def test_pages_in_order_each_once_never_more_in_flight_than_allowed_or_left():
    window = Window(start=3, ceiling=5)
    window.note_first(1.0)
    asked: list[int] = []
    now = {"in": 0, "most": 0}

    async def fetch(n: int) -> str:
        asked.append(n)
        now["in"] += 1
        now["most"] = max(now["most"], now["in"])
        await asyncio.sleep(0.001 * (n % 3))
        now["in"] -= 1
        return f"page {n}"

    got = await fetch_pages(range(2, 14), fetch, window)
    assert got == [f"page {n}" for n in range(2, 14)]
    assert sorted(asked) == list(range(2, 14))
    assert now["most"] == window.most_in_flight <= 5
    assert window.sizes[0] == 3 and window.sizes[-1] == 5

    small = Window(start=8)
    assert await fetch_pages([2, 3], fetch, small) == ["page 2", "page 3"]
    assert small.most_in_flight == 2  # never more in flight than pages left


async def test_pressure_reported_from_inside_a_fetch_reaches_its_window():
    window = Window(start=8)
    window.note_first(1.0)

    async def fetch(n: int) -> int:
        if n == 4:
            report_pressure()
        return n

    assert await fetch_pages(range(2, 8), fetch, window) == list(range(2, 8))
    assert window.halvings == 1 and window.sizes[:2] == [8, 4]
    report_pressure()  # outside a fetch: nobody to tell, nothing happens


async def test_the_first_error_stops_sending_and_drops_what_is_in_flight():
    window = Window(start=2, ceiling=2)
    asked: list[int] = []
    cancelled: list[int] = []

    async def fetch(n: int) -> int:
        asked.append(n)
        if n == 3:
            raise RuntimeError("refused")
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            cancelled.append(n)
            raise
        return n

    with pytest.raises(RuntimeError):
        await fetch_pages(range(2, 20), fetch, window)
    assert asked == [2, 3] and cancelled == [2]


def test_quota_view_knows_a_full_call_meter_for_its_period_only():
    view = QuotaView()
    assert view.calls_left(T0) is None
    view.note_read(Quota.model_validate({"callsPerHour": "100%", "callsPerYear": "40%"}), T0)
    assert view.calls_left(T0) == 0 and view.full_meter(T0) == "callsPerHour"
    assert view.calls_left(T0 + HOUR) is None  # the hour turned
    view.note_read(Quota.model_validate({"callsPerHour": "99%"}), T0)
    assert view.calls_left(T0) is None
    view.note_refusal("Q001", T0)  # calls per year
    assert view.calls_left(T0 + HOUR) == 0
    other = QuotaView()
    other.note_refusal("Q004", T0)  # matches per day: page calls do not spend it
    assert other.calls_left(T0) is None
