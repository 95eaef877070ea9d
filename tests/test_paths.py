"""`rankterm.paths`: every file rankterm keeps is under the folders the environment names, with the names the
files had before they were named in one place, and the module imports nothing of rankterm."""

from __future__ import annotations

import ast
import hashlib
import pathlib
import re

import pytest

from rankterm import config, paths
from rankterm.server import serve
from rankterm.tui.widgets.match_form.draft import draft_path
from rankterm.wire.ids import service_scope

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASE = "https://rank.example:8443/api/"


@pytest.fixture
def folders(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "cfg" / "config.toml"))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def test_each_kept_file_is_where_it_was(folders: pathlib.Path) -> None:
    digest = hashlib.sha256(service_scope(BASE, "k").encode()).hexdigest()[:16]
    assert config.token_cache_path() == folders / "cache" / "tokens.toml"
    assert config.outbox_path() == folders / "data" / "outbox.db"
    assert config.mirror_path(BASE, "k") == folders / "cache" / "mirror" / f"rank.example-{digest}.db"
    assert draft_path(BASE, "k") == folders / "data" / "drafts" / f"rank.example-{digest}.json"
    assert config.user_themes_dir() == folders / "cfg" / "themes"
    assert serve.default_db() == folders / "data" / "service.db"
    assert paths.demo_path("2026-11-28-abc").match(paths.DEMO_GLOB)
    assert paths.demo_path("2026-11-28-abc").parent == folders / "cache"


def test_a_host_that_is_not_a_plain_name_is_made_one() -> None:
    stem = paths.group_stem("http://[::1]:8765/", "scope")
    assert re.fullmatch(r"[A-Za-z0-9._-]+-[0-9a-f]{16}", stem)
    assert paths.group_stem("http://a/", "one") != paths.group_stem("http://a/", "two")


def test_paths_imports_nothing_of_rankterm() -> None:
    tree = ast.parse((ROOT / "rankterm" / "paths.py").read_text(encoding="utf-8"))
    imported = [
        name
        for node in ast.walk(tree)
        for name in (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    ]
    assert imported and not [name for name in imported if name.startswith("rankterm")]


@pytest.mark.parametrize(
    "name", ["outbox.db", "service.db", "tokens.toml", "config.toml", "drafts", "mirror"]
)
def test_a_kept_files_name_is_written_in_paths_alone(name: str) -> None:
    written = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "rankterm").rglob("*.py"))
        if path.name != "paths.py"
        and "testing" not in path.parts  # the tests' helpers write their own folders
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value == name
    ]
    assert not written, f"{name!r} is named outside rankterm/paths.py: {written}"
