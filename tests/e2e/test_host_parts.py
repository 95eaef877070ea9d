"""The parts of `rankterm host` that need no SSH connection: the host key kept, the join code's lockout over
time, a seat's environment, and the command line's refusals."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from rankterm.seats.guard import LOCKOUT_SECONDS, WRONG_LIMIT, JoinCodeGuard
from rankterm.seats.keys import fingerprint, host_key_path, load_or_make_host_key
from rankterm.seats.pty_seat import Seat
from rankterm.seats.ssh_server import seat_env
from tests.support.clock import SettableClock
from tests.support.terminal import home_env


def test_the_host_key_is_made_once_kept_private_and_used_again(tmp_path: Path) -> None:
    path = host_key_path(tmp_path / "data")
    first = load_or_make_host_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_or_make_host_key(path)
    assert fingerprint(again) == fingerprint(first)
    assert fingerprint(first).startswith("SHA256:")

    path.chmod(0o644)  # loosened by hand: made private again
    assert fingerprint(load_or_make_host_key(path)) == fingerprint(first)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_five_wrong_codes_lock_an_address_out_for_ten_minutes() -> None:
    clock = SettableClock()
    guard = JoinCodeGuard("SEAT2345", wrong_limit=WRONG_LIMIT, lockout_seconds=LOCKOUT_SECONDS, clock=clock)
    assert guard.try_code("10.0.0.5", " seat2345 ")  # as people type it
    for _ in range(4):
        assert not guard.try_code("10.0.0.5", "WRONG")
    assert not guard.locked("10.0.0.5")
    assert guard.try_code("10.0.0.5", "SEAT2345")  # four wrong codes: not yet
    assert not guard.try_code("10.0.0.5", "WRONG")
    assert guard.locked("10.0.0.5")
    assert not guard.try_code("10.0.0.5", "SEAT2345")  # locked out: even the code is refused
    assert guard.try_code("10.0.0.6", "SEAT2345")  # another address is not

    clock.advance(LOCKOUT_SECONDS - 1)
    assert guard.locked("10.0.0.5")
    clock.advance(2)
    assert not guard.locked("10.0.0.5")
    assert guard.try_code("10.0.0.5", "SEAT2345")


def test_a_seat_takes_the_guests_terminal_type_and_nothing_of_the_hosts_terminal() -> None:
    host = {"HOME": "/home/h", "TERM": "linux", "COLUMNS": "200", "LINES": "60", "SSH_AUTH_SOCK": "/tmp/a"}
    env = seat_env(host, "xterm-kitty")
    assert env == {"HOME": "/home/h", "TERM": "xterm-kitty", "COLORTERM": "truecolor"}
    assert seat_env(host, "../../etc/passwd")["TERM"] == "xterm-256color"  # not a terminal's name
    assert seat_env(host, None)["TERM"] == "xterm-256color"


def host_says(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rankterm", "host", *args],
        env=home_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--demo", "--max-seats", "0"], "--max-seats must be 1 or more, not 0."),
        (["--demo", "--join-code", "ab"], "--join-code must be 4 to 64 letters and digits."),
        (["--demo", "--port", "70000"], "--port must be between 0 and 65535, not 70000."),
        (["--demo", "--authorized-keys", "/nonexistent/keys"], "Cannot read /nonexistent/keys"),
        ([], "No profile is configured: run `rankterm` to add one, or pass --demo."),
        (["--profile", "club"], "No profile named 'club' in the config"),
    ],
)
def test_the_command_line_refuses_what_cannot_be_served(tmp_path: Path, args: list[str], said: str) -> None:
    done = host_says(tmp_path, *args)
    assert done.returncode == 2
    assert said in done.stderr
    assert done.stderr.count("\n") == 1  # one line
    assert not (tmp_path / "data" / "host").exists()  # no key made for a host that never started


def test_a_host_key_that_is_not_one_is_named_and_left_alone(tmp_path: Path) -> None:
    path = host_key_path(tmp_path / "data")
    path.parent.mkdir(parents=True)
    path.write_text("not a key\n")
    done = host_says(tmp_path, "--demo")
    assert done.returncode == 2
    assert f"{path} is not a host key" in done.stderr and "move it away" in done.stderr
    assert path.read_text() == "not a key\n"


STUBBORN = """
import signal, sys, time
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
while True:
    time.sleep(1)
