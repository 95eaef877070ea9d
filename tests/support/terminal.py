"""The real `rankterm` process on a pseudo-terminal, for the tests and benchmarks that count what a seat writes.

    seat = PtySeat(["--profile", "room"], room_env(tmp, url, key, secret))
    seat.settle()                  # read until it has been quiet for a while
    seat.press(b"r")
    seat.wait_for("after match 301", 5.0)
    idle = seat.read(10.0)         # the bytes it wrote meanwhile (0 while nothing changes)
    seat.close()

Textual's headless driver writes nothing, so a terminal's real bytes can only be counted on a pty.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rankterm.seats import set_size

ESCAPES = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
"""Escape sequences (CSI, OSC and two-byte ones): what `seen` leaves out of the text a seat showed."""
CUT_CSI = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*)?\Z")
"""The start of a control sequence, or an escape alone, at the end of a text."""
CUT_ESCAPE = 4096
"""An escape sequence still open this close to the end of what was read is taken as cut by the read."""
STEP = 0.05
"""How long `wait_for` and `settle` read at a time before they look again at what was shown."""


CHECKOUT = Path(__file__).resolve().parents[2]
"""Where this rankterm is: a child's PYTHONPATH, so that `python -m rankterm` runs this code."""


def open_escape(text: str) -> int:
    """Where an escape sequence that `text` ends before its end starts (-1: none does)."""
    osc = text.rfind("\x1b]")
    if osc != -1 and "\x07" not in text[osc:] and "\x1b\\" not in text[osc:]:
        return osc
    cut = CUT_CSI.search(text, max(0, len(text) - CUT_ESCAPE))
    return cut.start() if cut else -1


def home_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a `rankterm` process whose config, cache and data are under `home`: of this
    machine's, only the path, home, language and time zone; a 256-colour terminal; this rankterm (`CHECKOUT`,
    unless `extra` names another PYTHONPATH); then `extra`."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TZ")}
    env.update(
        TERM="xterm-256color",
        PYTHONPATH=str(CHECKOUT),
        RANKTERM_CONFIG=str(home / "config.toml"),
        RANKTERM_CACHE_DIR=str(home / "cache"),
        RANKTERM_DATA_DIR=str(home / "data"),
    )
    env.update(extra)
    return env


def child_says(script: str, home: Path, timeout: float = 180.0) -> Any:
    """Run `script` (`python -c`) in a fresh process whose home and working folder is `home` (`home_env`):
    the JSON of the last line it printed. Fails with the end of its errors when the process fails."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=home_env(home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def room_env(tmp: Path, url: str, key: str, secret: str, **extra: str) -> dict[str, str]:
    """An environment whose config holds one profile, "room", on `url`; its cache and data under `tmp`."""
    tmp.mkdir(parents=True, exist_ok=True)
    config = tmp / "config.toml"
    config.write_text(
        f'default_profile = "room"\n\n[profiles.room]\nbase_url = "{url}"\nkey = "{key}"\nsecret = "{secret}"\n',
        encoding="utf-8",
    )
    return home_env(tmp, **extra)


class ShownText:
    """The text a terminal's bytes show, read piece by piece (escape sequences left out): a character or an
    escape sequence that a read cut in two is kept until the piece that brings its end, so that the text around
    it stays in one piece."""

    def __init__(self) -> None:
        self.text = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._tail = ""

    def add(self, out: bytes) -> None:
        text = self._tail + self._decoder.decode(out)
        cut = open_escape(text)
        if cut != -1 and len(text) - cut < CUT_ESCAPE:
            text, self._tail = text[:cut], text[cut:]
        else:
            self._tail = ""
        self.text += ESCAPES.sub("", text)


class PtySeat:
    """`python -m rankterm *args` on a pseudo-terminal of `size` (columns, rows), with `env` only."""

    def __init__(self, args: list[str], env: dict[str, str], size: tuple[int, int] = (80, 24)) -> None:
        self._spawn([sys.executable, "-m", "rankterm", *args], env, size)

    def _spawn(self, argv: Sequence[str], env: Mapping[str, str], size: tuple[int, int]) -> None:
        """Run `argv` (its program looked for on the PATH of `env`) on a new pty of `size`, with `env` only."""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            os.environ.clear()
            os.environ.update(env)
            os.execvp(argv[0], list(argv))
        set_size(self.fd, *size)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGWINCH)
        self.shown = ShownText()

    def read(self, seconds: float) -> bytes:
        """The bytes the seat wrote during `seconds`."""
        out = bytearray()
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        self.shown.add(bytes(out))
        return bytes(out)

    @property
    def seen(self) -> str:
        """Everything shown so far, as text (escape sequences left out)."""
        return self.shown.text

    def settle(self, quiet: float = 0.5, limit: float = 10.0) -> bytes:
        """Read until nothing came for `quiet` seconds since the last byte (at most `limit` seconds); what came
        meanwhile."""
        out = bytearray()
        end = time.monotonic() + limit
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], min(quiet, left))
            if not ready:
                break
            chunk = self.read(min(STEP, left))  # what came, with what follows at once
            if not chunk:
                break  # the seat ended
            out += chunk
        return bytes(out)

    def wait_for(self, text: str, limit: float) -> bool:
        """Read until `text` has been shown, at most `limit` seconds."""
        end = time.monotonic() + limit
        while text not in self.seen and (left := end - time.monotonic()) > 0:
            self.read(min(STEP, left))
        return text in self.seen

    def press(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def close(self) -> None:
        """ctrl+q, then make sure the process is gone."""
        with contextlib.suppress(OSError):
            self.press(b"\x11")
        with contextlib.suppress(OSError):
            self.settle(quiet=0.3, limit=5)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
