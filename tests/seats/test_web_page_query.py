"""What a browser with the code may put in the page's address of `rankterm web`: a font size that is no
whole number in ASCII digits (`²`, `١٦`, twenty digits) gives the page at its usual size, never a 500 with a
traceback on the host's terminal; one out of reason is brought within 6..72."""

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


@pytest.mark.parametrize(
    ("given", "size"),
    [
        ("²", "16"),
        ("١٦", "16"),
        ("99999999999999999999", "16"),
        ("-3", "16"),
        ("20", "20"),
        ("1", "6"),
        ("900", "72"),
    ],
)
async def test_the_font_size_in_the_address_never_fails_the_page(
    browser: TestClient, given: str, size: str
) -> None:
    answer = await browser.get("/", params={"fontsize": given})
    assert answer.status == 200
    assert re.findall(r'data-font-size="([^"]*)"', await answer.text()) == [size]
