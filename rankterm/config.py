"""Profiles and settings in `config.toml`, and where rankterm keeps its files.

Paths come from `rankterm.paths`. The file is read with tomllib and written atomically with mode 0600, since it
may hold a secret; tomlkit keeps what a person wrote around the settings. A malformed file gives one line naming
the file, the line when known, and the problem; a missing file means no profiles yet. The settings, with an
example: docs/configuration.md.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from rankterm import paths
from rankterm.paths import cache_dir, config_path, data_dir, mirror_dir  # noqa: F401 - re-exported
from rankterm.wire.errors import ConfigError, RanktermError
from rankterm.wire.ids import service_scope
from rankterm.wire.localtime import SeatZone, seat_zone, zone_problem


def token_cache_path() -> Path:
    return paths.token_cache_path()


def outbox_path() -> Path:
    """The outbox (SQLite): every match recorded for any profile, until the service has it."""
    return paths.outbox_path()


def mirror_path(base_url: str, key: str) -> Path:
    """The mirror file (SQLite) of one service + key, in the user cache dir: `mirror/<host>-<hash>.db`.

    One file per scope: the host keeps it recognisable, the hash of base URL and key keeps scopes apart.
    """
    return paths.mirror_path(base_url, service_scope(base_url, key))


def user_themes_dir() -> Path:
    return paths.themes_dir()


def _normalise_url(value: str) -> str:
    """`value` with a final slash; ValueError("must …") when no request could be sent to it (the scheme,
    the host, the port: `address_problem`), so a bad URL is refused where it is read, not when first used."""
    value = value.strip()
    if not re.match(r"^https?://[^\s/]+", value):
        raise ValueError("must start with http:// or https:// and name a host")
    from rankterm.client.transport import address_problem  # here: the demo's first screen needs no httpx

    if problem := address_problem(value):
        raise ValueError(problem)
    return value if value.endswith("/") else value + "/"


@dataclass(frozen=True, slots=True)
class NamedSeason:
    """A season a host names: `name` and the wall-clock range [start, end) of the seat's time zone (the
    config's `since` and `until`; `until` not included, as `rankterm rankings --until`)."""

    name: str
    start: datetime
    end: datetime

    def to_seat(self) -> dict[str, str]:
        """As a host tells its seats (`read_seasons` reads it back)."""
        return {"name": self.name, "since": self.start.isoformat(), "until": self.end.isoformat()}


_SEASON_KEYS = ("name", "since", "until")
_CALENDAR_NAME = re.compile(r"\d{4}(-(Q[1-4]|\d{2}))?\Z", re.ASCII | re.IGNORECASE)


def _season_end(value: Any) -> datetime | None:
    """A TOML date or local date-time, or the same written as text (ISO), as a naive date-time."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if isinstance(value, datetime):
        return None if value.tzinfo is not None else value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    return None


def read_seasons(entries: Any, where: str) -> tuple[tuple[NamedSeason, ...], list[str]]:
    """The named seasons of a `seasons` list (`where` names it in the sentences), and one sentence for each
    entry left out: each bad entry is left out alone, so nothing else of the config is lost."""
    if not isinstance(entries, list):
        return (), [f"{where}: must be a list of seasons ([[{where}]] tables); it is left out"]
    seasons: list[NamedSeason] = []
    problems: list[str] = []
    for n, entry in enumerate(entries, start=1):
        at = f"{where}[{n}]"
        if not isinstance(entry, dict):
            problems.append(f"{at}: must be a table with name, since and until; it is left out")
            continue
        name = entry.get("name")
        if isinstance(name, str) and name.strip():
            at = f"{at} ({name.strip()[:40]!r})"
        unknown = [key for key in entry if key not in _SEASON_KEYS]
        ends = [_season_end(entry.get(key)) for key in ("since", "until")]
        problem = ""
        if unknown:
            problem = f"{unknown[0]!r} is not a season's setting (name, since, until)"
        elif not isinstance(name, str) or not name.strip():
            problem = "needs a name"
        elif _CALENDAR_NAME.match(name.strip()):
            problem = "its name reads as a calendar period (YYYY, YYYY-Qn, YYYY-MM): give it a word"
        elif ends[0] is None or ends[1] is None:
            problem = "needs since and until as dates (2026-09-01) or local date-times (2026-09-01T18:00:00)"
        elif ends[1] <= ends[0]:
            problem = "until (not included) must come after since"
        elif any(s.name.casefold() == name.strip().casefold() for s in seasons):
            problem = "another season above has that name"
        if problem:
            problems.append(f"{at}: {problem}; it is left out")
            continue
        seasons.append(NamedSeason(name.strip(), ends[0], ends[1]))  # type: ignore[arg-type, union-attr]
    return tuple(seasons), problems


@dataclass(kw_only=True)
class Profile:
    """One service to talk to: where it is and the client's key; the secret inline or in an env var.

    Built with plain dataclasses rather than pydantic: the config is read before the first screen, and
    pydantic's first model is slow to build.
    """

    base_url: str
    key: str = ""
    secret: str = field(default="", repr=False)
    secret_env: str = ""
    verify_tls: bool = True
    timezone: str = ""
    """The zone its times are shown in (a zoneinfo name); empty: the config's, else this machine's."""
    seasons: tuple[NamedSeason, ...] = ()
    """The seasons the host names; empty: the config's top-level ones."""
    season_entries: list[Any] | None = field(default=None, repr=False)
    """The `seasons` list as the file holds it, bad entries too, written back as it is (None: `seasons`)."""
    name: str = ""

    def __post_init__(self) -> None:
        self.base_url = _normalise_url(self.base_url)  # ValueError with one sentence when it is not a URL

    def resolve_secret(self) -> str:
        """The secret: from `secret_env`'s variable when set, else the inline one."""
        if self.secret_env:
            return os.environ.get(self.secret_env, "")
        return self.secret

    def to_toml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"base_url": self.base_url, "key": self.key}
        if self.secret:
            out["secret"] = self.secret
        if self.secret_env:
            out["secret_env"] = self.secret_env
        if not self.verify_tls:
            out["verify_tls"] = False
        if self.timezone:
            out["timezone"] = self.timezone
        if seasons := _season_entries(self.season_entries, self.seasons):
            out["seasons"] = seasons
        return out


