"""`KeysScreen`: the help overlay (`?` or F1): every key of the screen shown, of its focused widget and of the
app, each with what it does, read from the bindings themselves (never a hand-written list).

    self.app.push_screen(KeysScreen(self.app.screen))

Left, the screen's own keys (then those of the widget that has the cursor: the table, a text field);
right, the keys that work everywhere (the screens' letters, theme, palette, quit). A key that does nothing
right now (a screen that needs a service, none open) is dimmed. Escape, `?` or F1 closes it.

`key_sections(screen)` is the one reading of "which keys work here", shared with the command palette
(`palette_entries`): the palette lists every binding a rankterm class declares, with its key.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from functools import cache

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import DataTable, Input, OptionList, Select, Static

from rankterm.tui.text import plain, plain_str, styled

EVERYWHERE = "Everywhere"

DESCRIPTIONS = {"command_palette": "Command palette"}
"""Better words for the few Textual bindings whose own description is terse."""

_WIDGET_NAMES: tuple[tuple[type, str], ...] = (
    (DataTable, "In the table"),
    (Input, "In a text field"),
    (Select, "In the picker"),
    (OptionList, "In the list"),
)


@dataclass(frozen=True)
class KeyEntry:
    """One action and every key that does it (in one place: a widget, the screen or the app)."""

    keys: tuple[str, ...]
    """How each key reads ("[", "pgup", "^e")."""
    description: str
    action: str
    node: DOMNode
    enabled: bool
    ours: bool
    """Declared by a rankterm class (not one of Textual's own widget keys)."""

    @property
    def key_text(self) -> str:
        return " ".join(self.keys)


@dataclass
class KeySection:
    """The keys of one place, titled: the screen, a widget, the app ("Everywhere")."""

    title: str
    node: DOMNode
    entries: list[KeyEntry] = field(default_factory=list)


@cache
def _declared(cls: type) -> frozenset[tuple[str, str]]:
    """(key, action) of every binding a rankterm class in `cls`'s ancestry declares, less those it copies from
    a Textual class (a field that keeps Input's keys but a few declares them again)."""
    ours: set[tuple[str, str]] = set()
    theirs: set[tuple[str, str]] = set()
    for klass in cls.__mro__:
        if "BINDINGS" in vars(klass):
            found = {(b.key, b.action) for b in Binding.make_bindings(vars(klass)["BINDINGS"])}
            side = ours if klass.__module__.startswith("rankterm.") else theirs
            side |= found
    return frozenset(ours - theirs)


def key_display(app: App, binding: Binding) -> str:
    """How the key of `binding` reads: its own key, not the one display a list of keys shares."""
    return app.get_key_display(dataclasses.replace(binding, key_display=None))


def section_title(node: DOMNode) -> str:
    """ "Everywhere" for the app, the screen's title, "In the table" for a widget."""
    if isinstance(node, App):
        return EVERYWHERE
    if isinstance(node, Screen):
        return plain_str(node.title or type(node).__name__)
    for kind, name in _WIDGET_NAMES:
        if isinstance(node, kind):
            return name
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(node).__name__).lower()
    return f"In the {words}"


def key_sections(screen: Screen) -> list[KeySection]:
    """Every key that works on `screen` now, by place: the screen, then the focused widget and its parents,
    then the app. A binding without a description (Textual's system keys) is left out. An action's keys read
    ours first, the one the footer shows first of those ("q ^q")."""
    app = screen.app
    sections: dict[int, KeySection] = {}
    found: dict[tuple[int, str], list[tuple[Binding, bool, bool]]] = {}
    for active in screen.active_bindings.values():
        binding, node = active.binding, active.node
        if not binding.description or binding.system:
            continue
        section = sections.setdefault(id(node), KeySection(section_title(node), node))
        mark = (id(node), binding.action)
        if mark not in found:
            found[mark] = []
            section.entries.append(
                KeyEntry(
                    (),
                    DESCRIPTIONS.get(binding.action, binding.description),
                    binding.action,
                    node,
                    False,
                    False,
                )
            )
        ours = (binding.key, binding.action) in _declared(type(node))
        found[mark].append((binding, active.enabled, ours))
    for section in sections.values():
        entries = []
        for entry in section.entries:
            bindings = sorted(
                found[(id(section.node), entry.action)], key=lambda b: (not b[2], not b[0].show)
            )
            keys: list[str] = []
            for binding, _enabled, _ours in bindings:
                display = key_display(app, binding)
                if display not in keys:
                    keys.append(display)
            entries.append(
                dataclasses.replace(
                    entry,
                    keys=tuple(keys),
                    enabled=any(b[1] for b in bindings),
                    ours=any(b[2] for b in bindings),
                )
            )
        # ours first (the screen's own keys before Textual's focus and copy keys), each in declared order
        section.entries = sorted(entries, key=lambda e: not e.ours)
    ordered = [s for s in sections.values() if s.entries]
    return sorted(ordered, key=lambda s: 0 if s.node is screen else 2 if isinstance(s.node, App) else 1)


