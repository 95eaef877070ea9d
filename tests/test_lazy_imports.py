"""The app on a remote service never loads the embedded service's packages, nor other heavy ones it does not use.

Each package costs memory for as long as the process lives (<= 60 MB for the app on a remote
service, benchmarks/bench_memory.py). A module-level import in the wrong place brings one back silently, so a
fresh process runs the app as `rankterm --profile room` does, opens rankings, players and matches, and lists
what it imported.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NEVER_ON_A_REMOTE = (
    "rankterm.server",  # the embedded service, and with it
    "starlette",
    "uvicorn",
    "openskill",
    "psycopg",
    "jwt",  # the service signs tokens; the app only reads a token's expiry, when it has one
    "textual_plotext",  # charts: only the stats pages
    "plotext",
    "click",  # httpx's own command line (rankterm.cli marks httpx._main absent)
    "httpx._main",
    "rich._emoji_codes",  # 3,600 emoji names: loaded when text is read as markup (ours never is)
    "textual.widgets._text_area",  # nothing on these screens is a TextArea
    "textual.document",
)

CHILD = """
import asyncio, json, sys
from rankterm.cli import build_app

app = build_app(demo=False, profile="room")

async def drive(pilot):
    for key in "rpm":  # rankings, players, matches; each reads, fails (nobody listens) and says so
        await pilot.press(key)
        await pilot.pause(0.1)
    await app.workers.wait_for_complete()
    names = [type(s).__name__ for s in app.screen_stack]
    print(json.dumps({"modules": sorted(m for m, v in sys.modules.items() if v is not None), "screen": names[-1]}))
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=drive)
"""


def _closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on (the service is away: the app reads, fails, and says so)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(code: str, tmp: Path) -> dict:
    config = tmp / "config.toml"
    config.write_text(
        f'default_profile = "room"\n\n[profiles.room]\nbase_url = "http://127.0.0.1:{_closed_port()}/"\n'
        'key = "demo"\nsecret = "demo-secret"\n',
        encoding="utf-8",
    )
    config.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
    env.update(
        PYTHONPATH=str(ROOT),
        RANKTERM_CONFIG=str(config),
        RANKTERM_CACHE_DIR=str(tmp / "cache"),
        RANKTERM_DATA_DIR=str(tmp / "data"),
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted({n for n in names for m in modules if m == n or m.startswith(n + ".")})


def test_the_app_on_a_remote_service_loads_none_of_the_service(tmp_path):
    seen = _run(CHILD, tmp_path)
    assert seen["screen"] == "MatchesScreen"  # the three screens were opened
    assert "rankterm.client.client" in seen["modules"]  # the check below can see what was imported
    assert _loaded(seen["modules"], NEVER_ON_A_REMOTE) == []


def test_the_command_line_alone_loads_neither_textual_nor_the_service(tmp_path):
    seen = _run(
        'import json, sys, rankterm.cli as c; c.parser(); print(json.dumps({"modules": [m for m, v in sys.modules.items() if v]}))',
        tmp_path,
    )
    heavy = ("textual", "rich", "httpx", "pydantic", *NEVER_ON_A_REMOTE)
    assert _loaded(seen["modules"], heavy) == []
