"""The outbox's seams: its modules import one another in one direction, type-only imports included (the senders
know the queue as a Protocol, `queue.SendQueue`), and none borrows another's private name."""

from __future__ import annotations

import ast
import pathlib

import grimp

from tests.test_house import import_cycles

OUTBOX = pathlib.Path(__file__).resolve().parents[2] / "rankterm" / "outbox"


def test_no_outbox_module_imports_one_that_imports_it_even_for_type_checking() -> None:
    graph = grimp.build_graph("rankterm", cache_dir=None, exclude_type_checking_imports=False)
    outbox = {m for m in graph.modules if m.startswith("rankterm.outbox")}
    for module in graph.modules - outbox - {"rankterm"}:  # removing the root would take its children with it
        graph.remove_module(module)
    assert "rankterm.outbox.sender" in graph.modules
    cycles = import_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_no_private_name_crosses_an_outbox_module() -> None:
    borrowed = [
        f"{path.name}:{node.lineno}: {node.module}.{alias.name}"
        for path in sorted(OUTBOX.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rankterm")
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert not borrowed, "\n".join(borrowed)
