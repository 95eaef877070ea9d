"""`rankterm.paths`: every file rankterm keeps is under the folders the environment names, with the names the
files had before they were named in one place, and the module imports nothing of rankterm."""

from __future__ import annotations

import ast
import hashlib
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import pytest

from rankterm import config, paths
from rankterm.seats import table_demo
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


def test_the_table_demo_folder_is_the_hosts_own_and_a_killed_hosts_is_removed_by_the_next(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    killed = tmp_path / f"{table_demo.FOLDER_PREFIX}{int(gone.stdout)}-abc"  # a host ended by SIGKILL left it
    killed.mkdir()
    (killed / "demo.db").write_bytes(b"\0" * 64)
    alive = tmp_path / f"{table_demo.FOLDER_PREFIX}{os.getppid()}-def"  # a host still running
    alive.mkdir()
    with table_demo.table_demo() as (url, folder):
        assert url.startswith("http://127.0.0.1:")
        assert pathlib.Path(folder).parent == tmp_path
        assert pathlib.Path(folder).name.startswith(f"{table_demo.FOLDER_PREFIX}{os.getpid()}-")
        assert not killed.exists() and alive.is_dir()
    assert not pathlib.Path(folder).exists()