"""


async def end_a_seat(code: str, typed: bytes = b"") -> tuple[int | None, list[bytes]]:
    """A seat running `code`, `typed` given to it as soon as it starts, ended once it said "ready": its return
    code and its output."""
    said: list[bytes] = []
    ready = asyncio.Event()

    def write(data: bytes) -> None:
        said.append(data)
        if b"ready" in b"".join(said):
            ready.set()

    seat = Seat(
        [sys.executable, "-c", code],
        {"PATH": os.environ["PATH"]},
        (80, 24),
        write=write,
        pause_input=lambda: None,
        resume_input=lambda: None,
        on_exit=lambda code: None,
    )
    await seat.start()
    seat.keys(typed)
    try:
        await asyncio.wait_for(ready.wait(), 30)
    finally:
        returncode = await seat.end()
    return returncode, said


def test_a_seat_deaf_to_sighup_and_sigterm_is_killed_within_the_end() -> None:
    returncode, _ = asyncio.run(end_a_seat(STUBBORN))
    assert returncode == -signal.SIGKILL  # SIGHUP, SIGTERM, then SIGKILL, END_SECONDS apart in all


def test_a_seat_ends_at_its_terminals_hangup() -> None:
    returncode, _ = asyncio.run(end_a_seat('print("ready", flush=True); import time; time.sleep(60)'))
    assert returncode == -signal.SIGHUP  # the first step is enough for a process that does not ignore it


def settings_of(*argv: str):
    from rankterm.cli import parser
    from rankterm.cli.host import build_settings

    return build_settings(parser().parse_args(["host", "--demo", *argv]))


def test_off_loopback_a_new_join_code_is_printed_and_on_loopback_anyone_joins() -> None:
    from rankterm.seats.guard import CODE_ALPHABET
    from rankterm.seats.ssh_host import start_lines

    settings, code = settings_of("--host", "0.0.0.0")
    assert code is not None and len(code) == 8 and set(code) <= set(CODE_ALPHABET)
    assert settings.guard is not None and settings.guard.code == code and not settings.open_door
    assert f"join code {code}  (typed when ssh asks for it)" in start_lines(
        settings, "0.0.0.0", 2222, code, "SHA256:x"
    )
    assert settings_of("--host", "0.0.0.0")[1] != code  # a new one each start

    settings, code = settings_of("--host", "127.0.0.1")
    assert code is None and settings.open_door
    assert settings.app_argv[-1] == "seat" and settings.board_argv[-2:] == ["seat", "--board"]


def test_the_variable_holding_the_secret_is_left_out_of_every_seats_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rankterm.cli import parser
    from rankterm.cli.host import build_settings

    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.club]\nbase_url = "http://127.0.0.1:9/"\nkey = "k"\nsecret_env = "CLUB_SECRET"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("RANKTERM_CONFIG", str(config))
    monkeypatch.setenv("CLUB_SECRET", "only-the-host-knows")
    settings, _ = build_settings(parser().parse_args(["host", "--profile", "club"]))
    assert "CLUB_SECRET" not in settings.env
    assert "only-the-host-knows" not in " ".join([*settings.env.values(), *settings.app_argv])
    assert settings.app_argv[-1] == "seat"  # a guest seat, which asks the host for its tokens


TYPED_AHEAD = b"nCat\rEl\t\t10\r\x13"
"""README's keys up to ctrl+s, typed before the seat's app has set up its terminal."""

READS_AFTER_A_WHILE = """
import os, sys, time
time.sleep(0.5)  # the keys are typed meanwhile, before anything reads the terminal
got = b""
while len(got) < {size}:
    got += os.read(0, 1024)
print("got " + repr(got), flush=True)
print("ready", flush=True)
time.sleep(60)
"""


def test_keys_typed_before_the_app_reads_them_reach_it_as_typed() -> None:
    """A guest's burst that arrives before the seat's app has put its terminal in raw mode: ctrl+s is a key,
    not the terminal's "stop output" (which froze the app's first write), Enter stays Enter, and nothing is
    echoed over the screen."""

    _, said = asyncio.run(end_a_seat(READS_AFTER_A_WHILE.format(size=len(TYPED_AHEAD)), TYPED_AHEAD))
    output = b"".join(said)
    assert output.startswith(b"got " + repr(TYPED_AHEAD).encode()), output