def _season_entries(read: list[Any] | None, seasons: Iterable[NamedSeason]) -> list[Any]:
    """What a `seasons` setting writes: the entries as read, else the seasons made in the app."""
    if read is not None:
        return read
    return [{"name": s.name, "since": s.start, "until": s.end} for s in seasons]


_PROFILE_KEYS: dict[str, type] = {
    "base_url": str,
    "key": str,
    "secret": str,
    "secret_env": str,
    "verify_tls": bool,
    "timezone": str,
}
_TYPE_NAMES = {str: "a string", bool: "true or false", dict: "a table"}


@dataclass(kw_only=True)
class Config:
    theme: str | None = None
    default_profile: str | None = None
    timezone: str | None = None
    """The zone times are shown in (a zoneinfo name), for every profile that names none; None: this
    machine's."""
    profiles: dict[str, Profile] = field(default_factory=dict)
    seasons: tuple[NamedSeason, ...] = ()
    """The seasons named for every profile that names none, and for the demo group."""
    season_entries: list[Any] | None = field(default=None, repr=False)
    """The top-level `seasons` list as the file holds it (see `Profile.season_entries`)."""
    problems: list[str] = field(default_factory=list)
    """One sentence for each entry of the file left out (a bad season), the rest being read."""

    def __post_init__(self) -> None:
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

    def chosen_profile(self, name: str | None = None) -> Profile:
        """`profile(name)`, or a `RanktermError` in one sentence when there is none (no profile of that name,
        or none configured)."""
        chosen = self.profile(name)
        if chosen is not None:
            return chosen
        if name:
            raise RanktermError(f"No profile named {name!r} in the config (see `rankterm locate`).")
        if self.profiles:
            names = ", ".join(sorted(self.profiles))
            raise RanktermError(
                f"No default profile among {names}: pass --profile NAME, or set default_profile."
            )
        raise RanktermError("No profile is configured: run `rankterm` to add one, or pass --demo.")

    def zone_setting(self, profile_name: str | None = None) -> str:
        """The `timezone` that applies to the profile named (exactly that one; None: no profile, as the demo
        group): the profile's own, else the top-level one; "" for this machine's zone."""
        profile = self.profiles.get(profile_name) if profile_name else None
        return (profile.timezone if profile is not None else "") or self.timezone or ""

    def zone(self, profile_name: str | None = None) -> SeatZone:
        """The zone the times of the profile named are shown in (`zone_setting`)."""
        return seat_zone(self.zone_setting(profile_name))

    def named_seasons(self, profile_name: str | None = None) -> tuple[NamedSeason, ...]:
        """The seasons named for the profile named (None: no profile, as the demo group): its own, else the
        top-level ones."""
        profile = self.profiles.get(profile_name) if profile_name else None
        return (profile.seasons if profile is not None else ()) or self.seasons

    def to_toml(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.theme is not None:
            out["theme"] = self.theme
        if self.default_profile is not None:
            out["default_profile"] = self.default_profile
        if self.timezone is not None:
            out["timezone"] = self.timezone
        if seasons := _season_entries(self.season_entries, self.seasons):
            out["seasons"] = seasons
        out["profiles"] = {name: p.to_toml() for name, p in self.profiles.items()}
        return out

    @classmethod
    def from_toml(cls, data: dict[str, Any]) -> Config:
        """The config in a parsed TOML document; ValueError("<where>: <problem>") for the first problem."""
        for key in data:
            if key not in ("theme", "default_profile", "timezone", "profiles", "seasons"):
                raise ValueError(f"{key}: unknown setting")
        for key in ("theme", "default_profile", "timezone"):
            _check(key, data.get(key, ""), str)
        _check_zone("timezone", data.get("timezone"))
        profiles = _check("profiles", data.get("profiles", {}), dict)
        problems: list[str] = []
        seasons: tuple[NamedSeason, ...] = ()
        if "seasons" in data:
            seasons, problems = read_seasons(data["seasons"], "seasons")
        out = {}
        for name, table in profiles.items():
            where = f"profiles.{name}"
            _check(where, table, dict)
            settings = dict(table)
            entries = settings.pop("seasons", None)
            for key, value in settings.items():
                if key not in _PROFILE_KEYS:
                    raise ValueError(f"{where}.{key}: unknown setting")
                _check(f"{where}.{key}", value, _PROFILE_KEYS[key])
            _check_zone(f"{where}.timezone", table.get("timezone"))
            if "base_url" not in table:
                raise ValueError(f"{where}.base_url: is required")
            own: tuple[NamedSeason, ...] = ()
            if entries is not None:
                own, said = read_seasons(entries, f"{where}.seasons")
                problems.extend(said)
            try:
                out[name] = Profile(**settings, seasons=own, season_entries=entries)
            except ValueError as exc:
                raise ValueError(f"{where}.base_url: {exc}") from None
        default = data.get("default_profile")
        if default is not None and default not in out:
            known = ", ".join(sorted(out)) or "none"
            raise ValueError(f"default_profile: no profile is named {default!r} (profiles: {known})")
        return cls(
            theme=data.get("theme"),
            default_profile=default,
            timezone=data.get("timezone"),
            profiles=out,
            seasons=seasons,
            season_entries=data.get("seasons"),
            problems=problems,
        )


def _check_zone(where: str, name: str | None) -> None:
    if name is not None and (problem := zone_problem(name)):
        raise ValueError(f"{where}: {problem}")


def _check(where: str, value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise ValueError(f"{where}: must be {_TYPE_NAMES[kind]}")
    return value


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
        return Config.from_toml(data)
    except ValueError as exc:
        raise ConfigError(path, str(exc)) from None


def save_config(config: Config, path: Path | None = None) -> Path:
    """Write the config atomically, mode 0600 (it may hold secrets)."""
    from rankterm.client.auth import write_private  # here: tempfile and tomli_w only for a write

    path = path or config_path()
    write_private(path, _edited(_read_document(path), config.to_toml()))
    return path


def _read_document(path: Path) -> Any:
    """The file as tomlkit reads it (comments and all); an empty document when it is missing or unreadable."""
    import tomlkit  # here: only a write needs it, and the app reads its config before the first screen
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TOMLKitError):
        return tomlkit.document()


def _edited(document: Any, data: dict[str, Any]) -> str:
    """`document` made to hold exactly `data`: values changed in place, settings gone removed, new ones
    added, so what surrounds the settings stays as written."""
    import tomlkit

    _merge(document, data)
    return tomlkit.dumps(document)


def _merge(table: Any, data: dict[str, Any]) -> None:
    import tomlkit

    for key in [k for k in table if k not in data]:
        del table[key]
    for key, value in data.items():
        if isinstance(value, dict):
            if not isinstance(table.get(key), dict):
                table[key] = tomlkit.table(is_super_table=key == "profiles")
            _merge(table[key], value)
        elif table.get(key) != value:
            table[key] = value


def config_warnings(config: Config, path: Path | None = None) -> list[str]:
    """Problems worth a warning: an entry left out (a bad season), a time zone this machine cannot read (no
    tzdata), a secret in a file that others can read."""
    path = path or config_path()
    out: list[str] = list(config.problems)
    notes = {config.zone(None).note, *(config.zone(name).note for name in config.profiles)}
    out.extend(sorted(notes - {""}))
    try:
        mode = path.stat().st_mode
    except OSError:
        return out
    if mode & (stat.S_IRGRP | stat.S_IROTH) and any(p.secret for p in config.profiles.values()):
        out.append(f"{path} holds a secret and can be read by other users: run chmod 600 {path}")
    return out
