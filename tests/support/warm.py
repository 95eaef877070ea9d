"""What the tests of seats forked warm (`rankterm host` and `rankterm web`) share: a room whose profile keeps
its secret in an environment variable, the warm parent among a host's children, and what /proc says of a
process: alive, how much of its memory is shared with the process it was forked from, whether a string is
anywhere in its memory."""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.ssh import children_of, is_warm_parent
from tests.support.terminal import room_env

ROOT = Path(__file__).resolve().parents[2]
SECRET_VARIABLE = "ROOM_SECRET"
POLL = 0.02
"""How often /proc is looked at again while waiting for a process to start or end (a read costs microseconds)."""
SHARED_MIB = 4.0
"""A seat forked warm shares far more than this with its warm parent; one started by exec shares nothing."""


def room_with_secret(tmp: Path, url: str, key: str, secret: str) -> dict[str, str]:
    """A host's environment: the profile "room" on `url`, its secret in the variable `SECRET_VARIABLE`."""
    env = room_env(tmp, url, key, "", RANKTERM_LIVE_EVERY="0", PYTHONPATH=str(ROOT))
    config = Path(env["RANKTERM_CONFIG"])
    text = config.read_text(encoding="utf-8").replace('secret = ""', f'secret_env = "{SECRET_VARIABLE}"')
    config.write_text(text, encoding="utf-8")
    env[SECRET_VARIABLE] = secret
    return env


def warm_parents_of(host: int) -> list[int]:
    return [pid for pid in children_of(host) if is_warm_parent(pid)]


def wait_for_warm_parent(host: int, limit: float, but: int | None = None) -> int:
    """The warm parent of process `host` (another than `but`), once there is one; at most `limit` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        found = [pid for pid in warm_parents_of(host) if pid != but]
        if found:
            return found[0]
        time.sleep(POLL)
    raise AssertionError(f"no warm parent within {limit} s")


def shared_mib(pid: int) -> float:
    """What of `pid`'s memory is shared and was written (by the warm parent before the fork), in MiB."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Shared_Dirty:"):
            return int(line.split()[1]) / 1024
    return 0.0


def memory_holds(pid: int, needle: bytes) -> bool:
    """`needle` is somewhere in the readable memory of process `pid`."""
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            fields = line.split()
            if "r" not in fields[1] or line.rstrip().endswith(("[vvar]", "[vsyscall]", "[vvar_vclock]")):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                mem.seek(start)
                chunk = mem.read(end - start)
            except (OSError, ValueError, OverflowError):
                continue
            if needle in chunk:
                return True
    return False


def alive(pid: int) -> bool:
    """`pid` is a process that has not ended (a zombie waiting for its reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def still_alive(pids: list[int], limit: float) -> list[int]:
    """Those of `pids` still running after `limit` seconds (or at once, when none is)."""
    end = time.monotonic() + limit
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < end:
        time.sleep(POLL)
    return left
