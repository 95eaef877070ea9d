"""All pages of a list when the service pushes back: 429s and 5xx the embedded service cannot be made to give.

On the wire-shaped fake (httpx.MockTransport): a rate-limiting 429 or a 503 halves the window, the refused
page is retried under the client's retry rules and the list still comes back whole and in order; a 429 with
a quota code stops the fetch at once.
"""

from __future__ import annotations

import httpx
import pytest

from rankterm.mirror import Group
from rankterm.wire import errors as er


def _once(status: int, code: str | None = None, headers: dict[str, str] | None = None):
    """A route that refuses the first time, then lets the fake answer as usual (None)."""
    state = {"refused": 0}

    def route(request: httpx.Request) -> httpx.Response | None:
        if state["refused"]:
            return None
        state["refused"] += 1
        body = {"errors": [{"code": code, "message": "slow down"}]} if code else {"errors": []}
        return httpx.Response(status, json=body, headers=headers or {})

    return route


def _install(fake, page: int, route) -> None:
    """Route one page through `route`, falling back to the fake's own answer when it returns None."""
    key = f"GET players/{page}"
    fallback = fake.routes.pop(key, None)

    def handler(request: httpx.Request) -> httpx.Response:
        answer = route(request)
        if answer is not None:
            return answer
        fake.routes.pop(key)
        try:
            return _sync_default(fake, request)
        finally:
            fake.routes[key] = handler if fallback is None else fallback

    fake.routes[key] = handler


def _sync_default(fake, request: httpx.Request) -> httpx.Response:
    page = int(request.url.path.rsplit("/", 1)[1])
    rows = [
        {"id": f"p{i:010d}", "ghost": 0, "username": f"u{i}", "displayName": f"Player {i}", "icon": ""}
        for i in range((page - 1) * 25, min(page * 25, fake.players_total))
    ]
    pages = -(-fake.players_total // 25)
    body = {"page": page, "totalPages": pages, "rowsForPage": 25, "totalPlayers": fake.players_total}
    return httpx.Response(200, json={"success": {**body, "data": rows}})


@pytest.mark.parametrize(
    ("status", "code", "headers"),
    [(429, None, {"Retry-After": "0"}), (503, None, None), (500, "R001", None)],
    ids=["rate-limited-429", "503", "500-R001"],
)
async def test_pressure_halves_the_window_and_the_list_still_comes_back_whole(
    fake, group, status, code, headers
):
    group = Group.of(group)  # a client: read through its group
    fake.players_total = 25 * 40
    fake.latency = 0.002
    _install(fake, 12, _once(status, code, headers))
    players = await group.players(refresh=True)
    assert [p.id for p in players] == [f"p{i:010d}" for i in range(1000)]
    window = group.client.last_window
    assert window is not None and window.halvings == 1
    drops = [(a, b) for a, b in zip(window.sizes, window.sizes[1:], strict=False) if b < a]
    assert len(drops) == 1 and drops[0][1] == drops[0][0] // 2  # halved once, at the refusal
    assert fake.count("players/12") == 2  # refused once, retried once
    assert all(fake.count(f"players/{n}") == 1 for n in range(1, 41) if n != 12)


async def test_a_quota_refusal_stops_the_fetch_and_is_not_retried(fake, group):
    group = Group.of(group)  # a client: read through its group
    fake.players_total = 25 * 40
    fake.latency = 0.002
    group.client.max_concurrency = 2
    sent_after_refusal: list[str] = []
    refused = {"seen": False}

    async def on_request(request: httpx.Request) -> None:
        if refused["seen"]:
            sent_after_refusal.append(request.url.path)

    async def on_response(response: httpx.Response) -> None:
        refused["seen"] = refused["seen"] or response.status_code == 429

    group.client.http.event_hooks = {"request": [on_request], "response": [on_response]}

    def players(request: httpx.Request) -> httpx.Response:
        page = int(request.url.path.rsplit("/", 1)[1])
        if page == 6:
            return httpx.Response(429, json={"errors": [{"code": "Q002", "message": "Quota reached"}]})
        return _sync_default(fake, request)

    for n in range(1, 41):
        fake.routes[f"GET players/{n}"] = players
    with pytest.raises(er.QuotaError) as info:
        await group.players(refresh=True)
    assert info.value.code == "Q002"
    assert fake.count("players/6") == 1  # not retried
    assert sent_after_refusal == []  # nothing sent once the refusal came back
    assert group.client.calls_left() == 0  # the client now knows the hourly meter is full
    calls = group.client.calls
    with pytest.raises(er.QuotaError):
        await group.players(refresh=True)
    assert group.client.calls == calls  # refused without a call


async def test_a_long_retry_after_is_not_waited_for(fake, group):
    fake.routes["GET quota"] = lambda r: httpx.Response(
        429, json={"errors": []}, headers={"Retry-After": "3600"}
    )
    with pytest.raises(er.QuotaError):
        await group.client.quota()
    assert fake.count("quota") == 1
