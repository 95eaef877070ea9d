"""The promises of the house that no import contract can hold, and the one README makes about tests.

The floors and walls (DESIGN.md) are pyproject's import contracts, checked by ``lint-imports``. What they
cannot say is checked here: each module says what it is for, every module imports and none reaches back into
one that imports it (a cycle, through an import at the top or inside a function), the code speaks of what it
does and why rather than of its history, and CI runs README's test command, every test of it.
"""

import ast
import importlib
import itertools
import pathlib
import re
import shlex
import tomllib
from graphlib import CycleError, TopologicalSorter

import grimp

ROOT = pathlib.Path(__file__).resolve().parent.parent
PKG = ROOT / "rankterm"


def test_each_module_has_a_docstring():
    # Modules are split by meaning, not by size: no line cap (a cap split classes in halves).
    for f in PKG.rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert ast.get_docstring(ast.parse(text)), f"{f.relative_to(ROOT)} has no module docstring"


def import_cycles(graph: grimp.ImportGraph) -> list[str]:
    """Each cycle of direct imports between the graph's modules, as "a:line imports b:line imports … a"."""
    imports = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    cycles = []
    while True:
        try:
            TopologicalSorter(imports).prepare()
        except CycleError as error:
            cycle = error.args[1][::-1]  # each module imports the next; the first is the last again
        else:
            return cycles
        steps = []
        for importer, imported in itertools.pairwise(cycle):
            lines = [d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)]
            steps.append(f"{importer}:{','.join(map(str, lines))}")
        cycles.append(" imports ".join([*steps, cycle[-1]]))
        imports[cycle[0]].discard(cycle[1])  # then look for the next cycle


def test_every_module_imports_and_none_imports_one_that_imports_it():
    graph = grimp.build_graph("rankterm", cache_dir=None, exclude_type_checking_imports=True)
    for module in sorted(graph.modules):
        if not module.endswith(".__main__"):  # importing it would run the command line
            importlib.import_module(module)
    cycles = import_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_cycle_finder_names_each_cycle_with_its_lines():
    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c", "p.d"):
        graph.add_module(module)
    for importer, imported, line in [
        ("p.a", "p.b", 3),
        ("p.b", "p.a", 9),
        ("p.b", "p.c", 4),
        ("p.c", "p.d", 5),
    ]:
        graph.add_import(importer=importer, imported=imported, line_number=line, line_contents="import")
    assert import_cycles(graph) in (["p.a:3 imports p.b:9 imports p.a"], ["p.b:9 imports p.a:3 imports p.b"])
    graph.remove_import(importer="p.b", imported="p.a")
    assert import_cycles(graph) == []


def test_no_issue_numbers_in_code():
    # The code says what and why; which issue asked for it is git's history.
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted(PKG.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bissues? #?\d+", line, re.IGNORECASE)
    ]
    assert not found, "\n".join(found)


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert match, "README has no sh block"
    return match.group(1).strip().splitlines()


def test_ci_runs_readme_test_command():
    commands = readme_commands()
    assert len(commands) == 2 and "rankterm demo" in commands[0] and "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()


def test_readme_test_command_leaves_no_test_out():
    # Markers (e2e, slow, postgres) are for a run in a loop; README's command, CI's, runs them all.
    words = shlex.split(readme_commands()[1])
    pytest_args = words[max(i for i, word in enumerate(words) if word.endswith("pytest")) + 1 :]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = shlex.split(pyproject["tool"]["pytest"]["ini_options"]["addopts"])
    for args in (pytest_args, addopts):
        assert not {"-m", "-k", "--deselect", "--ignore"} & {arg.split("=")[0] for arg in args}, args
