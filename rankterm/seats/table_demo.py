"""One demo group for a whole table: `rankterm host --demo` and `rankterm web --demo` start `rankterm serve --demo`
on 127.0.0.1 (any free port, a database in a temporary folder) and give every seat that one service, so a match
recorded on one seat is on every other. The service is this process's child: it ends when the host stops, and
with the host however it ends (`lifeline.py`); its folder is removed when the host stops, or by the next host
when this one was killed (`paths.process_folder`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

from rankterm.paths import process_folder
from rankterm.wire.errors import RanktermError

FOLDER_PREFIX = "rankterm-table-demo-"
START_SECONDS = 60.0
"""How long the demo service may take to seed and listen before the host gives up."""
SERVING = re.compile(r"rankterm service on (http://\S+/)")


@contextmanager
def table_demo() -> Iterator[tuple[str, str]]:
    """The demo group served for the `with` block: its base URL and the folder of its database."""
    from rankterm.seats.lifeline import die_with_parent

    folder = process_folder(FOLDER_PREFIX)
    serve = [sys.executable, "-m", "rankterm", "serve", "--demo", "--db", os.path.join(folder, "demo.db")]
    process = subprocess.Popen(
        [*serve, "--host", "127.0.0.1", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=partial(die_with_parent, os.getpid()),
    )
    try:
        yield _served_url(process), folder
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def _served_url(process: subprocess.Popen[str]) -> str:
    """Read what the service says until its address (then keep its output drained, in a daemon thread)."""
    assert process.stdout is not None
    stdout = process.stdout
    guard = threading.Timer(START_SECONDS, process.kill)  # a service that never starts fails the host
    guard.start()
    try:
        for line in stdout:
            if found := SERVING.search(line):
                threading.Thread(target=stdout.read, name="rankterm-table-demo", daemon=True).start()
                return found.group(1)
    finally:
        guard.cancel()
    raise RanktermError("The demo group's service did not start.")
