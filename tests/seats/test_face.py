"""`rankterm.seats`' public face: every name of `__all__` is there, each loaded only when it is first used, so
that a guest's seat (which asks its desk and watches its terminal) loads none of the servers' libraries; and no
module of seats/ or cli/ imports another module's `_private` name."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rankterm.seats

ROOT = Path(__file__).resolve().parents[2]
SERVERS = (
    "asyncssh",
    "aiohttp",
    "textual_serve",
    "jinja2",
    "rankterm.seats.ssh_server",
    "rankterm.seats.web_server",
)


def test_every_public_name_is_served_from_the_module_the_face_names() -> None:
    assert sorted(rankterm.seats.__all__) == sorted(rankterm.seats.HOMES)
    for name, home in rankterm.seats.HOMES.items():
        value = getattr(rankterm.seats, name)
        assert getattr(sys.modules[f"rankterm.seats.{home}"], name) is value, name
    assert set(rankterm.seats.__all__) <= set(dir(rankterm.seats))


def test_a_name_the_face_does_not_offer_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Seat'"):
        rankterm.seats.Seat  # noqa: B018 - a module of seats/, not part of the face


def test_a_guest_seat_loads_none_of_the_servers() -> None:
    code = (
        "import json, sys\n"
        "from rankterm.seats import ask_seat, ask_token, run_on_terminal\n"
        "import rankterm.cli.seat\n"
        "print(json.dumps(sorted(m for m, v in sys.modules.items() if v is not None)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    modules = json.loads(done.stdout)
    assert "rankterm.seats.desk" in modules  # the check below can see what was imported
    assert sorted({n for n in SERVERS for m in modules if m == n or m.startswith(n + ".")}) == []


def private_imports(folder: Path) -> list[str]:
    """Each `from module import _name` under `folder` (a name private to another module)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        where = f"{path.relative_to(folder.parent)}:{node.lineno}"
                        found.append(f"{where} imports {alias.name} from {node.module}")
    return found


@pytest.mark.parametrize("package", ["seats", "cli"])
def test_no_module_imports_a_private_name_of_another(package: str) -> None:
    assert private_imports(ROOT / "rankterm" / package) == []


def test_the_private_import_finder_names_file_line_and_name(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from b import _hidden, shown\nfrom c import __version__\n")
    assert private_imports(tmp_path) == [f"{tmp_path.name}/a.py:1 imports _hidden from b"]
