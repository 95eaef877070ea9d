"""The Stats mode's tab parts: a tab whose body is mounted when first drawn (`LazyPane`), and a one-line picker
above a story (`PickedStory`, the Player and Game tabs)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Label, Select, TabPane

from rankterm.tui.text import plain


class LazyPane(TabPane):
    """A tab whose body is mounted when it is first drawn: blank until then (never the widget's own name)."""

    def render(self) -> str:
        return ""


class PickedStory(Vertical):
    """A one-line picker above a story: the Player and Game tabs."""

    def __init__(self, label: str, select_id: str, story: Widget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label, self.select_id, self.story = label, select_id, story

    def compose(self) -> ComposeResult:
        with Horizontal(classes="stats-pick"):
            yield Label(plain(self.label))
            yield Select([], prompt=self.label, id=self.select_id, compact=True, type_to_search=True)
        yield self.story
