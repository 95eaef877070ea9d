"""What a table's join code remembers stays bounded however many browsers or addresses a script brings: the
browsers let in (least recently seen forgotten first) and the addresses' wrong tries (those that no longer
count first, then the oldest)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from rankterm.seats.guard import WRONG_LIMIT, Admitted, JoinCodeGuard
from rankterm.seats.web_server import SESSION_COOKIE, SeatServer
from tests.support.web_browser import browser_on

CODE = "SEAT2345"


def test_the_least_recently_seen_browser_is_forgotten_first() -> None:
    admitted = Admitted(limit=3)
    first, second, third = admitted.admit(), admitted.admit(), admitted.admit()
    assert admitted.knows(first)  # seen again: now the most recent
    fourth = admitted.admit()
    assert [admitted.knows(t) for t in (first, second, third, fourth)] == [True, False, True, True]
    assert len(admitted.tokens) == 3
    assert not admitted.knows(None) and not admitted.knows("made-up")


def test_wrong_tries_of_many_addresses_are_bounded_those_that_no_longer_count_forgotten_first() -> None:
    now = [0.0]
    guard = JoinCodeGuard(CODE, clock=lambda: now[0], max_peers=50)
    for _ in range(WRONG_LIMIT):
        guard.try_code("10.0.0.1", "NOPE")
    now[0] = 700.0  # the first address's lockout is over: its tries no longer count
    for _ in range(WRONG_LIMIT):
        guard.try_code("10.0.0.2", "NOPE")
    for n in range(49):  # one address too many: the one whose tries no longer count goes
        guard.try_code(f"2001:db8::{n:x}", "NOPE")
    assert "10.0.0.1" not in guard.wrong and len(guard.wrong) == 50
    assert guard.locked("10.0.0.2") and not guard.try_code("10.0.0.2", CODE)
    for n in range(49, 2_000):
        guard.try_code(f"2001:db8::{n:x}", "NOPE")
    assert len(guard.wrong) <= 50


async def test_a_browser_forgotten_by_the_table_is_asked_for_the_code_again() -> None:
    def remembering_two(server: SeatServer) -> None:
        server.sessions = Admitted(limit=2)

    others: list[TestClient] = []
    async with browser_on(host="0.0.0.0", join_code=CODE, set_up=remembering_two) as first:
        try:
            assert (await first.post("/join", data={"code": CODE}, allow_redirects=False)).status == 303
            assert (await first.get("/", allow_redirects=False)).status == 200
            for _ in range(2):
                other = TestClient(first.server)
                others.append(other)
                answer = await other.post("/join", data={"code": CODE}, allow_redirects=False)
                assert answer.status == 303 and SESSION_COOKIE in answer.cookies
            again = await first.get("/", allow_redirects=False)
            assert again.status == 401 and "join code" in await again.text()
        finally:
            for other in others:
                await other.session.close()
