"""`TypeAhead`: a one-line text field with a list of suggestions under it, for picking one thing by typing.

The base of the game picker and of the player picker. Typing filters the candidates (`candidates()`, which a
subclass fills; `extra` holds suggestions found elsewhere, e.g. by a search); Down/Up move the highlight
while the text keeps the focus; Enter picks the highlighted suggestion and posts `TypeAhead.Picked`
(`enter`, which a subclass may extend: move on, or hold the text until the candidates arrive). Escape is not
the list's: it leaves the field, as everywhere (the list closes with the focus), so that "Escape, then the
letter" holds with a list open too. The list floats over what follows (an overlay), so the form does not
jump while typing. Keys typed after Enter wait until the pick and the focus move it makes have landed (the
app lets keys go one at a time: `rankterm.tui.key_queue`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import DescendantBlur
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from rankterm.tui.text import plain
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.suggestion_list import SuggestionList

MAX_SUGGESTIONS = 8


def rank_matches(query: str, items: Iterable[Any], label: Any) -> list[Any]:
    """Items whose label contains `query` (case-blind), the ones starting with it first, then by label."""
    q = query.strip().casefold()
    scored = []
    for item in items:
        text = label(item).casefold()
        if not q:
            scored.append((1, text, item))
        elif text.startswith(q) or text.lstrip("*").startswith(q):
            scored.append((0, text, item))
        elif q in text:
            scored.append((1, text, item))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [item for _, _, item in scored]


class TypeAhead(Vertical):
    """A text field plus a suggestion list; subclasses say what the candidates are and how they read."""

    DEFAULT_CSS = """
    TypeAhead {
        height: auto;
        width: 1fr;
    }
    TypeAhead > Input {
        width: 1fr;
    }
    TypeAhead.-open > SuggestionList {
        display: block;
    }
    """

    BINDINGS = [
        Binding("down", "move(1)", "Next suggestion", show=False),
        Binding("up", "move(-1)", "Previous suggestion", show=False),
    ]

    @dataclass
    class Picked(Message):
        """A suggestion was picked (Enter or a click)."""

        typeahead: TypeAhead
        item: Any

        @property
        def control(self) -> TypeAhead:
            return self.typeahead

    @dataclass
    class Query(Message):
        """The text changed: a subclass may look further (e.g. search the catalogue) for `text`."""

        typeahead: TypeAhead
        text: str

        @property
        def control(self) -> TypeAhead:
            return self.typeahead

    def __init__(
        self,
        placeholder: str = "",
        *,
        value: str = "",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._placeholder = placeholder
        self._initial = value
        self.extra: list[Any] = []
        self._shown: list[Any] = []
        self._quiet = False
        self.typing = False
        """True from a key typed in the field until it loses the focus: only then may new candidates open
        the list (coming back to a field, or re-entering its screen, never opens it by itself)."""

    # ---------------------------------------------------------------- for subclasses

    def candidates(self) -> Sequence[Any]:
        """Everything that can be picked (before filtering)."""
        return []

    def label(self, item: Any) -> str:
        """How an item reads in the list and, once picked, in the field."""
        return str(item)

    def item_key(self, item: Any) -> Any:
        """What makes two items the same (to drop duplicates between candidates and `extra`)."""
        return item

    def excluded(self, item: Any) -> bool:
        """Items not to offer (e.g. players already chosen)."""
        return False

    def suggestion_prompt(self, item: Any) -> str:
        """The text of an item's line in the list (the label unless a subclass adds a tag)."""
        return self.label(item)

    def rank(self, text: str, items: Sequence[Any]) -> list[Any]:
        """The items that match `text`, best first (by default: starting with it, then by label)."""
        return rank_matches(text, items, self.label)

    # ---------------------------------------------------------------- widget

    def compose(self) -> ComposeResult:
        yield FormInput(self._initial, placeholder=self._placeholder, compact=True)
        yield SuggestionList()

    @property
    def input(self) -> Input:
        return self.query_one(Input)

    @property
    def text(self) -> str:
        return self.input.value

    def set_text(self, text: str) -> None:
        """Put `text` in the field without opening the list."""
        if self.input.value != text:
            self._quiet = True
            self.input.value = text
        self.input.cursor_position = len(text)
        self.close()

    def focus_input(self) -> None:
        self.input.focus()

    def matches(self, text: str) -> list[Any]:
        """The suggestions for `text`: matching candidates, then matching `extra` items, no duplicates."""
        found = self.rank(text, self.candidates())
        keys = {self.item_key(i) for i in found}
        for item in self.extra:
            if self.item_key(item) not in keys:
                found.append(item)
                keys.add(self.item_key(item))
        return [i for i in found if not self.excluded(i)][:MAX_SUGGESTIONS]

    def refresh_suggestions(self) -> None:
        """Recompute the list for the current text (e.g. after the candidates or `extra` changed)."""
        text = self.text
        if not text.strip() or not self.input.has_focus:
            self.close()
            return
        self._shown = self.matches(text)
        options = self.query_one(SuggestionList)
        options.set_options([Option(plain(self.suggestion_prompt(i))) for i in self._shown])
        if self._shown:
            options.highlighted = 0
            self.add_class("-open")
        else:
            self.close()

    def close(self) -> None:
        self.remove_class("-open")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def highlighted_item(self) -> Any | None:
        index = self.query_one(SuggestionList).highlighted
        if self.is_open and index is not None and 0 <= index < len(self._shown):
            return self._shown[index]
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "move":
            return self.is_open
        return True

    def action_move(self, step: int) -> None:
        options = self.query_one(SuggestionList)
        if options.option_count:
            current = options.highlighted or 0
            options.highlighted = (current + step) % options.option_count

    def pick(self, item: Any) -> None:
        """Take `item` (as if chosen from the list)."""
        self.close()
        self.post_message(self.Picked(self, item))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._quiet:
            self._quiet = False
            return
        self.typing = True
        self.refresh_suggestions()
        self.post_message(self.Query(self, event.value))

    def best(self, text: str) -> Any | None:
        """What Enter picks for `text`: the highlighted suggestion, else the only match."""
        item = self.highlighted_item()
        if item is None and text.strip():
            found = self.matches(text)
            item = found[0] if len(found) == 1 else None
        return item

    def enter(self, text: str) -> None:
        """Enter in the field, holding `text`: pick what `best` gives; else nothing, and the focus stays."""
        item = self.best(text)
        if item is not None:
            self.pick(item)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.enter(event.value)

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._shown):
            self.pick(self._shown[event.option_index])

    @on(DescendantBlur)
    def _blurred(self) -> None:
        self.typing = False
        self.close()
