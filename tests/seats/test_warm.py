"""The warm parent's parts on their own: a request that is not one is refused with a sentence; a process shows
the command line and environment written over its padding in /proc, as ps reads them; and a seat whose warm
parent cannot be had is started by fork+exec, as before. (A whole host with its warm parent and OpenSSH's
client: tests/e2e/test_warm_seats.py.)"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankterm.seats.lifeline import PR_SET_CHILD_SUBREAPER
from rankterm.seats.pty_seat import Seat
from rankterm.seats.warm import parse
from rankterm.seats.warm_host import WarmParent, WarmUnavailable

GOOD = {"args": ["--desk-fd", "7"], "argv": ["rankterm"], "env": {"A": "b"}, "host": 4242, "numbers": [7]}


def request(**change: object) -> bytes:
    return json.dumps({**GOOD, **change}).encode()


def test_a_request_names_its_seat_and_the_descriptors_it_holds() -> None:
    parsed = parse(request(), [10, 11])
    assert parsed.args == ["--desk-fd", "7"] and parsed.fds == [10, 11] and parsed.numbers == [7]
    assert parsed.streams == 1  # a pty, unless said otherwise


def test_a_browser_seats_request_names_three_streams_before_the_descriptors_it_holds() -> None:
    parsed = parse(request(streams=3), [10, 11, 12, 13])
    assert parsed.streams == 3 and parsed.fds == [10, 11, 12, 13] and parsed.numbers == [7]


@pytest.mark.parametrize(
    ("data", "fds", "says"),
    [
        (b"[1]", [10], "a request is a JSON object"),
        (request(args="seat"), [10, 11], "args must be strings"),
        (request(env={"A": 1}), [10, 11], "env must map names to strings"),
        (request(numbers=[1]), [10, 11], "numbers must be descriptors above 2"),
        (request(host=0), [10, 11], "host must be a pid"),
        (request(), [10], "2 descriptors expected, 1 received"),
        (request(streams=3), [10, 11], "4 descriptors expected, 2 received"),
        (request(streams=2), [10, 11, 12], "streams must be 1"),
        (request(streams=True), [10, 11], "streams must be 1"),
    ],
)
def test_a_request_that_is_not_one_is_refused_with_a_sentence(data: bytes, fds: list[int], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse(data, fds)


SHOW = """
import sys, time
from rankterm.seats.warm import show_in_proc
show_in_proc(["python", "-m", "rankterm", "seat", "--desk-fd", "9", "--board"], {"TERM": "screen", "B": "c"})
print("shown", flush=True)
time.sleep(30)
"""


def test_a_process_shows_in_proc_the_command_line_and_environment_written_over_its_room() -> None:
    env = {"PATH": os.environ.get("PATH", ""), "ROOM": "." * 512, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-c", SHOW, "." * 128], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "shown"
        argv = [a for a in Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0") if a]
        environ = [e for e in Path(f"/proc/{process.pid}/environ").read_bytes().split(b"\0") if e]
        assert argv == [b"python", b"-m", b"rankterm", b"seat", b"--desk-fd", b"9", b"--board"]
        assert environ == [b"TERM=screen", b"B=c"]  # nothing of the padding, nor of the first environment
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def no_adopting() -> Iterator[None]:
    """The test process made a subreaper by a WarmParent is made an ordinary one again afterwards."""
    yield
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


@pytest.mark.usefixtures("no_adopting")
async def test_a_seat_whose_warm_parent_never_came_is_started_by_exec() -> None:
    never = WarmParent([sys.executable, "-c", "import sys; sys.exit(3)"], dict(os.environ))
    never.start()  # exits at once: never ready
    with pytest.raises(WarmUnavailable, match="did not start"):
        await never.fork([*never.prefix, "x"], {}, [0])
    ended: list[int] = []
    out = bytearray()
    seat = Seat(
        [*never.prefix, "--desk-fd", "5"],  # the warm parent's command: `fits`, so asked first
        dict(os.environ),
        (80, 24),
        write=out.extend,
        pause_input=lambda: None,
        resume_input=lambda: None,
        on_exit=ended.append,
        warm=never,
    )
    await seat.start()
    end = time.monotonic() + 20
    while not ended and time.monotonic() < end:
        await asyncio.sleep(0.05)
    assert ended == [3]  # the command itself ran, by exec
    await never.close()


SETTINGS_AGAIN = """
import os
import textual.constants
from rankterm.cli.seat import read_textual_settings_again
before = dict(os.environ)
assert textual.constants.DRIVER is None
os.environ["TEXTUAL_DRIVER"] = "textual.drivers.web_driver:WebDriver"
read_textual_settings_again(before)
print(textual.constants.DRIVER)
"""


def test_a_seat_forked_warm_reads_textuals_settings_from_its_own_environment() -> None:
    """The warm parent imported Textual without `TEXTUAL_DRIVER`; a browser seat's environment names the web
    driver, which Textual must then choose."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = subprocess.run(
        [sys.executable, "-c", SETTINGS_AGAIN], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "textual.drivers.web_driver:WebDriver"
