"""Make screenshots/browser-seat.png: `rankterm web --demo` opened in Debian's headless Chromium, after `r`.

python scripts/web_screenshot.py
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parent.parent / "screenshots" / "browser-seat.png"
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
]


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "rankterm", "web", "--demo", "--port", str(port)])
    try:
        time.sleep(2)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=FLAGS)
            page = browser.new_page(viewport={"width": 1200, "height": 760})
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector(".xterm-screen")
            page.wait_for_timeout(4000)  # the demo group is built, the dashboard drawn
            page.locator(".xterm-screen").click()
            page.keyboard.press("r")
            page.wait_for_timeout(2500)
            page.screenshot(path=str(OUT))
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    print(OUT)


if __name__ == "__main__":
    main()
