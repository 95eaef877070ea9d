"""All pages of a list from the embedded service: whole, in order, one call a page, within the quota.

In-process (httpx on ASGITransport) and once over a real socket through the delay proxy. The store, the
app and the client read one settable clock, so the quota's hour is the test's.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.quota import QuotaLimits
from rankterm.server.store import Store
from rankterm.wire import errors as er
from tests.support.clock import SettableClock
from tests.support.delay_proxy import DelayProxy
from tests.support.live import UvicornThread

KEY, SECRET = "paging-key", "paging-secret"
URL = "http://in-process.rankterm/"


class Wire:
    """What went over the wire (httpx event hooks): the paths asked, in order, and what came back."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.sent_after_a_429: list[str] = []
        self.statuses: list[int] = []

    async def request(self, request: httpx.Request) -> None:
        path = request.url.path.strip("/")
        self.sent.append(path)
        if 429 in self.statuses:
            self.sent_after_a_429.append(path)

    async def response(self, response: httpx.Response) -> None:
        self.statuses.append(response.status_code)

    def pages(self) -> list[str]:
        return [p for p in self.sent if p.startswith("players")]


def make_store(tmp_path: Path, players: int, clock: SettableClock) -> tuple[Store, int]:
    store = Store(tmp_path / "service.db", clock=clock)
    group = store.create_group("Paging")
    store.create_client(group, key=KEY, secret=SECRET)
    for i in range(players):
        store.create_player(group, f"Player {i:04d}")
    return store, group


def in_process(store: Store, clock: SettableClock, wire: Wire, limits: QuotaLimits | None = None, **kw):
    app = create_app(store, clock=clock, limits=limits)
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url=URL,
        event_hooks={"request": [wire.request], "response": [wire.response]},
    )
    return RankingClient(URL, key=KEY, secret=SECRET, http=http, clock=clock, **kw), http


def expected_ids(store: Store, group: int) -> list[str]:
    first = store.players_page(group, 1)
    return [p.id for n in range(1, first.total_pages + 1) for p in store.players_page(group, n).data]


async def test_all_pages_whole_in_order_one_call_a_page(tmp_path):
    clock = SettableClock()
    store, group = make_store(tmp_path, 25 * 30 + 7, clock)
    wire = Wire()
    client, http = in_process(store, clock, wire)
    players = await Group(client).players(refresh=True)
    assert [p.id for p in players] == expected_ids(store, group)
    assert sorted(wire.pages()) == sorted(f"players/{n}" for n in range(1, 32))  # each page once, no more
    assert wire.pages()[0] == "players/1"
    assert client.last_window is not None and client.last_window.most_in_flight <= client.max_concurrency
    await http.aclose()
    store.close()


async def test_over_a_real_socket_through_the_delay_proxy(tmp_path):
    clock = SettableClock()
    store, group = make_store(tmp_path, 25 * 20, clock)
    expected = expected_ids(store, group)
    server = UvicornThread(create_app(store, clock=clock))
    server.start()
    try:
        async with DelayProxy(server.port, delay=0.005) as proxy:
            wire = Wire()
            http = httpx.AsyncClient(event_hooks={"request": [wire.request], "response": [wire.response]})
            client = RankingClient(
                f"http://127.0.0.1:{proxy.port}/", key=KEY, secret=SECRET, http=http, clock=clock
            )
            players = await Group(client).players(refresh=True)
            await http.aclose()
    finally:
        server.stop()
        store.close()
    assert [p.id for p in players] == expected
    assert len(wire.pages()) == 20 and set(wire.statuses) == {200}
    window = client.last_window
    assert window is not None and window.most_in_flight <= client.max_concurrency
    assert proxy.connections <= 1 + window.most_in_flight  # the token's connection, then one per place


async def test_never_past_the_quota_the_first_refusal_stops_it_and_the_hour_turning_lets_it_go(tmp_path):
    clock = SettableClock()
    store, group = make_store(tmp_path, 25 * 10, clock)
    wire = Wire()
    limits = QuotaLimits(calls_per_hour=12)
    client, http = in_process(store, clock, wire, limits, max_concurrency=2)
    assert len(await Group(client).players(refresh=True)) == 250  # 10 calls of 12
    wire.sent.clear()
    with pytest.raises(er.QuotaError) as info:
        await Group(client).players(refresh=True)
    assert info.value.code == "Q002"  # calls per hour
    assert wire.sent_after_a_429 == []  # nothing sent once the refusal came back
    assert len(wire.pages()) <= 2 + client.max_concurrency  # the two it had, and those in flight
    assert store.quota(1, limits).calls_per_hour == "100%"  # the service counted 12, never more

    wire.sent.clear()
    with pytest.raises(er.QuotaError):
        await Group(client).players(refresh=True)
    assert wire.sent == []  # known full for this hour: refused without a call

    clock.advance(3600)
    wire.statuses.clear()
    assert [p.id for p in await Group(client).players(refresh=True)] == expected_ids(store, group)
    assert len(wire.pages()) == 10
    await http.aclose()
    store.close()


async def test_a_quota_read_at_100_percent_refuses_the_next_list_unsent(tmp_path):
    clock = SettableClock()
    store, _ = make_store(tmp_path, 25 * 3, clock)
    wire = Wire()
    client, http = in_process(store, clock, wire, QuotaLimits(calls_per_hour=4))
    await Group(client).players(refresh=True)  # 3 calls
    assert (await client.quota()).calls_per_hour == "100%"  # the 4th
    wire.sent.clear()
    with pytest.raises(er.QuotaError) as info:
        await Group(client).players(refresh=True)
    assert "callsPerHour" in str(info.value) and wire.sent == []
    await http.aclose()
    store.close()


async def test_a_known_budget_refuses_a_list_it_cannot_pay_for_after_page_one(tmp_path):
    clock = SettableClock()
    store, _ = make_store(tmp_path, 25 * 10, clock)
    wire = Wire()
    client, http = in_process(store, clock, wire)
    client.call_budget = 5
    with pytest.raises(er.QuotaError) as info:
        await Group(client).players(refresh=True)
    assert "needs 9 more calls" in str(info.value) and "allows 4" in str(info.value)
    assert wire.pages() == ["players/1"]  # page 1 told how many; nothing more was sent
    client.call_budget = 10
    assert len(await Group(client).players(refresh=True)) == 250 and client.call_budget == 0
    await http.aclose()
    store.close()
