"""Keys typed while a list's table shows its loading indicator (Textual then gives them to the screen, nothing
taking them) land on the table once its rows are there: the list screens share one `on_key`
(`text_table.list_screen_key`). The app's held keys (`AppKeys`) do not make it needless: they cover a screen
placing its focus, not a table reading its rows again (this test fails without the screen's `on_key`)."""

from __future__ import annotations

import asyncio

import httpx

from rankterm.api.client import RankingClient
from rankterm.tui.widgets.text_table import TextTable

from .conftest import DEMO_URL, frozen_clock
from .pilot import settle, type_at


class LateService(httpx.AsyncBaseTransport):
    """The embedded service answering every request `delay` seconds late."""

    def __init__(self, inner: httpx.AsyncBaseTransport, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(self.delay)
        return await self.inner.handle_async_request(request)


def late_client(demo_service) -> tuple[RankingClient, LateService]:
    """A client on the demo service, and its transport (set `delay` to make the service late)."""
    transport = LateService(httpx.ASGITransport(app=demo_service.asgi), 0.0)
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    client = RankingClient(
        DEMO_URL, key=demo_service.key, secret=demo_service.secret, http=http, clock=frozen_clock, retries=0
    )
    return client, transport


async def test_cursor_keys_typed_while_the_players_are_read_again_reach_the_rows(make_app, demo_service):
    async with demo_service.client() as reader:
        meant = (await reader.players_page(1)).data[2].id
    client, transport = late_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.switch_mode("players")
        await settle(pilot)
        table = app.screen.query_one("#players-table", TextTable)
        transport.delay = 0.3  # from now on the service answers late
        await type_at(pilot, ["f5"], 0.04)
        assert table.loading  # the premise: the keys typed now reach the screen, not the table
        await type_at(pilot, ["down", "down", "enter"], 0.04)
        await settle(pilot)
        assert getattr(app.screen, "player", None) is not None, type(app.screen).__name__
        assert app.screen.player.id == meant
