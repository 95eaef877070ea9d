"""The host key of `rankterm host`: made on the first start, kept in the data dir (mode 0600) and used again,
so a guest who said yes to its fingerprint once is never asked again."""

from __future__ import annotations

import os
from pathlib import Path

import asyncssh

from rankterm.paths import host_key_path

__all__ = ["fingerprint", "host_key_path", "load_or_make_host_key"]


def load_or_make_host_key(path: Path) -> asyncssh.SSHKey:
    """The private key at `path`; a new Ed25519 key written there first (mode 0600) when there is none."""
    if not path.exists():
        key = asyncssh.generate_private_key("ssh-ed25519", comment="rankterm host")
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another `rankterm host` made it meanwhile: use that one
            return asyncssh.read_private_key(path)
        with os.fdopen(fd, "wb") as out:
            out.write(key.export_private_key())
        return key
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
    return asyncssh.read_private_key(path)


def fingerprint(key: asyncssh.SSHKey) -> str:
    """What `ssh` shows when it first meets the host: `SHA256:…`."""
    return key.get_fingerprint("sha256")
