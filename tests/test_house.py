"""The house's walls (DESIGN.md) and the promises README makes, checked."""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PKG = ROOT / "rankterm"


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _files(folder: str):
    return sorted((PKG / folder).rglob("*.py"))


def test_api_knows_nothing_of_textual_or_server():
    for f in _files("api"):
        bad = {
            n
            for n in _imports(f)
            if n.split(".")[0] == "textual" or n.startswith(("rankterm.tui", "rankterm.server"))
        }
        assert not bad, f"{f.relative_to(ROOT)} imports {bad}"


def test_server_never_imports_tui_or_textual():
    for f in _files("server"):
        bad = {n for n in _imports(f) if n.split(".")[0] == "textual" or n.startswith("rankterm.tui")}
        assert not bad, f"{f.relative_to(ROOT)} imports {bad}"


def test_tui_never_calls_httpx_or_server_directly():
    for f in _files("tui"):
        bad = {n for n in _imports(f) if n.split(".")[0] == "httpx" or n.startswith("rankterm.server")}
        assert not bad, f"{f.relative_to(ROOT)} imports {bad}"


def test_each_module_has_a_docstring():
    # Modules are split by meaning, not by size: no line cap (a cap split classes in halves).
    for f in PKG.rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert ast.get_docstring(ast.parse(text)), f"{f.relative_to(ROOT)} has no module docstring"


def test_ci_runs_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.search(r"```sh\n(.*?)```", readme, re.S).group(1).strip().splitlines()
    assert len(commands) == 2 and "rankterm demo" in commands[0] and "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()
