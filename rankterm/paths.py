"""Where rankterm keeps its files: the config, cache and data folders (platformdirs).

`RANKTERM_CONFIG`, `RANKTERM_CACHE_DIR` and `RANKTERM_DATA_DIR` override them, which is what the tests use.
The config, the client and the embedded service's demo store all find their folders here.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "rankterm"


def config_path() -> Path:
    if env := os.environ.get("RANKTERM_CONFIG"):
        return Path(env).expanduser()
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def cache_dir() -> Path:
    if env := os.environ.get("RANKTERM_CACHE_DIR"):
        return Path(env).expanduser()
    return platformdirs.user_cache_path(APP_NAME)


def data_dir() -> Path:
    if env := os.environ.get("RANKTERM_DATA_DIR"):
        return Path(env).expanduser()
    return platformdirs.user_data_path(APP_NAME)
