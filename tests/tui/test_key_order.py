"""The keys of a burst reach the app in the order they were typed, however long the app takes to read each
one: a key let go is read before the next one is let go (once, a key the app had not read within the settle
limit was overtaken by the next, and joined the end of the queue: under load, `n C a t` became `C a t n`)."""

from __future__ import annotations

import pytest

from rankterm.tui import key_queue

from .pilot import burst, game_field, settle


@pytest.mark.parametrize("limit", [0.0, 0.001])
async def test_a_burst_keeps_its_order_when_the_settle_limit_runs_out_at_once(make_app, monkeypatch, limit):
    monkeypatch.setattr(key_queue, "SETTLE_LIMIT", limit)
    async with make_app().run_test(size=(80, 24)) as pilot:
        picker = await game_field(pilot)
        typed = "Patchwork Seven Wonders Duel"
        burst(pilot, ["space" if char == " " else char for char in typed])
        await settle(pilot)
        assert picker.input.value == typed
