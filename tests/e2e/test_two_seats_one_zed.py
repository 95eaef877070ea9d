"""Two seats, one new player, over a real socket: both make `*Zed` while the service is down and record a
match with him; once it is back, the group has one Zed with both matches, and the seat that came back
second says it took the Zed the other seat made.

Each seat is the app as `rankterm --profile club` builds it, with its own token cache, mirror and outbox on
disk (its own RANKTERM_* directories); the service is `rankterm serve`'s app on 127.0.0.1, stopped and
started again at the same port.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rankterm.api.auth import TokenCache
from rankterm.api.client import RankingClient
from rankterm.api.ids import is_local_id, service_scope
from rankterm.api.mirror import Mirror
from rankterm.cli import make_outbox
from rankterm.config import Config, mirror_path, token_cache_path
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.testing.clock import SettableClock
from rankterm.testing.live import UvicornThread
from rankterm.tui.app import RanktermApp
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.outbox import OutboxScreen
from rankterm.tui.screens.players import PlayersScreen
from tests.tui.pilot import keys, open_form, quick_fill, settle

EIGHT_PM = datetime(2026, 5, 28, 20, 0, tzinfo=UTC).timestamp()


class Seats:
    """Where each seat keeps its files: switching seat points the RANKTERM_* directories at its own."""

    def __init__(self, tmp_path, monkeypatch) -> None:
        self.tmp = tmp_path
        self.env = monkeypatch

    def app(self, name: str, base_url: str, clock: SettableClock) -> RanktermApp:
        home = self.tmp / name
        self.env.setenv("RANKTERM_CONFIG", str(home / "config" / "config.toml"))
        self.env.setenv("RANKTERM_CACHE_DIR", str(home / "cache"))
        self.env.setenv("RANKTERM_DATA_DIR", str(home / "data"))
        client = RankingClient(
            base_url,
            key=DEMO_KEY,
            secret=DEMO_SECRET,
            token_cache=TokenCache(token_cache_path()),
            mirror=Mirror(mirror_path(base_url, DEMO_KEY), service_scope(base_url, DEMO_KEY), clock=clock),
            clock=clock,
            retries=0,
            timeout=2.0,
        )
        return RanktermApp(config=Config(), client=client, outbox_factory=make_outbox)


@pytest.fixture
def seats(tmp_path, monkeypatch) -> Seats:
    return Seats(tmp_path, monkeypatch)


async def make_ghost(pilot, name: str) -> None:
    """Players screen, ctrl+n, the name typed, Enter."""
    await pilot.press("escape", "p")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PlayersScreen)
    await pilot.press("ctrl+n")
    await settle(pilot)
    assert isinstance(pilot.app.screen, AskDialog)
    await pilot.press(*keys(name), "enter")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PlayersScreen)


async def record_against_zed(pilot, opponent: str) -> str:
    """A Catan match, `opponent` beating the seat's *Zed, sent with ctrl+s; its external id."""
    screen = await open_form(pilot)
    await quick_fill(pilot, "Catan", [([opponent], 1, "9"), (["*Zed"], 2, "7")])
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert screen.last_answer[0].waiting  # the service is down: kept in the outbox
    return screen.last_answer[0].external_id


async def send_what_waited(pilot) -> None:
    pilot.app.outbox_runner.cancel_retry()
    pilot.app.resume_sending()
    await settle(pilot)
    assert pilot.app.outbox_counts.get("pending") == 0


async def test_two_seats_offline_make_one_zed_with_both_matches(seats):
    clock = SettableClock(EIGHT_PM - 2 * 3600)
    store = demo_store(clock=clock)
    server = UvicornThread(create_app(store, clock=clock))
    port = server.start()
    base_url = server.base_url
    try:
        # 18:00, service up: each seat opens the form once (reads the group's games and players: no Zed).
        for name in ("one", "two"):
            async with seats.app(name, base_url, clock).run_test(size=(100, 30)) as pilot:
                await open_form(pilot)
                assert not pilot.app.offline

        server.stop()

        # 20:00, service down: each seat makes *Zed and records a match with him.
        clock.now = EIGHT_PM
        sent = {}
        for name, opponent in (("one", "Ada"), ("two", "Ben")):
            async with seats.app(name, base_url, clock).run_test(size=(100, 30)) as pilot:
                await open_form(pilot)
                assert pilot.app.offline
                await make_ghost(pilot, "Zed")
                [ghost] = pilot.app.outbox_runner.ghosts()
                assert is_local_id(ghost.player.id)
                sent[name] = await record_against_zed(pilot, opponent)

        # 20:40, the service is back at the same address; seat one sends first, then seat two.
        clock.advance(40 * 60)
        server = UvicornThread(create_app(store, clock=clock), port=port)
        server.start()
        async with seats.app("one", base_url, clock).run_test(size=(100, 30)) as pilot:
            await send_what_waited(pilot)
        async with seats.app("two", base_url, clock).run_test(size=(100, 30)) as pilot:
            await send_what_waited(pilot)
            # what seat two says on its Outbox: the ghost's row tells whose Zed its match went to
            await pilot.press("escape", "o")
            await settle(pilot)
            outbox = pilot.app.screen
            assert isinstance(outbox, OutboxScreen)
            ghost = outbox.entries[0]
            assert outbox.reason_of(ghost) == (
                "*Zed was already made by another seat: their matches go to that one."
            )
    finally:
        if server.thread.is_alive():
            server.stop()

    async with RankingClient.in_process(
        create_app(store, clock=store.clock), key=DEMO_KEY, secret=DEMO_SECRET
    ) as client:
        zeds = [p for p in await client.players(refresh=True) if p.display_name == "*Zed"]
        matches = {m.external_id: m for m in await client.all_matches()}
    assert len(zeds) == 1  # one Zed
    for external_id in sent.values():  # with both matches, each once
        played = matches[external_id]
        assert zeds[0].id in [p.id for f in played.factions for p in f.players]
