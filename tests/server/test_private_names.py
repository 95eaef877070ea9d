"""No module of the service uses another module's ``_private`` name: read from the source (ast).

A name starting with ``_`` is its module's own business; another module of rankterm.server neither imports
it (``from rankterm.server.x import _y``) nor reaches it through a module it imported (``x._y``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import rankterm.server

SERVER = Path(rankterm.server.__file__).parent


def _private_uses(source: str, name: str) -> list[str]:
    """Each use of another rankterm module's private name in `source` (the module `name`)."""
    tree = ast.parse(source)
    modules: set[str] = set()  # names bound to a rankterm module by an import
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rankterm"):
            for alias in node.names:
                if alias.name.startswith("_"):
                    found.append(f"{name}:{node.lineno} imports {node.module}.{alias.name}")
                modules.add(alias.asname or alias.name)  # maybe a module: its attributes are checked
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rankterm"):
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            found.append(f"{name}:{node.lineno} reads {node.value.id}.{node.attr}")
    return found


def test_no_module_of_the_service_uses_anothers_private_name() -> None:
    modules = sorted(SERVER.rglob("*.py"))
    assert len(modules) > 20
    found = [
        use
        for path in modules
        for use in _private_uses(path.read_text(encoding="utf-8"), str(path.relative_to(SERVER)))
    ]
    assert found == []


def test_the_check_sees_what_it_looks_for() -> None:
    sample = (
        "from rankterm.server.rankings import _PAGE, standings\n"
        "from rankterm.server import snapshots\n"
        "import rankterm.server.db.pg as pg\n"
        "class A:\n"
        "    def f(self, other):\n"
        "        return snapshots._SNAPSHOT, pg._param, self._own, other._theirs, snapshots.__name__\n"
    )
    assert _private_uses(sample, "sample.py") == [
        "sample.py:1 imports rankterm.server.rankings._PAGE",
        "sample.py:6 reads snapshots._SNAPSHOT",
        "sample.py:6 reads pg._param",
    ]
