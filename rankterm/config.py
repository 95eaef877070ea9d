"""Profiles and settings in `config.toml`, and where rankterm keeps its files.

Paths come from platformdirs (`RANKTERM_CONFIG`, `RANKTERM_CACHE_DIR` and `RANKTERM_DATA_DIR` override them,
which is what the tests use). The file is read with tomllib and written with tomli-w, atomically and with
mode 0600 since it may hold a secret. A malformed file gives one line naming the file, the line when known,
and the problem; a missing file means no profiles yet.

    theme = "rankterm-dark"
    default_profile = "home"

    [profiles.home]
    base_url = "http://192.168.1.20:8765/"
    key = "k_..."
    secret_env = "RANKTERM_SECRET"   # or: secret = "..."
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rankterm.api.auth import write_private
from rankterm.api.errors import ConfigError

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


def token_cache_path() -> Path:
    return cache_dir() / "tokens.toml"


def user_themes_dir() -> Path:
    return config_path().parent / "themes"


class Profile(BaseModel):
    """One service to talk to: where it is and the client's key; the secret inline or in an env var."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", exclude=True)
    base_url: str
    key: str = ""
    secret: str = Field(default="", repr=False)
    secret_env: str = ""
    verify_tls: bool = True

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        value = value.strip()
        if not re.match(r"^https?://[^\s/]+", value):
            raise ValueError("must start with http:// or https:// and name a host")
        return value if value.endswith("/") else value + "/"

    def resolve_secret(self) -> str:
        """The secret: from `secret_env`'s variable when set, else the inline one."""
        if self.secret_env:
            return os.environ.get(self.secret_env, "")
        return self.secret


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")

    theme: str | None = None
    default_profile: str | None = None
    profiles: dict[str, Profile] = Field(default_factory=dict)

    def model_post_init(self, _context: Any) -> None:
        for name, profile in self.profiles.items():
            profile.name = name

    def profile(self, name: str | None = None) -> Profile | None:
        """The named profile; without a name the default one, or the only one."""
        if name:
            return self.profiles.get(name)
        if self.default_profile and self.default_profile in self.profiles:
            return self.profiles[self.default_profile]
        if len(self.profiles) == 1:
            return next(iter(self.profiles.values()))
        return None


def _line_of(exc: tomllib.TOMLDecodeError) -> int | None:
    m = re.search(r"line (\d+)", str(exc))
    return int(m.group(1)) if m else None


def load_config(path: Path | None = None) -> Config:
    """The config at `path` (default: `config_path()`); an empty Config when the file does not exist."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except UnicodeDecodeError:
        raise ConfigError(path, "not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(path, f"cannot be read ({exc.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problem = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(path, f"not valid TOML: {problem}", line=_line_of(exc)) from None
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown setting"
        raise ConfigError(path, f"{where}: {msg}") from None


def save_config(config: Config, path: Path | None = None) -> Path:
    """Write the config atomically, mode 0600 (it may hold secrets)."""
    path = path or config_path()
    data = config.model_dump(exclude_none=True, exclude_defaults=False)
    for profile in data.get("profiles", {}).values():
        for key in ("secret", "secret_env"):
            if not profile.get(key):
                profile.pop(key, None)
        if profile.get("verify_tls") is True:
            profile.pop("verify_tls")
    write_private(path, tomli_w.dumps(data))
    return path


def config_warnings(config: Config, path: Path | None = None) -> list[str]:
    """Problems worth a warning: a secret in a file that others can read."""
    path = path or config_path()
    out = []
    try:
        mode = path.stat().st_mode
    except OSError:
        return out
    if mode & (stat.S_IRGRP | stat.S_IROTH) and any(p.secret for p in config.profiles.values()):
        out.append(f"{path} holds a secret and can be read by other users: run chmod 600 {path}")
    return out
