"""The machine's own programs some tests drive, installed from Debian's packages when they are missing.

A test module says what it needs with ``pytestmark = pytest.mark.needs("chromium")`` (a test marked
``postgres`` needs PostgreSQL's server without saying so); the root conftest calls `ensure` for every
need of the tests a run collected, before the first of them runs, so that README's test command passes on a
fresh Debian machine with nothing installed by hand. One process installs at a time (a lock file beside the
system's temp folder), and the others, waiting on it, find the program there afterwards.

A need that cannot be met (no apt-get, not root and no sudo, the package refused) fails the run with one
sentence naming the package, never a skip.
"""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Need:
    """A program the tests run, how to tell it is there, and the Debian package that brings it."""

    name: str
    package: str
    commands: tuple[str, ...]
    """Any one of these on PATH (or an absolute path that exists) means the need is met."""


NEEDS: dict[str, Need] = {
    need.name: need
    for need in (
        Need("chromium", "chromium", ("chromium", "chromium-browser")),
        Need("ssh", "openssh-client", ("ssh",)),
        Need("postgresql", "postgresql", ("initdb", "/usr/lib/postgresql/*/bin/initdb")),
    )
}

LOCK = Path(tempfile.gettempdir()) / "rankterm-tests-apt.lock"


class Unmet(RuntimeError):
    """A need the machine lacks and this process could not install."""


def found(need: Need) -> str | None:
    """Where `need`'s program is, or None."""
    for command in need.commands:
        if command.startswith("/"):
            matches = sorted(glob.glob(command))
            if matches:
                return matches[-1]
        elif path := shutil.which(command):
            return path
    return None


def _apt(*args: str) -> list[str]:
    wait = "-oDPkg::Lock::Timeout=600"  # another install on the machine holds dpkg's lock: wait for it
    if os.geteuid() == 0:
        return ["apt-get", wait, *args]
    if shutil.which("sudo"):
        return ["sudo", "-n", "apt-get", wait, *args]
    raise Unmet(
        f"the tests need Debian's {args[-1]} and this user cannot install it: run `apt-get install -y {args[-1]}` as root"
    )


def ensure(name: str) -> str:
    """The path of `name`'s program, installing its Debian package first when it is missing.

    Raises:
        KeyError: `name` is not one of `NEEDS`.
        Unmet: it is missing and could not be installed.
    """
    need = NEEDS[name]
    if path := found(need):
        return path
    if not shutil.which("apt-get"):
        raise Unmet(f"the tests need {need.package} and this machine has no apt-get to install it")
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be installing it right now
        if path := found(need):
            return path
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = _apt("install", "-y", "-q", need.package)
        done = subprocess.run(install, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:  # the package lists may be missing or stale on a fresh machine
            subprocess.run(_apt("update", "-q"), env=env, capture_output=True, check=False)
            done = subprocess.run(install, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not (path := found(need)):
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise Unmet(f"the tests need Debian's {need.package}, and installing it failed: {last[0]}")
        return path
