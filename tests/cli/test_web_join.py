"""Who `rankterm web` lets in by its join code, served in-process (aiohttp's test server, no browser): the code as
people type it, and an address that gave five wrong codes refused even the right one, by the form and by the
link's `?code=` alike (the rule `rankterm host` keeps too: `rankterm.seats.guard`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient

from rankterm.seats.guard import WRONG_LIMIT
from rankterm.seats.web_server import SESSION_COOKIE
from tests.support.web_browser import browser_on

CODE = "SEAT2345"


@pytest.fixture
async def browser() -> AsyncIterator[TestClient]:
    async with browser_on(host="0.0.0.0", join_code=CODE) as client:
        yield client


async def test_the_code_as_people_type_it_gives_a_session_cookie(browser: TestClient) -> None:
    answer = await browser.post("/join", data={"code": f" {CODE.lower()} "}, allow_redirects=False)
    assert answer.status == 303 and SESSION_COOKIE in answer.cookies


async def test_an_address_that_gave_too_many_wrong_codes_is_refused_even_the_right_one(
    browser: TestClient,
) -> None:
    for _ in range(WRONG_LIMIT - 1):
        wrong = await browser.post("/join", data={"code": "NOPE"})
        assert wrong.status == 403 and "not the code" in await wrong.text()
    assert (await browser.get(f"/?code={CODE}", allow_redirects=False)).status == 303  # not yet
    browser.session.cookie_jar.clear()
    assert (await browser.get("/?code=NOPE")).status == 403
    for refused in (
        await browser.post("/join", data={"code": CODE}),
        await browser.get(f"/?code={CODE}", allow_redirects=False),
    ):
        assert refused.status == 429 and "Too many wrong codes" in await refused.text()
        assert SESSION_COOKIE not in refused.cookies
