"""The demo lives in the past of the service's clock: its last match the day before, nothing after "now".

The season is dated from the day the demo is built (by the service's clock), so a match recorded today is
the newest by date, and registration dates follow the plan rather than the wall clock, so a frozen-clock
demo is the same on every run of a given day.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rankterm.server.app import create_app
from rankterm.server.seed import build_day, demo_store, seed_demo
from rankterm.server.store import Store
from tests.support.clock import T0, SettableClock

from .conftest import Api, _client, duel

NOW = "2026-05-28 20:26:40"  # T0, the frozen clock of the tests
YESTERDAY = "2026-05-27"


async def _all_matches(api: Api) -> list[dict]:
    first = await api.ok("matches")
    pages = [first] + [await api.ok(f"matches/{n}") for n in range(2, first["totalPages"] + 1)]
    return [m for page in pages for m in page["data"]]


async def test_the_newest_demo_match_is_yesterday_and_nothing_is_later_than_now(demo_api: Api) -> None:
    assert (await demo_api.ok("status"))["serverTime"] == NOW
    matches = await _all_matches(demo_api)
    assert len(matches) == 300
    assert matches[0]["number"] == 300 and matches[0]["date"][:10] == YESTERDAY
    assert max(m["date"] for m in matches) == matches[0]["date"]
    assert all(m["date"] < f"{YESTERDAY} 23:59:60" for m in matches)
    # Registered after being played, before now: dated by the plan, not by the wall clock.
    assert all(m["date"] <= m["registrationDate"] <= NOW for m in matches)
    assert all(m["registrationDate"][:10] <= YESTERDAY for m in matches)
    for subset in await demo_api.ok("subsets"):
        assert subset["creationDate"][:10] <= YESTERDAY and subset["lastMatch"]["date"] < NOW


async def test_a_match_recorded_now_is_the_newest_by_date(demo_api: Api) -> None:
    players = [p["id"] for p in (await demo_api.ok("players"))["data"]]
    game = (await demo_api.ok("games"))[0]["id"]
    assert (await demo_api.add(duel(game, players[0], players[1])))["acceptedCount"] == 1
    matches = await _all_matches(demo_api)
    assert matches[0]["number"] == 301 and matches[0]["date"] == NOW
    assert all(m["date"] < NOW for m in matches[1:])


def test_the_demo_follows_the_day_it_is_built_and_is_the_same_all_that_day() -> None:
    later = SettableClock(T0 + 200 * 86_400)  # 2026-12-14, another day
    store = demo_store(clock=later)
    group = store.groups()[0][0]
    newest = store.matches_page(group, None, 1).data[0]
    expected = (datetime.fromtimestamp(later(), UTC) - timedelta(days=1)).date().isoformat()
    assert newest.date[:10] == expected == "2026-12-13"

    def season(at: float) -> list[tuple[str, str, str]]:
        with Store(":memory:", clock=SettableClock(at)) as built:
            seed_demo(built, matches=40)
            gid = built.groups()[0][0]
            pages = [built.matches_page(gid, None, n).data for n in (1, 2)]
            return [(m.external_id, m.date, m.registration_date) for page in pages for m in page]

    morning, evening = season(T0 - 20 * 3600), season(T0 + 3 * 3600)
    assert build_day(T0 - 20 * 3600) == build_day(T0 + 3 * 3600)
    assert morning == evening and len(morning) == 40
    assert morning[0][1][:10] == YESTERDAY


async def test_a_demo_built_just_after_midnight_registers_nothing_later_than_now() -> None:
    midnight = datetime(2026, 5, 28, tzinfo=UTC).timestamp()
    clock = SettableClock(midnight + 1)
    with Store(":memory:", clock=clock) as store:
        seed_demo(store)
        async for http in _client(create_app(store)):
            api = Api(http, "demo", "demo-secret")
            await api.login()
            matches = await _all_matches(api)
            now = (await api.ok("status"))["serverTime"]
            assert now == "2026-05-28 00:00:01"
            assert all(m["date"] <= m["registrationDate"] <= now for m in matches)
