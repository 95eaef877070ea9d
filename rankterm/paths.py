"""Every file and folder rankterm keeps, named once: the config, the token cache, the mirrors, the outbox, the
drafts, the service's database, the cached demo (the folders from platformdirs), and the temporary folders a
process makes for its own life (`process_folder`).

`RANKTERM_CONFIG`, `RANKTERM_CACHE_DIR` and `RANKTERM_DATA_DIR` override the folders, which is what the tests
use. This module imports nothing of rankterm, so every floor (the embedded service too) may ask it.
See docs/design/local-files.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

APP_NAME = "rankterm"

DEMO_GLOB = "demo-*.db"
"""The names of the cached demos (`demo_path`), old and new."""
DEMO_MIRROR_GLOB = "demo-*.mirror"
"""The names of the kept mirrors of the cached demos (`demo_mirror_path`), old and new."""


def config_path() -> Path:
    """The config file (TOML): profiles, preferences."""
    if env := os.environ.get("RANKTERM_CONFIG"):
        return Path(env).expanduser()
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def cache_dir() -> Path:
    """What can be made again: the token cache, the mirrors, the cached demo."""
    if env := os.environ.get("RANKTERM_CACHE_DIR"):
        return Path(env).expanduser()
    return platformdirs.user_cache_path(APP_NAME)


def data_dir() -> Path:
    """What cannot be made again: the outbox, the drafts, the service's database, the SSH host's key."""
    if env := os.environ.get("RANKTERM_DATA_DIR"):
        return Path(env).expanduser()
    return platformdirs.user_data_path(APP_NAME)


def themes_dir() -> Path:
    """The user's own themes, beside the config."""
    return config_path().parent / "themes"


def token_cache_path() -> Path:
    """The tokens of the profiles' services, kept between runs (TOML, 0600)."""
    return cache_dir() / "tokens.toml"


def outbox_path() -> Path:
    """The outbox (SQLite): every match recorded for any profile, until the service has it."""
    return data_dir() / "outbox.db"


def mirror_dir() -> Path:
    """The mirrors' folder: one SQLite file a group (`mirror_path`)."""
    return cache_dir() / "mirror"


def mirror_path(base_url: str, scope: str) -> Path:
    """The mirror of the group at `base_url` whose scope (`wire.ids.service_scope`) is `scope`."""
    return mirror_dir() / f"{group_stem(base_url, scope)}.db"


def drafts_dir() -> Path:
    """The match form's drafts (one file a seat of a group) and their seats' lock files."""
    return data_dir() / "drafts"


def draft_path(base_url: str, scope: str) -> Path:
    """The drafts of the group at `base_url` whose scope is `scope` (each seat's file is named after it)."""
    return drafts_dir() / f"{group_stem(base_url, scope)}.json"


def service_db_path() -> Path:
    """The embedded service's database (`rankterm serve` without ``--db``)."""
    return data_dir() / "service.db"


def host_key_path(data: Path | None = None) -> Path:
    """The SSH host key of `rankterm host`, in the data dir (or `data`)."""
    return (data_dir() if data is None else data) / "host" / "ssh_host_ed25519_key"


def demo_path(stem: str) -> Path:
    """The demo seeded once and kept between runs, named by `stem` (its day and a hash of the code)."""
    return cache_dir() / f"demo-{stem}.db"


def demo_mirror_path(stem: str) -> Path:
    """The app's mirror of a cached demo, kept beside it, named by `stem` (the demo's and a hash of the code
    that reads it)."""
    return cache_dir() / f"demo-{stem}.mirror"


def group_stem(base_url: str, scope: str) -> str:
    """A file name for one group: its service's host (recognisable) and a hash of its scope (apart from every
    other group's)."""
    digest = hashlib.sha256(scope.encode()).hexdigest()[:16]
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", urlsplit(base_url).hostname or "service")[:40]
    return f"{host}-{digest}"


def process_folder(prefix: str, parent: str | None = None) -> str:
    """A new temporary folder of this process, ``<prefix><pid>-<random>`` in `parent` (the system's temporary
    folder by default), removed by its maker when it ends. The folders of the same prefix whose process is gone
    (ended by SIGKILL, so never able to remove its own) are removed first: this user's only."""
    parent = parent or tempfile.gettempdir()
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        for entry in entries:
            pid = entry.name.removeprefix(prefix).partition("-")[0]
            if entry.name.startswith(prefix) and pid.isdigit() and not _alive(int(pid)):
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False) and entry.stat().st_uid == os.getuid():
                        shutil.rmtree(entry.path, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
