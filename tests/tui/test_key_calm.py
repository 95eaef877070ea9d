"""The limits on how long a key waits for the one before it are counted while the app was free to run: a step
that keeps the app busy past the limit (Enter's pick and the focus it moves, on a host too loaded to run them
in time) still gets the keys after it, and a handler that only waits (for the network) lets them go on the
limit. Each test asserts what the service stored or where the keys went."""

from __future__ import annotations

import asyncio
import time

from textual.message import Message
from textual.message_pump import MessagePump

from rankterm.tui import key_queue

from .pilot import burst, game_field, match_count, open_form, sequence, settle
from .test_form_ready import newest, sides

LIMIT = 0.3
"""The settle limit these tests set: each step below takes longer than it."""
STARVED = 0.03
"""Seconds each message holds the loop on the loaded host of the first test."""


async def test_keys_wait_for_steps_that_a_loaded_host_runs_slower_than_the_limit(make_app, monkeypatch):
    """Every message the app handles holds its loop a while (as on a host whose other seats take the CPU), so
    Enter's pick and the focus it moves take longer than the limit: the keys after it still go to the field
    the focus moved to. On the wall clock they went on the limit into the field just picked ("CatanB"), and the
    match was refused."""
    monkeypatch.setattr(key_queue, "SETTLE_LIMIT", LIMIT)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        before = await match_count(pilot)
        dispatch = MessagePump._dispatch_message

        async def slow_dispatch(self: MessagePump, message: Message) -> None:
            if self is screen:
                time.sleep(STARVED)
            await dispatch(self, message)

        monkeypatch.setattr(MessagePump, "_dispatch_message", slow_dispatch)
        burst(pilot, sequence("C a t ⏎ B ⏎ C ⏎ ^s"))
        await settle(pilot)
        monkeypatch.setattr(MessagePump, "_dispatch_message", dispatch)
        assert await match_count(pilot) == before + 1, screen.form.answer.text
        match = await newest(pilot)
        assert match.game is not None and match.game.name == "Catan"
        assert sides(match) == [(1, ["Ben"]), (2, ["Chiara"])]


async def test_keys_go_on_the_limit_while_a_handler_only_waits(make_app, monkeypatch):
    """A handler on the form waits (for the network) and keeps the screen busy: the keys typed meanwhile reach
    the field while it still waits, each after the limit."""
    monkeypatch.setattr(key_queue, "SETTLE_LIMIT", LIMIT)
    async with make_app().run_test(size=(80, 24)) as pilot:
        picker = await game_field(pilot)
        waiting, answered = asyncio.Event(), asyncio.Event()

        async def wait_for_the_network() -> None:
            waiting.set()
            await asyncio.wait_for(answered.wait(), 60)

        pilot.app.screen.call_later(wait_for_the_network)
        await asyncio.wait_for(waiting.wait(), 5)
        burst(pilot, sequence("C a t"))
        for _ in range(3000):
            if picker.input.value == "Cat":
                break
            await asyncio.sleep(0.01)
        assert picker.input.value == "Cat"
        assert not answered.is_set()
        answered.set()
        await settle(pilot)
