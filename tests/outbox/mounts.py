"""Folders that cannot be written, for tests: a tmpfs of a few kilobytes filled to the last byte, or remounted
read-only. Real filesystems, since the tests run as root and root writes through chmod 0500; a machine that
cannot mount (not root) cannot run these tests, and says so."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): these tests need root")


@contextmanager
def tmpfs(where: Path, size: str = "256k") -> Iterator[Path]:
    """A tmpfs of `size` mounted at `where` for the block."""
    where.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where))
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def read_only(where: Path) -> None:
    """Remount the tmpfs at `where` read-only."""
    _mount("-o", "remount,ro", str(where))


def fill(where: Path) -> None:
    """Write zeros into `where` until its filesystem has no byte left."""
    out = open(where / "filler", "wb", buffering=0)  # noqa: SIM115 - closed below, whatever the disk says
    try:
        while True:
            out.write(b"\0" * 4096)
    except OSError:
        pass
    finally:
        out.close()
