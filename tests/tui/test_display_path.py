"""The unsafe way to show text is hard: a reading of the tui package's source that fails on it.

Textual reads a `str` given to `Static`, `Label`, `.update()`, an `Option`, a `border_title` or a toast as
markup: a name such as `[/b]` then crashes the app (MarkupError) and `[b]x[/b]` shows bold. Text that is not
ours goes through `rankterm.tui.text` (`plain()`, `plain_str()`, `styled()`), so every such place must be
given a string literal (our own words) or one of those calls; `notify` must say `markup=False`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rankterm.tui

TUI = Path(rankterm.tui.__file__).parent
SAFE_CALLS = frozenset({"plain", "plain_str", "styled"})
SHOWING_CALLS = frozenset({"Static", "Label", "Option"})
SHOWING_METHODS = frozenset({"update"})
SHOWING_ATTRIBUTES = frozenset({"border_title", "border_subtitle", "title", "sub_title"})
SHOWING_BASES = frozenset({"Static", "Label"})


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def is_safe(node: ast.expr) -> bool:
    """Our own literal words, or text that went through the display path."""
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, str)
    if isinstance(node, ast.Call):
        return _name(node.func) in SAFE_CALLS
    if isinstance(node, ast.IfExp):
        return is_safe(node.body) and is_safe(node.orelse)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return is_safe(node.left) and is_safe(node.right)
    return False


def _first_argument(call: ast.Call, keyword: str) -> ast.expr | None:
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def problems_in(source: str, filename: str = "<source>") -> list[str]:
    """Every place in `source` that shows text without the display path, as "file:line: what"."""
    tree = ast.parse(source, filename)
    found: list[str] = []

    def report(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', 0)}: {what}")

    showing_classes: set[ast.ClassDef] = {
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and any(_name(b) in SHOWING_BASES for b in node.bases)
    }
    super_inits: set[ast.Call] = set()
    for cls in showing_classes:
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "__init__"
                and isinstance(node.func.value, ast.Call)
                and _name(node.func.value.func) == "super"
            ):
                super_inits.add(node)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name == "Input" and isinstance(node.func, ast.Name):
                report(node, "Input(): use FormInput, which never holds a control character")
            elif name == "notify":
                markup = next((k.value for k in node.keywords if k.arg == "markup"), None)
                if not (isinstance(markup, ast.Constant) and markup.value is False):
                    report(node, "notify() without markup=False")
                message = _first_argument(node, "message")
                if message is not None and not is_safe(message):
                    report(node, "notify() of text not passed through plain_str()")
            elif (
                (name in SHOWING_CALLS and isinstance(node.func, ast.Name))
                or (name in SHOWING_METHODS and isinstance(node.func, ast.Attribute))
                or node in super_inits
            ):
                shown = _first_argument(node, "content" if name != "Option" else "prompt")
                if shown is not None and not is_safe(shown):
                    report(node, f"{name}() of text not passed through plain()")
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr in SHOWING_ATTRIBUTES
                    and node.value is not None
                    and not is_safe(node.value)
                ):
                    report(node, f"{target.attr} set to text not passed through plain()")
    return found


AWAITING_THEIR_OWNERS: frozenset[str] = frozenset()
"""Files of other owners still to be moved onto the display path. Remove a file here once it is: the last
test below fails while a listed file has nothing left to fix, so this list can only shrink."""


def _problems_by_file() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(TUI.rglob("*.py")):
        name = path.relative_to(TUI.parent.parent).as_posix()
        found[name] = problems_in(path.read_text(encoding="utf-8"), name)
    return found


def test_the_tui_shows_outside_text_only_through_the_display_path():
    found = [p for name, ps in _problems_by_file().items() if name not in AWAITING_THEIR_OWNERS for p in ps]
    assert not found, "Show outside text with rankterm.tui.text.plain():\n" + "\n".join(found)


def test_the_files_awaiting_their_owners_still_need_it():
    by_file = _problems_by_file()
    done = sorted(name for name in AWAITING_THEIR_OWNERS if not by_file.get(name))
    assert not done, f"Now on the display path: remove from AWAITING_THEIR_OWNERS: {done}"


def test_the_reading_catches_each_unsafe_way():
    unsafe = [
        'self.notify(f"{game.name} is ready")',
        "self.notify(plain_str(name))",
        "self.notify(name, markup=False)",
        'widget.update(f"Filter {text}")',
        "widget.update(text)",
        'box.border_title = f"{player.label} · recent matches"',
        "box.border_title = self.dialog_title",
        "self.sub_title = self.profile_name",
        "Label(self.prompt)",
        "Option(self.suggestion_prompt(i))",
        'Static("\\n".join(lines), markup=False)',
        'class Chip(Static):\n    def __init__(self, p):\n        super().__init__(f"{p.label} x")',
        'yield Input(placeholder="Name", id="ask-input")',
    ]
    for source in unsafe:
        assert problems_in(source), source


def test_the_reading_lets_literal_and_plain_text_pass():
    safe = [
        'self.notify("Clear the filter first.", markup=False)',
        'self.notify(plain_str(f"{name} created."), severity="error", markup=False)',
        'widget.update("")',
        'widget.update(plain(f"Filter {text}"))',
        'widget.update(styled(("key", "dim"), value))',
        'box.border_title = "Service"',
        'box.border_title = plain(f"{player.label} · recent matches")',
        'self.title = "Players"',
        'self.sub_title = "demo" if demo else plain_str(name)',
        'Label("Filter (/)")',
        'Option(plain(label), id="x")',
        'Static("Loading…", id="info")',
    ]
    for source in safe:
        assert not problems_in(source), source
