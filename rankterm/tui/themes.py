"""Themes as data: every `*.toml` of the shipped themes folder and of the user's themes folder.

A theme file holds the keys of `textual.theme.Theme` (name, primary, secondary, accent, foreground,
background, surface, panel, boost, success, warning, error, dark, luminosity_spread, text_alpha, and a
`[variables]` table). `name` defaults to the file's stem. A file that cannot be read, is not TOML, has a key
Textual does not know, or a colour it cannot parse is reported in one sentence and skipped; the others load.
A user theme with the name of a shipped one replaces it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from textual.theme import Theme

import rankterm
from rankterm.config import user_themes_dir

DEFAULT_THEME = "rankterm-dark"
_KNOWN_KEYS = frozenset(f.name for f in fields(Theme))


def shipped_themes_dir() -> Path:
    """`themes/` at the top of a checkout, else `rankterm/_themes` inside an installed wheel."""
    package = Path(rankterm.__file__).parent
    checkout = package.parent / "themes"
    return checkout if checkout.is_dir() else package / "_themes"


def theme_dirs() -> list[Path]:
    """The folders themes are read from, in order (later ones win on a name clash)."""
    return [shipped_themes_dir(), user_themes_dir()]


@dataclass
class LoadedThemes:
    """What `load_themes` found: the good themes, and one sentence per file that was skipped."""

    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class ThemeFileError(ValueError):
    """A theme file that cannot be used; `str()` is one sentence naming the file."""


def theme_from_file(path: Path) -> Theme:
    """The theme of one TOML file; raises ThemeFileError (one sentence naming the file) when it is broken."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"Theme file {path} is not valid TOML ({exc}) and was skipped.") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise ThemeFileError(f"Theme file {path} cannot be read ({reason}) and was skipped.") from None
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise ThemeFileError(f"Theme file {path} has unknown keys ({', '.join(unknown)}) and was skipped.")
    data.setdefault("name", path.stem)
    if "primary" not in data:
        raise ThemeFileError(f"Theme file {path} has no primary colour and was skipped.")
    try:
        theme = Theme(**data)
        theme.to_color_system().generate()
    except Exception as exc:  # a bad colour or a wrong type: Textual raises several kinds
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ThemeFileError(f"Theme file {path} is not a valid theme ({detail}) and was skipped.") from None
    if not isinstance(theme.name, str) or not theme.name.strip():
        raise ThemeFileError(f"Theme file {path} has an empty name and was skipped.")
    return theme


def load_themes(dirs: list[Path] | None = None) -> LoadedThemes:
    """Every theme of `dirs` (default: `theme_dirs()`), files in name order, broken ones reported."""
    out = LoadedThemes()
    by_name: dict[str, Theme] = {}
    for folder in theme_dirs() if dirs is None else dirs:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = theme_from_file(path)
            except ThemeFileError as exc:
                out.problems.append(str(exc))
                continue
            by_name[theme.name] = theme
    out.themes = list(by_name.values())
    return out