def palette_entries(screen: Screen) -> list[KeyEntry]:
    """The keys the command palette lists for `screen`: every enabled binding a rankterm class declares,
    one per action and place, with all its keys."""
    return [e for s in key_sections(screen) for e in s.entries if e.ours and e.enabled]


PACK_WIDTH = 36
"""Textual's own keys (a table's cursor keys, focus and copy) are packed several to a line, this wide."""


def section_parts(section: KeySection, key_width: int) -> list[tuple[str, str]]:
    """A section as (text, style) parts: its title, then "key  what it does" a line each for ours (dimmed,
    "not now", when it does nothing here yet), then Textual's own keys packed a few to a line."""
    parts = [(section.title + "\n", "bold")]
    for entry in section.entries:
        if not entry.ours:
            continue
        dim = "" if entry.enabled else " dim"
        parts.append((f" {entry.key_text:<{key_width}} ", f"bold{dim}"))
        parts.append(
            (entry.description + ("" if entry.enabled else " (not now)") + "\n", dim.strip() or "none")
        )
    used = 0
    for entry in (e for e in section.entries if not e.ours):
        width = len(entry.key_text) + len(entry.description) + 3
        if used and used + width > PACK_WIDTH:
            parts.append(("\n", "none"))
            used = 0
        parts.append((f" {entry.key_text} ", "bold"))
        parts.append((entry.description + " ", "dim"))
        used += width
    if used:
        parts.append(("\n", "none"))
    return parts


def balance(sections: list[KeySection]) -> tuple[list[KeySection], list[KeySection]]:
    """Two columns: the screen's keys left, the app's right, each widget's under the shorter of the two (so
    that at 80x24 the overlay needs no scrolling, or little)."""
    left = [s for s in sections if isinstance(s.node, Screen)]
    right = [s for s in sections if isinstance(s.node, App)]
    for section in sections:
        if section in left or section in right:
            continue
        lines = [sum(len(s.entries) + 2 for s in column) for column in (left, right)]
        (left if lines[0] <= lines[1] else right).append(section)
    return left, right


class KeysScreen(ModalScreen[None]):
    """The help overlay: the keys of the screen under it and of the app."""

    DEFAULT_CSS = """
    KeysScreen { align: center middle; background: $background 60%; }
    KeysScreen #keys-box {
        width: 100%; max-width: 96; height: auto; max-height: 100%;
        border: round $accent; border-title-color: $text-accent; border-subtitle-color: $text-muted;
        background: $surface; padding: 0 1;
    }
    KeysScreen #keys-scroll { height: auto; max-height: 100%; }
    KeysScreen #keys-columns { height: auto; }
    KeysScreen .keys-column { width: 1fr; height: auto; }
    KeysScreen #keys-here { margin-right: 2; }
    """

    BINDINGS = [Binding("escape,question_mark,f1", "close", "Close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under
        self.sections = key_sections(under)

    def compose(self) -> ComposeResult:
        here, everywhere = balance(self.sections)
        width = max((len(e.key_text) for s in self.sections for e in s.entries), default=1)
        width = min(width, 12)
        with Vertical(id="keys-box") as box:
            box.border_title = plain(f"Keys · {section_title(self.under)}")
            box.border_subtitle = "esc or ? close"
            with VerticalScroll(id="keys-scroll"), Horizontal(id="keys-columns"):
                yield self._column("keys-here", here, width)
                yield self._column("keys-everywhere", everywhere, width)

    @staticmethod
    def _column(column_id: str, sections: list[KeySection], width: int) -> Widget:
        parts: list[tuple[str, str]] = []
        for n, section in enumerate(sections):
            if n:
                parts.append(("\n", "none"))
            parts += section_parts(section, width)
        if parts:
            text, style = parts[-1]
            parts[-1] = (text.rstrip("\n"), style)
        return Static(styled(*parts), id=column_id, classes="keys-column", markup=False)

    def on_mount(self) -> None:
        self.query_one("#keys-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
