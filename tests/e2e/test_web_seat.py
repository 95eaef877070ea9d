"""The browser seat: `rankterm web` in a real process, opened by a real headless Chromium (Playwright).

The page draws the terminal with xterm.js on a canvas, so what the app drew is read where the browser reads
it: every websocket message the page receives is also kept (an init script wraps `WebSocket`), decoded and
stripped of escape sequences, exactly the bytes xterm.js paints. The test checks that the page really paints
(the terminal element has a size, and its screenshot soon weighs several times an empty page's), that Home arrives, and
that a key typed into the page changes the screen. Debian's chromium is installed by the tests' set-up when missing.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator

import pytest

from tests.support.terminal import ESCAPES
from tests.support.web_guest import CHROMIUM_FLAGS, KEEP_FRAMES
from tests.support.web_host import web

pytestmark = pytest.mark.needs("chromium")  # installed before the run when missing (tests/needs.py)
CODE = "SEAT2345"


@pytest.fixture(scope="module")
def web_seat() -> Iterator[str]:
    """`rankterm web --demo` on a free port with a join code, once it listens; yields its address. One for the
    module: its tests each open their own seat or none."""
    with web(["--demo", "--join-code", CODE], dict(os.environ)) as running:
        yield f"http://127.0.0.1:{running.port}"


def drawn_text(page) -> str:
    return ESCAPES.sub("", "".join(page.evaluate("window.__seat")))


def wait_for_text(page, needle: str, timeout: float = 30.0, start: int = 0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = drawn_text(page)[start:]
        if needle in text:
            return text
        page.wait_for_timeout(50)
    raise AssertionError(f"{needle!r} never reached the browser; it drew: {text[-600:]!r}")


def test_a_browser_seat_draws_home_and_answers_a_key(web_seat: str) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "Debian's chromium is needed for the browser seat test (tests/needs.py installs it)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 700})
            flat = len(page.screenshot())  # an empty page: what "nothing painted" weighs as a PNG
            page.add_init_script(KEEP_FRAMES)
            asked: list[str] = []
            page.on("request", lambda request: asked.append(request.url))

            refused = page.goto(web_seat + "/")
            assert refused is not None and refused.status == 401  # the join page, nothing of the app
            assert page.locator("input[name=code]").count() == 1
            page.fill("input[name=code]", CODE.lower())  # typed as people type it
            page.click("button[type=submit]")

            text = wait_for_text(page, "Home")
            wait_for_text(page, "— table demo, not saved")  # the header: one demo for the table
            box = page.locator(".xterm-screen").bounding_box()
            assert box is not None and box["width"] > 400 and box["height"] > 200
            painted = 0
            for _ in range(20):  # the terminal fades in (0.3 s) and paints on the next frames
                painted = len(page.screenshot())
                if painted > 3 * flat:
                    break
                page.wait_for_timeout(250)
            assert painted > 3 * flat, f"the page looks empty ({painted} bytes of PNG, {flat} when blank)"

            before = len(drawn_text(page))
            page.locator(".xterm-screen").click()
            page.keyboard.press("g")
            after = wait_for_text(page, "the catalogue, 2 letters or more", start=before)
            assert "Games" in after
            assert "Home" in text
            assert asked and all(url.startswith(web_seat + "/") for url in asked), (
                asked
            )  # nothing from the internet
        finally:
            browser.close()


def test_a_websocket_from_another_site_is_refused(web_seat: str) -> None:
    import httpx

    with httpx.Client() as http:
        joined = http.get(web_seat + f"/?code={CODE}", follow_redirects=True)
        assert joined.status_code == 200 and "textual-terminal" in joined.text
        upgrade = {
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        }
        elsewhere = http.get(web_seat + "/ws", headers={**upgrade, "Origin": "http://evil.example"})
        assert elsewhere.status_code == 403
        wrong = httpx.post(web_seat + "/join", data={"code": "NOPE"})
        assert wrong.status_code == 403 and "not the code" in wrong.text
        stranger = httpx.get(web_seat + "/ws", headers=upgrade)
        assert stranger.status_code == 403  # no cookie, no code: nothing but the join page
