"""The page `rankterm web` serves a browser loads nothing from the internet: every address it names is this
server's, and the font textual-serve's own page asks Google for is served from textual-serve's copy."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient

from tests.support.web_browser import browser_on


@pytest.fixture
async def browser() -> AsyncIterator[TestClient]:
    async with browser_on() as client:
        yield client


async def test_the_page_names_no_address_but_this_servers(browser: TestClient) -> None:
    answer = await browser.get("/")
    page = await answer.text()
    assert answer.status == 200
    here = f"http://{answer.url.host}:{answer.url.port}/"
    named = re.findall(r"""(?:href|src)\s*=\s*["']([^"']+)|url\(["']?([^"')]+)""", page)
    addresses = [a or b for a, b in named]
    assert addresses and all(a.startswith(here) for a in addresses), addresses
    assert "googleapis" not in page


async def test_the_font_the_page_names_is_served_here(browser: TestClient) -> None:
    page = await (await browser.get("/")).text()
    [font] = re.findall(r"url\(\"([^\"]+\.ttf)\"\)", page)
    answer = await browser.get("/" + font.split("/", 3)[3])
    assert answer.status == 200 and len(await answer.read()) > 10_000
