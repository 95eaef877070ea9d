"""The first screen's data comes before the app's own reads ahead: the games and players lists the match form
will want are read once Home has read and drawn what it shows (its standings, the last match, tonight), not
beside it, where on a shared core they would only push Home's data back (benchmarks/bench_startup.py)."""

from __future__ import annotations

import httpx

from rankterm.client.client import RankingClient
from tests.support.transports import CountingTransport

from .conftest import DEMO_URL, frozen_clock
from .pilot import settle


class HomeWatch(CountingTransport):
    """Notes, at each request for a list read ahead, whether Home had drawn tonight's story by then."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        super().__init__(inner)
        self.app = None
        self.home_done: dict[str, bool] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.strip("/")
        if path in ("games", "players/1") and self.app is not None:
            self.home_done[path] = bool(getattr(self.app.screen, "tonight", None))
        return await super().handle_async_request(request)


async def test_the_lists_are_read_ahead_only_after_home_has_its_data(make_app, demo_service):
    transport = HomeWatch(httpx.ASGITransport(app=demo_service.asgi))
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    client = RankingClient(
        DEMO_URL, key=demo_service.key, secret=demo_service.secret, http=http, clock=frozen_clock, retries=0
    )
    app = make_app(client=None, demo_factory=lambda: client)  # as `rankterm demo`: Home first, then the group
    transport.app = app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen" and app.screen.view is not None
        group = app.session.group
        assert group.synced_at("games") is not None and group.synced_at("players") is not None  # read ahead
        assert transport.home_done == {"games": True, "players/1": True}  # ... once Home had all it shows


async def test_a_start_with_a_service_does_not_load_home_for_the_group_version_too(make_app, monkeypatch):
    """The app's reactives are set before Home watches them: Textual's first setting of them would call
    Home's watcher of `group_version` as if the group had changed, one more load of everything it shows."""
    from rankterm.tui.screens.home import HomeScreen

    calls: list[str] = []
    real = HomeScreen.group_changed

    def counted(self: HomeScreen) -> None:
        calls.append("group changed")
        real(self)

    monkeypatch.setattr(HomeScreen, "group_changed", counted)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen" and app.screen.view is not None
        assert calls == []  # nothing changed the group: the loads of Home's first showing are its own
        app.group_changed()  # a real change still reaches it
        await settle(pilot)
        assert calls == ["group changed"]
